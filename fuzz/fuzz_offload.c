/* fuzz-sources: daemon/offload.c daemon/csum.c daemon/icmp.c daemon/tun.c */
/* fuzz-options: -max_len=4096 */
/* The data path's packet parsers (daemon/offload.c, daemon/icmp.c, the TUN
 * queue hash in daemon/tun.c): what a
 * TUN read hands the segmenter (a virtio-net header and a packet, which a
 * local program shapes), and the decrypted packets a peer sends, which the
 * receive side groups for coalesced TUN writes (GRO), or for an in-process
 * stack (GRO_STACK: planned again).
 *
 * Input: byte 0 sets the output room for the segmenter (in 64-byte units)
 * and whether GRO may group UDP; then a 10-byte virtio-net header, a 2-byte
 * packet length and the packet (segmented, and given to icmp_unreachable);
 * the rest is a list of packets (1-byte length, then bytes) for the GRO
 * planner; in those, a checksum field (IPv4 header, TCP/UDP) that is zero
 * is filled with the right sum, which the fuzzer could not find. Every
 * buffer is allocated at its exact size, so the sanitizers see any access
 * past it. Beyond "no crash", the results are checked: a refused packet
 * allocated nothing; segments fill only what was allocated and carry
 * valid IP and TCP/UDP checksums (by an independent RFC 1071 sum); every
 * packet is in exactly one GRO item; a coalesced item holds only packets
 * whose own checksums verify (for the stack: IPv4 header checksums); a
 * prepared item's header and iovec describe exactly the item's length; a
 * stack's whole packet verifies when its members do; restoring the head
 * gives back its original bytes. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "icmp.h"
#include "offload.h"
#include "rfc1071.h"
#include "tun.h"
#include "fuzz.h"

enum { MAX_SEGS = 1024, MAX_PKTS = 64 };

struct room {
	uint8_t *seg[MAX_SEGS];
	size_t len[MAX_SEGS];
	int n;
	size_t left;
};

static uint8_t *room_alloc(void *ctx, size_t len)
{
	struct room *r = ctx;

	if (r->n >= MAX_SEGS || len > r->left)
		return NULL;
	r->left -= len;
	r->seg[r->n] = malloc(len ? len : 1);
	r->len[r->n] = len;
	return r->seg[r->n++];
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void check_segments(const struct vnet_hdr *h, const struct room *r, int ret, int done)
{
	uint8_t type = h->gso_type & (uint8_t)~VNET_GSO_ECN;

	check(ret >= -1 && done >= 0 && done <= r->n, "segment result in range");
	if (ret > 0)
		check(ret == done && done == r->n, "every segment counted");
	if (ret == 0)
		check(r->n == 0 && done == 0, "nothing split, nothing allocated");
	if (ret <= 0 || type == VNET_GSO_NONE)
		return;
	/* a split super-packet: every segment is a whole IP packet */
	for (int k = 0; k < done; k++) {
		const uint8_t *s = r->seg[k];
		size_t len = r->len[k];

		check(len >= h->csum_start, "segment shorter than its headers");
		if (s[0] >> 4 == 4)
			check(get16(s + 2) == len && rfc1071_ipv4_hdr_ok(s),
			      "IPv4 segment length or header checksum");
		else
			check(get16(s + 4) == len - 40, "IPv6 segment payload length");
		check(rfc1071_l4_ok(s, len, h->csum_start, type == VNET_GSO_UDP_L4 ? 17 : 6),
		      "segment checksum");
	}
}

static struct offload_stats stats;

