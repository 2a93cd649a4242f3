/* The data path's buffer sizes: most of the memory under load
 * (doc/datapath.md, "Memory"). */
#ifndef ZT_DPBUF_H
#define ZT_DPBUF_H

#include "offload.h"

enum {
	/* One receive buffer holds what UDP_GRO coalesces: up to 64 KiB. */
	UDP_BUF_SIZE = 65536,
	/* Buffers per recvmmsg (a GRO run fills one whole): 16 cost 512 KiB
	 * more than 8 and gained nothing (doc/benchmarks.md). */
	UDP_BATCH = 8,
	/* A batch's datagrams: UDP_GRO coalesces <= 64 per buffer. */
	UDP_BATCH_DGRAMS = UDP_BATCH * 64,
	/* One TUN read: a virtio-net header and a super-packet. */
	TX_IN_SIZE = VNET_HDR_LEN + 65536,
	/* Sealed messages of one TUN batch: three super-packets (TX_ROOM);
	 * 512 KiB gained nothing. */
	TX_OUT_CAP = 256 << 10,
	TX_MAX_SEGS = 512,
	/* read another packet only while a full super-packet still fits */
	TX_ROOM = 65536 + 128 * 48,
};

#endif
