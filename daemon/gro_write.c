/* Coalesced writes to TUN (gro_write.h). */
#include "gro_write.h"

#include <errno.h>
#include <string.h>

#include "datapath.h"
#include "log.h"
#include "runtime.h"

void gro_write(struct zt_runtime *zt, struct gro_writer *w, const struct gro_pkt *pkts, int n)
{
	struct zt_datapath *dp = &zt->dp;
	struct gro_plan plan = {.items = w->items, .next = w->next};

	tun_batch_begin(&dp->tun);
	if (!atomic_load_explicit(&dp->tun_gro, memory_order_relaxed)) {
		for (int i = 0; i < n; i++)
			zt_tun_write(zt, pkts[i].p, pkts[i].len);
		tun_batch_end(&dp->tun);
		return;
	}
	/* an in-process stack takes whole packets; the kernel's TUN takes a
	 * partial checksum, and coalesced UDP if it took USO */
	gro_plan_build(&plan, pkts, n,
		       dp->tun.sink  ? GRO_STACK
		       : dp->tun.uso ? GRO_TUN_USO
				     : GRO_TUN);
	for (int k = 0; k < plan.n_items; k++) {
		struct gro_item *it = &plan.items[k];
		struct vnet_hdr h;
		uint8_t saved[GRO_SAVED_LEN];
		int nv, ret;

		if (it->nseg == 1 || !atomic_load_explicit(&dp->tun_gro, memory_order_relaxed)) {
			for (int i = it->head; i >= 0; i = it->nseg == 1 ? -1 : plan.next[i])
				zt_tun_write(zt, pkts[i].p, pkts[i].len);
			continue;
		}
		nv = gro_item_prepare(it, &plan, pkts, &h, w->iov, saved);
		ret = tun_write_gro(&dp->tun, w->iov, nv);
		if (!ret)
			continue;
		if (ret != -EINVAL) {
			zt_tun_refused(zt, (uint64_t)it->nseg);
			log_debug("tun write (%u bytes, %d segments): %s", it->len, it->nseg,
				  strerror(-ret));
			continue;
		}
		/* the kernel refuses coalesced packets: write them singly */
		if (atomic_exchange(&dp->tun_gro, false))
			log_info(
			    "TUN GRO write failed (%s): writing packets one by one from now on",
			    strerror(-ret));
		gro_item_restore(it, pkts, saved);
		for (int i = it->head; i >= 0; i = plan.next[i])
			zt_tun_write(zt, pkts[i].p, pkts[i].len);
	}
	tun_batch_end(&dp->tun);
}