static void fuzz_segment(const uint8_t *d, size_t n, size_t room)
{
	struct vnet_hdr h;
	struct room r = {.left = room};
	uint8_t *pkt, *icmp;
	size_t len;
	int done, ret;

	if (n < VNET_HDR_LEN + 2)
		return;
	memcpy(&h, d, VNET_HDR_LEN);
	len = get16(d + VNET_HDR_LEN);
	d += VNET_HDR_LEN + 2;
	n -= VNET_HDR_LEN + 2;
	if (len > n)
		len = n;
	pkt = malloc(len ? len : 1);
	memcpy(pkt, d, len);
	ret = offload_segment(&h, pkt, len, room_alloc, &r, &done, &stats);
	check_segments(&h, &r, ret, done);
	for (int k = 0; k < r.n; k++)
		free(r.seg[k]);

	icmp = malloc(ICMP_REPLY_MAX);
	check(icmp_unreachable(pkt, len, NULL, icmp) <= ICMP_REPLY_MAX, "ICMP error too long");
	free(icmp);
	free(pkt);
}

static bool member_l4_ok(const struct gro_pkt *g);

/* A whole packet for the stack (iov[1..n), no header): its IP and TCP
 * checksums verify when every member's own did. */
static void check_whole(const struct iovec *iov, int n, size_t len, bool members_ok)
{
	uint8_t *flat = malloc(len), *at = flat;

	for (int i = 1; i < n; i++) {
		memcpy(at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	if (flat[0] >> 4 == 4)
		check(rfc1071_ipv4_hdr_ok(flat), "whole packet IPv4 header checksum");
	if (members_ok)
		check(rfc1071_l4_ok(flat, len, flat[0] >> 4 == 4 ? 20 : 40, 6),
		      "whole packet TCP checksum");
	free(flat);
}

static void check_item(const struct gro_item *it, const struct gro_plan *plan,
		       const struct gro_pkt *pkts)
{
	bool members_ok = true;
	struct iovec iov[GRO_MAX_SEGS + 2];
	struct vnet_hdr h;
	uint8_t saved[GRO_SAVED_LEN], *head = pkts[it->head].p;
	size_t head_len = pkts[it->head].len, sum = 0;
	uint8_t *orig = malloc(head_len);
	int n;

	memcpy(orig, head, head_len);
	for (int i = it->head; i >= 0; i = plan->next[i])
		members_ok = members_ok && member_l4_ok(&pkts[i]);
	n = gro_item_prepare(it, plan, pkts, &h, iov, saved);
	check(n >= 3 && n <= it->nseg + 1 && n <= GRO_MAX_SEGS + 2, "iovec count");
	check(iov[0].iov_len == VNET_HDR_LEN && iov[1].iov_base == head,
	      "virtio header and head first");
	for (int i = 1; i < n; i++)
		sum += iov[i].iov_len;
	check(sum == it->len && h.gso_size == it->gso_size && h.gso_size,
	      "coalesced length or gso_size");
	check(h.csum_start == (it->v6 ? 40 : 20) && h.hdr_len <= iov[1].iov_len,
	      "csum_start or hdr_len");
	if (it->v6)
		check(get16(head + 4) == it->len - 40, "coalesced IPv6 payload length");
	else
		check(get16(head + 2) == it->len, "coalesced IPv4 total length");
	if (plan->target == GRO_STACK)
		check_whole(iov, n, it->len, members_ok);
	gro_item_restore(it, pkts, saved);
	check(!memcmp(orig, head, head_len), "head not restored");
	free(orig);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Where the TCP/UDP header of an IPv4 (no options) or IPv6 packet starts,
 * with its protocol; 0 for anything else. */
static size_t l4_of(const uint8_t *p, size_t len, uint8_t *proto)
{
	size_t l4 = len && p[0] == 0x45 ? 20 : len && p[0] >> 4 == 6 ? 40 : 0;

	*proto = 0;
	if (!l4 || len < l4)
		return 0;
	*proto = l4 == 20 ? p[9] : p[6];
	if ((*proto != 6 && *proto != 17) || len < l4 + (*proto == 6 ? 20 : 8))
		return 0;
	return l4;
}

/* Zero checksum fields get the right sums (IPv4 header first: the L4 sum
 * does not cover it). */
static void fill_sums(uint8_t *p, size_t len)
{
	uint8_t proto;
	size_t l4 = l4_of(p, len, &proto), at;

	if (len >= 20 && p[0] == 0x45 && !get16(p + 10))
		put16(p + 10, (uint16_t)~rfc1071_fold(rfc1071_add(0, p, 20)));
	if (!l4)
		return;
	at = l4 + (proto == 6 ? 16 : 6);
	if (!get16(p + at)) {
		uint16_t c = (uint16_t)~rfc1071_l4_sum(p, len, l4, proto);

		put16(p + at, proto == 17 && !c ? 0xffff : c);
	}
}

static bool member_l4_ok(const struct gro_pkt *g)
{
	uint8_t proto;
	size_t l4 = l4_of(g->p, g->len, &proto);

	return l4 && rfc1071_l4_ok(g->p, g->len, l4, proto) && (proto == 6 || get16(g->p + l4 + 6));
}

/* A member of a coalesced item: its own checksums verified (for the
 * stack, the IPv4 header's). */
static void check_member(const struct gro_pkt *g, enum gro_target target)
{
	uint8_t proto;
	size_t l4 = l4_of(g->p, g->len, &proto);

	check(l4, "member is not TCP or UDP");
	if (l4 == 20)
		check(rfc1071_ipv4_hdr_ok(g->p), "member IPv4 header checksum");
	check(target == GRO_STACK ? proto == 6 : member_l4_ok(g), "member checksum");
}

static void fuzz_gro(const uint8_t *d, size_t n, enum gro_target target)
{
	struct gro_pkt pkts[MAX_PKTS];
	struct gro_item items[MAX_PKTS];
	int next[MAX_PKTS], seen[MAX_PKTS] = {0};
	struct gro_plan plan = {.items = items, .next = next};
	int np = 0, members = 0;

	while (n && np < MAX_PKTS) {
		size_t len = d[0] < n - 1 ? d[0] : n - 1;

		pkts[np].p = malloc(len ? len : 1);
		memcpy(pkts[np].p, d + 1, len);
		fill_sums(pkts[np].p, len);
		/* the queue a decrypted packet is written to */
		check((unsigned int)tun_queue_of(pkts[np].p, len, 1 + np % TUN_MAX_QUEUES) <=
			  np % TUN_MAX_QUEUES,
		      "TUN queue out of range");
		pkts[np++].len = len;
		d += 1 + len;
		n -= 1 + len;
	}
	gro_plan_build(&plan, pkts, np, target);
	check(plan.n_items >= 0 && plan.n_items <= np, "item count");
	for (int k = 0; k < plan.n_items; k++) {
		const struct gro_item *it = &items[k];
		int count = 0, last = -1;

		check(it->nseg >= 1 && it->nseg <= GRO_MAX_SEGS, "item segment count");
		check(it->head >= 0 && it->head < np, "item head");
		for (int i = it->head; i >= 0; i = it->nseg == 1 ? -1 : next[i]) {
			check(i < np && !seen[i], "packet in two items");
			seen[i] = 1;
			if (it->nseg > 1)
				check_member(&pkts[i], target);
			last = i;
			count++;
		}
		check(count == it->nseg && last == it->tail, "item chain");
		check(!it->udp || target == GRO_TUN_USO, "UDP coalesced when not asked");
		members += count;
		if (it->nseg > 1)
			check_item(it, &plan, pkts);
	}
	check(members == np, "packet in no item");
	for (int i = 0; i < np; i++)
		free(pkts[i].p);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	size_t first;

	if (n < 1)
		return 0;
	/* room: 0..127 units of 64 bytes, enough for ~8 full segments */
	fuzz_segment(d + 1, n - 1, (size_t)(d[0] & 0x7f) * 64);
	/* the GRO packets follow the segmenter's packet */
	if (n < 1 + VNET_HDR_LEN + 2)
		return 0;
	first = 1 + VNET_HDR_LEN + 2 + get16(d + 1 + VNET_HDR_LEN);
	if (first < n) {
		fuzz_gro(d + first, n - first, d[0] & 0x80 ? GRO_TUN_USO : GRO_TUN);
		fuzz_gro(d + first, n - first, GRO_STACK);
	}
	return 0;
}
