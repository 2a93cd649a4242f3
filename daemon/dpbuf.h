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
	 * buffer is filled whole): 16 cost 512 KiB more than 8 and gained
	 * nothing side by side (doc/benchmarks.md, "Memory under load"). */
	UDP_BATCH = 8,
	/* A batch's datagrams: UDP_GRO coalesces <= 64 per buffer. */
	UDP_BATCH_DGRAMS = UDP_BATCH * 64,
	/* One TUN read: a virtio-net header and a super-packet. */
	TX_IN_SIZE = VNET_HDR_LEN + 65536,
	/* Sealed messages of one TUN batch: room for three super-packets
	 * (TX_ROOM). Each is sealed and sent as one GSO run anyway, so a
	 * larger batch only saves a lock round per super-packet; 512 KiB
	 * gained nothing side by side. */
	TX_OUT_CAP = 256 << 10,
	TX_MAX_SEGS = 512,
	/* read another packet only while a full super-packet still fits */
	TX_ROOM = 65536 + 128 * 48,
};

#endif
