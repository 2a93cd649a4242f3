/* The data path's buffer sizes, in one place: together they are most of
 * the daemon's memory under load (doc/datapath.md, "Memory"). Each buffer
 * is mapped with zt_pages_alloc, so only the part a batch really writes
 * counts in RSS; the sizes bound that part. */
#ifndef ZT_DPBUF_H
#define ZT_DPBUF_H

#include "offload.h"

enum {
	/* One receive buffer holds what UDP_GRO coalesces: up to 64 KiB. */
	UDP_BUF_SIZE = 65536,
	/* Buffers per recvmmsg. A GRO run of full-size messages is ~45 of
	 * them, so a few buffers already make a batch of hundreds of packets
	 * per system call; more only raise the peak RSS under TCP load (each
	 * buffer is filled whole) without gaining throughput. */
	UDP_BATCH = 16,
	/* A batch's datagrams: UDP_GRO coalesces <= 64 per buffer. */
	UDP_BATCH_DGRAMS = UDP_BATCH * 64,
	/* One TUN read: a virtio-net header and a super-packet. */
	TX_IN_SIZE = VNET_HDR_LEN + 65536,
	/* Sealed messages of one TUN batch. Room for a few super-packets:
	 * each is sealed and sent as one GSO run anyway, so a larger batch
	 * only saves a lock round and a poll per super-packet. */
	TX_OUT_CAP = 512 << 10,
	TX_MAX_SEGS = 512,
	/* read another packet only while a full super-packet still fits */
	TX_ROOM = 65536 + 128 * 48,
};

#endif
