/* TUN offloads: the virtio-net header, segmenting TSO/USO super-packets,
 * and coalescing received TCP segments and UDP datagrams (GRO). */
#ifndef ZT_OFFLOAD_H
#define ZT_OFFLOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* struct virtio_net_hdr, in host byte order (TUN default on x86) */
struct vnet_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
};

enum {
	VNET_HDR_LEN = 10,
	VNET_F_NEEDS_CSUM = 1,
	VNET_GSO_NONE = 0,
	VNET_GSO_TCPV4 = 1,
	VNET_GSO_TCPV6 = 4,
	VNET_GSO_UDP_L4 = 5,
	VNET_GSO_ECN = 0x80,
	GRO_MAX_SEGS = 64,
	/* the head's bytes gro_item_prepare may rewrite and saves: an IPv6
	 * header (40) and a TCP header up to its checksum (18), rounded up */
	GRO_SAVED_LEN = 64,
};

/* Gives the segmenter room for one segment of len bytes; NULL: no room. */
typedef uint8_t *(*seg_alloc_fn)(void *ctx, size_t len);

/* What the segmenter refused (shared by the TUN readers). */
struct offload_stats {
	atomic_uint_least64_t malformed; /* packets dropped: inconsistent offload header */
};

/* Turns one packet read from TUN into packets with complete checksums.
 * Returns the segment count, 0 if malformed (counted in st, nothing
 * allocated), or -1 when alloc ran out (the *done written stay valid). */
int offload_segment(const struct vnet_hdr *h, const uint8_t *pkt, size_t len, seg_alloc_fn alloc,
		    void *ctx, int *done, struct offload_stats *st);

/* A packet for TUN (a decrypted one). */
struct gro_pkt {
	uint8_t *p;
	size_t len;
};

/* One write to TUN: a single packet, or a run of TCP segments of one flow. */
struct gro_item {
	int head; /* index into the packet array */
	int tail; /* last member (== head for a single packet) */
	int nseg;
	uint32_t len; /* total length of the coalesced packet */
	uint16_t gso_size;
	uint16_t hdr_len; /* IP + TCP header length of the head */
	bool v6;
	bool udp; /* a run of UDP datagrams of one flow (written with USO) */
	bool push;
};

/* Where a plan's coalesced packets go. */
enum gro_target {
	GRO_TUN,     /* the kernel's TUN: TCP runs with a partial checksum */
	GRO_TUN_USO, /* the same, UDP runs too (the device took TUN_F_USO*) */
	GRO_STACK,   /* an in-process stack: runs as whole, checksummed packets */
};

struct gro_plan {
	struct gro_item *items;
	int *next; /* member chain, -1 ends */
	int n_items;
	enum gro_target target;
};

/* Groups pkts[0..n) into items, keeping each flow's order: TCP segments,
 * and UDP datagrams for GRO_TUN_USO. items and next need n entries each. */
void gro_plan_build(struct gro_plan *plan, const struct gro_pkt *pkts, int n,
		    enum gro_target target);

/* For an item with nseg > 1: rewrites the head's headers (saving them),
 * fills h and iov (GRO_MAX_SEGS + 2: header, head, members' payloads).
 * Returns the iov count. */
int gro_item_prepare(const struct gro_item *it, const struct gro_plan *plan,
		     const struct gro_pkt *pkts, struct vnet_hdr *h, struct iovec *iov,
		     uint8_t saved[GRO_SAVED_LEN]);
/* Undoes gro_item_prepare on the head (to write the segments one by one). */
void gro_item_restore(const struct gro_item *it, const struct gro_pkt *pkts,
		      const uint8_t saved[GRO_SAVED_LEN]);

#endif
