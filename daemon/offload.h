/* TUN offloads: the virtio-net header in front of each packet, splitting
 * the kernel's TSO/USO super-packets into MTU-sized segments, and
 * coalescing received TCP segments and UDP datagrams into super-packets
 * (GRO) for TUN. */
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

/* What the segmenter refused, for the daemon's log (shared by the TUN
 * readers). */
struct offload_stats {
	atomic_uint_least64_t malformed; /* packets dropped: inconsistent offload header */
};

/* Turns one packet read from TUN (header h, then pkt) into ready packets
 * with complete checksums: one for a plain packet, several for a GSO
 * super-packet. Returns the number of segments written, 0 when the packet
 * is malformed (nothing allocated: the packet is dropped, counted in st),
 * or -1 when alloc ran out of room (segments already written stay valid
 * and are counted in *done). */
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
	/* the kernel's TUN: TCP runs with a partial checksum, which the
	 * kernel trusts, so each member's own checksums are verified first */
	GRO_TUN,
	GRO_TUN_USO, /* the same, UDP runs too (the device took TUN_F_USO*) */
	/* an in-process stack: TCP runs as whole IP packets whose TCP
	 * checksum is built from the members' own, without a pass over the
	 * data; the stack's check of the whole fails if a member's would */
	GRO_STACK,
};

struct gro_plan {
	struct gro_item *items;
	int *next; /* member chain, -1 ends */
	int n_items;
	enum gro_target target;
};

/* Groups pkts[0..n) into items (in order of first appearance; per-flow
 * order is kept): TCP segments, and UDP datagrams too for GRO_TUN_USO. A
 * packet joins a run only once its own IPv4 header checksum verified, and
 * for TUN its TCP/UDP checksum too; one that fails is an item of its own,
 * to be written as it arrived. items and next need n entries each. */
void gro_plan_build(struct gro_plan *plan, const struct gro_pkt *pkts, int n,
		    enum gro_target target);

/* For an item with nseg > 1: rewrites the head's IP/TCP header for the
 * coalesced packet (saving the original to restore), fills h and iov
 * (GRO_MAX_SEGS + 2 entries: header, head, members' payloads). The TCP/UDP
 * checksum is partial (h says so) for TUN, complete for GRO_STACK (h then
 * unused). Returns the iov count. */
int gro_item_prepare(const struct gro_item *it, const struct gro_plan *plan,
		     const struct gro_pkt *pkts, struct vnet_hdr *h, struct iovec *iov,
		     uint8_t saved[GRO_SAVED_LEN]);
/* Undoes gro_item_prepare on the head (to write the segments one by one). */
void gro_item_restore(const struct gro_item *it, const struct gro_pkt *pkts,
		      const uint8_t saved[GRO_SAVED_LEN]);

#endif
