/* The data path's set-up and threads; the batches themselves: tx.c, rx.c. */
#include "datapath.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "runtime.h"
#include "udp.h"

/* Attached now: the sandbox allows no open() later. */
static int attach_tun_queues(struct zt_runtime *zt)
{
	struct tun_dev *tun = &zt->dp.tun;
	const int want = zt->opt.tun_queues;

	while (tun->n_queues < want) {
		int q = tun_attach_queue(tun->fd[0], zt->ifname);

		if (q == -EOPNOTSUPP) {
			/* an inherited (WG_TUN_FD) single-queue device */
			log_err("tun: not a multi-queue device, reading one queue");
			return 0;
		}
		if (q < 0) {
			log_err("tun: cannot attach queue %d of %d: %s", tun->n_queues + 1, want,
				strerror(-q));
			return q;
		}
		tun->fd[tun->n_queues++] = q;
		if (fcntl(q, F_SETFL, fcntl(q, F_GETFL) | O_NONBLOCK) < 0)
			return -errno;
	}
	if (want > 1)
		log_info("tun: %d queues, one reader thread each", tun->n_queues);
	return 0;
}

static void open_icmp(struct zt_datapath *dp)
{
	/* made now: the sandbox allows no raw socket later */
	dp->icmp_fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_RAW);
	if (dp->icmp_fd < 0)
		log_info("no raw socket (%s): ICMP errors come from the unreachable address",
			 strerror(errno));
}

int zt_datapath_init_sink(struct zt_runtime *zt, const struct tun_sink *sink)
{
	struct zt_datapath *dp = &zt->dp;

	dp->tun.sink = sink;
	dp->tun.n_queues = 0;
	dp->tun.vnet_hdr = false; /* whole IP packets */
	dp->tun.uso = false;	  /* no coalesced UDP: a userspace stack has none */
	dp->icmp_fd = -1;	  /* its errors go to the stack, not the host's */
	atomic_init(&dp->tun_gro, zt->opt.tun_gro);
	log_info("offloads: in-process device, coalesced TCP writes %s, UDP GSO %s, UDP GRO %s",
		 zt->opt.tun_gro ? "on" : "off", udp_gso_enabled() ? "on" : "off",
		 udp_gro_enabled() ? "on" : "off");
	return 0;
}

int zt_datapath_init(struct zt_runtime *zt, int tun_fd)
{
	struct zt_datapath *dp = &zt->dp;
	unsigned int offloads = 0;
	int ret;

	dp->tun.fd[0] = tun_fd;
	dp->tun.n_queues = 1;
	open_icmp(dp);
	if (fcntl(tun_fd, F_SETFL, fcntl(tun_fd, F_GETFL) | O_NONBLOCK) < 0)
		return -errno;
	ret = attach_tun_queues(zt);
	if (ret)
		return ret;
	for (int i = 0; i < dp->tun.n_queues; i++)
		dp->tunq[i] = (struct zt_tunq){.zt = zt, .index = i};
	ret = tun_setup_offload(tun_fd, &dp->tun.vnet_hdr, &offloads);
	if (ret)
		log_info("tun offload setup: %s", strerror(-ret));
	atomic_init(&dp->tun_gro, dp->tun.vnet_hdr && zt->opt.tun_gro);
	/* the kernel has UDP_L4 GSO for tun */
	dp->tun.uso = (offloads & TUN_F_USO4) != 0;
	log_info("offloads: tun vnet header %s (0x%x), tun GRO %s, UDP GSO %s, UDP GRO %s",
		 dp->tun.vnet_hdr ? "on" : "off", offloads,
		 atomic_load(&dp->tun_gro) ? "on" : "off", udp_gso_enabled() ? "on" : "off",
		 udp_gro_enabled() ? "on" : "off");
	return 0;
}

/* One worker is not worth its wake-up: fan out from two on (doc/datapath.md). */
static void datapath_policy(struct zt_datapath *dp)
{
	int n = dp->pool.n_threads;

	dp->rx_fanout = n >= 2;
	dp->tx_fuse = n < 2;
	log_info("%d crypto worker thread%s (receive side %s, super-packets sealed %s)", n,
		 n == 1 ? "" : "s", dp->rx_fanout ? "too" : "inline",
		 dp->tx_fuse ? "as segmented" : "by the batch");
}

int zt_datapath_start(struct zt_runtime *zt)
{
	struct zt_datapath *dp = &zt->dp;
	int ret = wpool_start(&dp->pool,
			      zt->opt.workers >= 0 ? zt->opt.workers : wpool_default_threads());

	dp->pool_started = true;
	if (!ret) {
		datapath_policy(dp);
		ret = zt_spawn(dp->threads, &dp->n_threads, zt_udp_main, zt);
	}
	/* queue 0 is read by the UDP thread (rx.c) */
	for (int i = 1; !ret && i < dp->tun.n_queues; i++)
		ret = zt_spawn(dp->threads, &dp->n_threads, zt_tun_main, &dp->tunq[i]);
	if (ret)
		zt_datapath_stop(zt);
	return ret;
}

void zt_datapath_stop(struct zt_runtime *zt)
{
	struct zt_datapath *dp = &zt->dp;

	zt_request_stop(zt);
	for (int i = 0; i < dp->n_threads; i++)
		pthread_join(dp->threads[i], NULL);
	dp->n_threads = 0;
	/* after the data path threads: they are the pool's only callers */
	if (dp->pool_started)
		wpool_stop(&dp->pool);
	dp->pool_started = false;
}

void zt_datapath_destroy(struct zt_runtime *zt)
{
	struct zt_datapath *dp = &zt->dp;

	for (int i = 0; i < dp->tun.n_queues; i++)
		if (dp->tun.fd[i] >= 0)
			close(dp->tun.fd[i]);
	dp->tun.n_queues = 0;
	if (dp->icmp_fd >= 0)
		close(dp->icmp_fd);
	dp->icmp_fd = -1;
}

void zt_tun_write(struct zt_runtime *zt, const uint8_t *pkt, size_t len)
{
	int ret = tun_write(&zt->dp.tun, pkt, len);

	/* a failure means a full queue: drop */
	if (ret) {
		zt_tun_refused(zt, 1);
		log_debug("tun write (%zu bytes): %s", len, strerror(-ret));
	}
}

void zt_tun_refused(struct zt_runtime *zt, uint64_t n)
{
	zt_drops_add(zt->dp.tun.sink ? &zt->drops.stack_refused : &zt->drops.tun_full, n);
}

int zt_datapath_slice(int n, size_t bytes)
{
	return bytes < DP_PAR_MIN_BYTES ? n + 1 : DP_MIN_SLICE;
}
