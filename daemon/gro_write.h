/* A receive batch's packets to TUN, a flow's run coalesced in one write. */
#ifndef ZT_GRO_WRITE_H
#define ZT_GRO_WRITE_H

#include <sys/uio.h>

#include "offload.h"
#include "udp.h"

struct zt_runtime;

/* The plan's room, one per receive thread. */
struct gro_writer {
	struct gro_item items[UDP_BATCH_DGRAMS];
	int next[UDP_BATCH_DGRAMS];
	struct iovec iov[GRO_MAX_SEGS + 2];
};

/* Writes pkts[0, n) (n <= UDP_BATCH_DGRAMS) in order per flow. The first
 * EINVAL of a coalesced write turns TUN GRO off for good (logged once). */
void gro_write(struct zt_runtime *zt, struct gro_writer *w, const struct gro_pkt *pkts, int n);

#endif
