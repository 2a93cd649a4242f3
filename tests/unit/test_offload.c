/* TUN offload code (daemon/offload.c): splitting TSO/USO super-packets
 * into segments with correct headers and checksums, and coalescing
 * decrypted segments into super-packets for TUN, or into whole IP packets
 * for an in-process stack (through tun.c's sink). Checksums are verified
 * with an independent RFC 1071 sum (tests/rfc1071.h). */
#include "rfc1071.h"
#include "test.h"
#include "../../daemon/csum.c"
#include "../../daemon/offload.c"
#include "../../daemon/tun.c"

enum { MAX_OUT = 128, OUT_SIZE = 2048 };

static struct offload_stats stats;

static const uint8_t SRC4[4] = {10, 0, 0, 1}, DST4[4] = {10, 0, 0, 2};
static const uint8_t SRC6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t DST6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

/* The test packets have no IPv4 options or IPv6 extension headers. */
static bool l4_ok(const uint8_t *p, size_t len)
{
	bool v6 = (p[0] >> 4) == 6;

	return rfc1071_l4_ok(p, len, v6 ? 40 : 20, v6 ? p[6] : p[9]);
}

static void put_csum(uint8_t *at, uint16_t c)
{
	at[0] = (uint8_t)(c >> 8);
	at[1] = (uint8_t)c;
}

static void fix_l4(uint8_t *p, size_t len)
{
	bool v6 = (p[0] >> 4) == 6;
	size_t l4 = v6 ? 40 : 20;
	uint8_t proto = v6 ? p[6] : p[9];
	size_t off = proto == 6 ? 16 : 6;
	uint32_t s = rfc1071_add(0, v6 ? p + 8 : p + 12, v6 ? 32 : 8);
	uint16_t c;

	put_csum(p + l4 + off, 0);
	s += proto + (uint32_t)(len - l4);
	c = (uint16_t)~rfc1071_fold(rfc1071_add(s, p + l4, len - l4));
	if (proto == 17 && c == 0)
		c = 0xffff;
	put_csum(p + l4 + off, c);
}

/* ---- packet builders (complete packets, valid checksums) ---- */

static size_t build(uint8_t *p, bool v6, uint8_t proto, size_t plen, uint32_t seq, uint8_t flags,
		    uint16_t id, uint8_t fill)
{
	size_t l4 = v6 ? 40 : 20, hdr = l4 + (proto == 6 ? 20 : 8), len = hdr + plen;

	memset(p, 0, hdr);
	if (v6) {
		p[0] = 0x60;
		put_be16(p + 4, (uint16_t)(len - 40));
		p[6] = proto;
		p[7] = 64;
		memcpy(p + 8, SRC6, 16);
		memcpy(p + 24, DST6, 16);
	} else {
		p[0] = 0x45;
		put_be16(p + 2, (uint16_t)len);
		put_be16(p + 4, id);
		p[6] = 0x40; /* DF */
		p[8] = 64;
		p[9] = proto;
		memcpy(p + 12, SRC4, 4);
		memcpy(p + 16, DST4, 4);
		ipv4_fix_csum(p);
	}
	put_be16(p + l4, 40000);
	put_be16(p + l4 + 2, 5201);
	if (proto == 6) {
		put_be32(p + l4 + 4, seq);
		put_be32(p + l4 + 8, 777);
		p[l4 + 12] = 5 << 4;
		p[l4 + 13] = flags;
		put_be16(p + l4 + 14, 512);
	} else {
		put_be16(p + l4 + 4, (uint16_t)(len - l4));
	}
	for (size_t i = 0; i < plen; i++)
		p[hdr + i] = (uint8_t)(fill + i * 7 + (seq + i) / 3);
	fix_l4(p, len);
	return len;
}

/* ---- segment output ---- */

struct out {
	uint8_t buf[MAX_OUT][OUT_SIZE];
	size_t len[MAX_OUT];
	int n, limit;
};

static uint8_t *out_alloc(void *ctx, size_t len)
{
	struct out *o = ctx;

	if (o->n >= o->limit || len > OUT_SIZE)
		return NULL;
	o->len[o->n] = len;
	return o->buf[o->n++];
}

/* A super-packet as the kernel hands it: full header, partial checksum. */
static size_t super_packet(uint8_t *p, struct vnet_hdr *h, bool v6, uint8_t proto, size_t plen,
			   uint16_t mss, uint8_t flags)
{
	size_t len = build(p, v6, proto, plen, 1000, flags, 100, 3);
	size_t l4 = v6 ? 40 : 20;

	memset(h, 0, sizeof(*h));
	h->flags = VNET_F_NEEDS_CSUM;
	h->gso_type = proto == 17 ? VNET_GSO_UDP_L4 : v6 ? VNET_GSO_TCPV6 : VNET_GSO_TCPV4;
	h->gso_size = mss;
	h->hdr_len = (uint16_t)(l4 + (proto == 6 ? 20 : 8));
	h->csum_start = (uint16_t)l4;
	h->csum_offset = proto == 6 ? 16 : 6;
	/* the kernel leaves the pseudo header sum: anything will do here */
	put_csum(p + l4 + h->csum_offset, 0x1234);
	return len;
}

static void test_segment(bool v6, uint8_t proto, size_t plen, uint16_t mss)
{
	static uint8_t pkt[70000];
	static struct out o;
	struct vnet_hdr h;
	size_t l4 = v6 ? 40 : 20, hdr = l4 + (proto == 6 ? 20 : 8);
	size_t len =
	    super_packet(pkt, &h, v6, proto, plen, mss, 0x18 /* ACK|PSH */ | 0x80 /* CWR */);
	int done = -1, want = (int)((plen + mss - 1) / mss);
	int n;

	memset(&o, 0, sizeof(o));
	o.limit = MAX_OUT;
	n = offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats);
	CHECK(n == want);
	CHECK(done == want);
	for (int k = 0; k < n && k < o.n; k++) {
		const uint8_t *s = o.buf[k];
		size_t sl = o.len[k], pl = sl - hdr;
		bool last = k == n - 1;

		CHECK(pl == (last ? plen - (size_t)k * mss : mss));
		CHECK_MEM(s + hdr, pkt + hdr + (size_t)k * mss, pl, "segment payload");
		if (v6) {
			CHECK(get_be16(s + 4) == sl - 40);
		} else {
			CHECK(get_be16(s + 2) == sl);
			CHECK(get_be16(s + 4) == 100 + k);
			CHECK(rfc1071_ipv4_hdr_ok(s));
		}
		CHECK(l4_ok(s, sl));
		if (proto == 6) {
			CHECK(get_be32(s + l4 + 4) == 1000 + (uint32_t)k * mss);
			/* PSH only on the last, CWR only on the first */
			CHECK(!!(s[l4 + 13] & 0x08) == last);
			CHECK(!!(s[l4 + 13] & 0x80) == (k == 0));
			CHECK(s[l4 + 13] & 0x10);
		} else {
			CHECK(get_be16(s + l4 + 4) == sl - l4);
		}
	}
}

static void test_segment_edges(void)
{
	static uint8_t pkt[70000];
	static struct out o;
	struct vnet_hdr h;
	size_t len;
	int done, n;

	/* a plain packet with a partial checksum: completed */
	len = build(pkt, false, 17, 100, 0, 0, 5, 9);
	memset(&h, 0, sizeof(h));
	h.flags = VNET_F_NEEDS_CSUM;
	h.csum_start = 20;
	h.csum_offset = 6;
	{
		/* partial: the folded pseudo header sum, not complemented */
		uint32_t s = rfc1071_add(0, pkt + 12, 8) + 17 + (uint32_t)(len - 20);

		put_csum(pkt + 26, rfc1071_fold(s));
	}
	memset(&o, 0, sizeof(o));
	o.limit = MAX_OUT;
	n = offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats);
	CHECK(n == 1 && done == 1);
	CHECK(o.len[0] == len);
	CHECK(l4_ok(o.buf[0], len));
	CHECK_MEM(o.buf[0] + 28, pkt + 28, len - 28, "plain payload");

	/* a UDP checksum that computes to 0 goes out as 0xffff ("none" is 0) */
	{
		uint32_t sum, w;

		len = build(pkt, false, 17, 100, 0, 0, 5, 4);
		put_csum(pkt + 26, 0);
		sum = rfc1071_add(0, pkt + 12, 8) + 17 + (uint32_t)(len - 20);
		sum = rfc1071_fold(rfc1071_add(sum, pkt + 20, len - 20));
		/* make the sum 0xffff: add the difference into a payload word */
		w = (uint32_t)get_be16(pkt + 40) + (0xffff - sum);
		put_be16(pkt + 40, rfc1071_fold(w));
		sum = rfc1071_add(0, pkt + 12, 8) + 17 + (uint32_t)(len - 20);
		CHECK(rfc1071_fold(rfc1071_add(sum, pkt + 20, len - 20)) == 0xffff);
		put_csum(pkt + 26,
			 rfc1071_fold(rfc1071_add(0, pkt + 12, 8) + 17 + (uint32_t)(len - 20)));
		memset(&o, 0, sizeof(o));
		o.limit = MAX_OUT;
		CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 1);
		CHECK(get_be16(o.buf[0] + 26) == 0xffff);
		CHECK(l4_ok(o.buf[0], len));
	}

	/* a plain packet without offload flags is copied as it is */
	len = build(pkt, true, 6, 33, 5, 0x10, 0, 1);
	memset(&h, 0, sizeof(h));
	memset(&o, 0, sizeof(o));
	o.limit = MAX_OUT;
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 1);
	CHECK(o.len[0] == len);
	CHECK_MEM(o.buf[0], pkt, len, "plain copy");

	/* malformed: no gso_size, unknown type, too short, bad csum_start */
	uint64_t malformed = atomic_load(&stats.malformed);

	len = super_packet(pkt, &h, false, 6, 3000, 1000, 0x10);
	h.gso_size = 0;
	o.n = 0;
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 0);
	h.gso_size = 1000;
	h.gso_type = 3; /* VIRTIO_NET_HDR_GSO_UDP (UFO): not taken */
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 0);
	h.gso_type = VNET_GSO_TCPV4;
	CHECK(offload_segment(&h, pkt, 30, out_alloc, &o, &done, &stats) == 0);
	h.csum_start = 8;
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 0);
	h.csum_start = (uint16_t)(len - 10);
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 0);
	/* inconsistent headers (found by fuzz_offload): the L4 header not
	 * right after the IPv4 header, an IPv4 header under 20 bytes, a TCP
	 * header under 20 bytes (its checksum field past the segment) */
	h.csum_start = 24;
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 0);
	h.csum_start = 20;
	pkt[0] = 0x44;
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 0);
	pkt[0] = 0x45;
	pkt[32] = 0x40; /* data offset 4 */
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 0);
	pkt[32] = 0x50;
	CHECK(o.n == 0);
	CHECK(atomic_load(&stats.malformed) == malformed + 8);

	/* the allocator runs out after two segments: -1, two kept */
	memset(&o, 0, sizeof(o));
	o.limit = 2;
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == -1);
	CHECK(done == 2);
	CHECK(l4_ok(o.buf[1], o.len[1]));
	CHECK(get_be32(o.buf[1] + 24) == 2000);

	/* a plain packet whose partial checksum field lies past its end, or
	 * starts past it: dropped before anything is allocated (it used to be
	 * copied into the batch, left without its checksum, and sent) and
	 * counted */
	malformed = atomic_load(&stats.malformed);
	len = build(pkt, false, 17, 100, 0, 0, 5, 9);
	memset(&h, 0, sizeof(h));
	h.flags = VNET_F_NEEDS_CSUM;
	h.csum_start = 20;
	h.csum_offset = (uint16_t)(len - 20 - 1);
	memset(&o, 0, sizeof(o));
	o.limit = MAX_OUT;
	done = -1;
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 0);
	CHECK(o.n == 0 && done == 0);
	h.csum_start = (uint16_t)len;
	h.csum_offset = 0;
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 0);
	CHECK(o.n == 0 && done == 0);
	CHECK(atomic_load(&stats.malformed) == malformed + 2);
	/* the last two bytes are still a valid place for it */
	h.csum_start = 20;
	h.csum_offset = (uint16_t)(len - 20 - 2);
	CHECK(offload_segment(&h, pkt, len, out_alloc, &o, &done, &stats) == 1);
	CHECK(o.n == 1 && atomic_load(&stats.malformed) == malformed + 2);
}

/* ---- coalescing ---- */

struct pkts {
	uint8_t buf[MAX_OUT][OUT_SIZE];
	struct gro_pkt p[MAX_OUT];
	int n;
};

static void add(struct pkts *ps, bool v6, uint8_t proto, size_t plen, uint32_t seq, uint8_t flags,
		uint16_t id)
{
	uint8_t *b = ps->buf[ps->n];

	ps->p[ps->n].p = b;
	ps->p[ps->n].len = build(b, v6, proto, plen, seq, flags, id, (uint8_t)ps->n);
	ps->n++;
}

/* Writes the item as TUN would read it (header, then the iov) into buf. */
static size_t flatten(const struct iovec *iov, int n, uint8_t *buf)
{
	size_t off = 0;

	for (int i = 1; i < n; i++) {
		memcpy(buf + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	return off;
}

/* Coalesce a run, then split it again: the original segments come back. */
static void test_roundtrip(bool v6, uint8_t proto, int count, size_t mss, size_t last)
{
	static struct pkts ps, orig;
	static struct out o;
	static uint8_t flat[70000];
	struct gro_item items[MAX_OUT];
	int next[MAX_OUT];
	struct gro_plan plan = {.items = items, .next = next};
	struct iovec iov[GRO_MAX_SEGS + 2];
	struct vnet_hdr h;
	uint8_t saved[GRO_SAVED_LEN];
	size_t hdr = (v6 ? 40 : 20) + (proto == 6 ? 20 : 8), flen;
	int n, done;

	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < count; i++)
		add(&ps, v6, proto, i == count - 1 ? last : mss, 5000 + (uint32_t)(i * mss),
		    (uint8_t)(0x10 | (i == count - 1 ? 0x08 : 0)), (uint16_t)(7 + i));
	memcpy(&orig, &ps, sizeof(ps)); /* compare with orig.buf: orig.p points into ps */
	gro_plan_build(&plan, ps.p, ps.n, GRO_TUN_USO);
	CHECK(plan.n_items == 1);
	CHECK(items[0].nseg == count);
	CHECK(items[0].len == hdr + (size_t)(count - 1) * mss + last);
	n = gro_item_prepare(&items[0], &plan, ps.p, &h, iov, saved);
	CHECK(n == count + 1);
	CHECK(iov[0].iov_base == &h && iov[0].iov_len == VNET_HDR_LEN);
	CHECK(h.flags == VNET_F_NEEDS_CSUM);
	CHECK(h.gso_type == (proto == 17 ? VNET_GSO_UDP_L4 : v6 ? VNET_GSO_TCPV6 : VNET_GSO_TCPV4));
	CHECK(h.gso_size == mss);
	CHECK(h.hdr_len == hdr);
	CHECK(h.csum_start == (v6 ? 40 : 20));
	CHECK(h.csum_offset == (proto == 6 ? 16 : 6));
	flen = flatten(iov, n, flat);
	CHECK(flen == items[0].len);
	if (!v6)
		CHECK(rfc1071_ipv4_hdr_ok(flat) && get_be16(flat + 2) == flen);
	else
		CHECK(get_be16(flat + 4) == flen - 40);

	memset(&o, 0, sizeof(o));
	o.limit = MAX_OUT;
	CHECK(offload_segment(&h, flat, flen, out_alloc, &o, &done, &stats) == count);
	for (int i = 0; i < count && i < o.n; i++) {
		CHECK(o.len[i] == orig.p[i].len);
		CHECK_MEM(o.buf[i], orig.buf[i], orig.p[i].len, "segment after coalesce+split");
	}
	/* restore gives back the head as it was */
	gro_item_restore(&items[0], ps.p, saved);
	CHECK_MEM(ps.p[0].p, orig.buf[0], orig.p[0].len, "restored head");
}

static void test_plan(void)
{
	static struct pkts ps;
	struct gro_item items[MAX_OUT];
	int next[MAX_OUT];
	struct gro_plan plan = {.items = items, .next = next};

	/* two interleaved flows: one item each, members in order */
	memset(&ps, 0, sizeof(ps));
	add(&ps, false, 6, 1000, 100, 0x10, 1);
	add(&ps, true, 6, 1000, 100, 0x10, 0);
	add(&ps, false, 6, 1000, 1100, 0x10, 2);
	add(&ps, true, 6, 1000, 1100, 0x10, 0);
	add(&ps, false, 6, 1000, 2100, 0x10, 3);
	gro_plan_build(&plan, ps.p, ps.n, GRO_TUN);
	CHECK(plan.n_items == 2);
	CHECK(items[0].head == 0 && items[0].nseg == 3 && next[0] == 2 && next[2] == 4 &&
	      next[4] == -1);
	CHECK(items[1].head == 1 && items[1].nseg == 2 && next[1] == 3 && next[3] == -1);

	/* a gap in the sequence, SYN/FIN, pure ACK, PSH and a bigger segment
	 * after a smaller one all end a run */
	memset(&ps, 0, sizeof(ps));
	add(&ps, false, 6, 1000, 100, 0x10, 1);	  /* 0: item A */
	add(&ps, false, 6, 1000, 1100, 0x10, 2);  /* 1: A */
	add(&ps, false, 6, 1000, 9100, 0x10, 3);  /* 2: gap -> B */
	add(&ps, false, 6, 1000, 10100, 0x11, 4); /* 3: FIN -> C */
	add(&ps, false, 6, 0, 11100, 0x10, 5);	  /* 4: pure ACK -> D */
	add(&ps, false, 6, 500, 11100, 0x18, 6);  /* 5: E, PSH */
	add(&ps, false, 6, 500, 11600, 0x10, 7);  /* 6: after PSH -> F */
	add(&ps, false, 6, 400, 12100, 0x10, 8);  /* 7: F (shorter: last) */
	add(&ps, false, 6, 400, 12500, 0x10, 9);  /* 8: after a short one -> G */
	gro_plan_build(&plan, ps.p, ps.n, GRO_TUN);
	CHECK(plan.n_items == 7);
	CHECK(items[0].nseg == 2);
	for (int k = 1; k < plan.n_items; k++)
		CHECK(items[k].nseg == (k == 5 ? 2 : 1));
	CHECK(items[5].head == 6 && next[6] == 7);

	/* UDP: coalesced only when the device takes USO (a stack does not) */
	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < 4; i++)
		add(&ps, false, 17, 64, 0, 0, (uint16_t)i);
	gro_plan_build(&plan, ps.p, ps.n, GRO_TUN);
	CHECK(plan.n_items == 4);
	gro_plan_build(&plan, ps.p, ps.n, GRO_STACK);
	CHECK(plan.n_items == 4);
	gro_plan_build(&plan, ps.p, ps.n, GRO_TUN_USO);
	CHECK(plan.n_items == 1 && items[0].nseg == 4 && items[0].udp);

	/* a fragment or IPv4 options: never coalesced */
	memset(&ps, 0, sizeof(ps));
	add(&ps, false, 6, 1000, 100, 0x10, 1);
	add(&ps, false, 6, 1000, 1100, 0x10, 2);
	ps.p[1].p[6] |= 0x20; /* MF */
	gro_plan_build(&plan, ps.p, ps.n, GRO_TUN_USO);
	CHECK(plan.n_items == 2);
}

/* Three segments of one flow, the middle one with header byte `at` set to
 * `val`: coalesced only if every header field but length, id, checksum,
 * sequence and PSH is equal (the kernel's inet_gro_receive and
 * ipv6_gro_receive flush on the TOS, DF, TTL, traffic class, flow label
 * and hop limit). Each case fails when its compare in gro_match is left
 * out. `base` first sets the byte in all three (e.g. ECT(0) everywhere,
 * then CE in the middle: ECN marks must not merge). */
static int plan_with_field(bool v6, size_t at, int base, uint8_t val)
{
	static struct pkts ps;
	struct gro_item items[MAX_OUT];
	int next[MAX_OUT];
	struct gro_plan plan = {.items = items, .next = next};

	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < 3; i++) {
		add(&ps, v6, 6, 1000, 100 + 1000 * (uint32_t)i, 0x10, (uint16_t)(1 + i));
		if (base >= 0)
			ps.buf[i][at] = (uint8_t)base;
		if (i == 1)
			ps.buf[i][at] = val;
		if (!v6)
			ipv4_fix_csum(ps.buf[i]);
	}
	gro_plan_build(&plan, ps.p, ps.n, GRO_TUN);
	return plan.n_items;
}

static void test_plan_header_fields(void)
{
	/* the same ECN codepoint (ECT(0)) in all: one run */
	CHECK(plan_with_field(false, 1, 0x02, 0x02) == 1);
	CHECK(plan_with_field(true, 1, 0x20, 0x20) == 1);
	CHECK(plan_with_field(false, 1, 0x02, 0x03) == 3); /* TOS: CE among ECT(0) */
	CHECK(plan_with_field(false, 1, -1, 0xb8) == 3);   /* TOS: DSCP */
	CHECK(plan_with_field(false, 6, -1, 0x00) == 3);   /* DF cleared */
	CHECK(plan_with_field(false, 8, -1, 63) == 3);	   /* TTL */
	CHECK(plan_with_field(true, 1, 0x20, 0x30) == 3);  /* traffic class: CE among ECT(0) */
	CHECK(plan_with_field(true, 3, -1, 0x01) == 3);	   /* flow label */
	CHECK(plan_with_field(true, 7, -1, 63) == 3);	   /* hop limit */
}

/* Members of item k, in order, as a bit mask of packet indexes. */
static uint64_t members(const struct gro_plan *plan, int k)
{
	const struct gro_item *it = &plan->items[k];
	uint64_t m = 0;

	for (int i = it->head; i >= 0; i = it->nseg == 1 ? -1 : plan->next[i])
		m |= 1ull << i;
	return m;
}

/* Checks the plan's items (as packet masks) and that every coalesced item
 * splits back into the original segments; single packets stay as they
 * arrived (orig). */
static void check_plan(struct pkts *ps, const struct pkts *orig, enum gro_target target,
		       int n_items, const uint64_t *want)
{
	static struct out o;
	static uint8_t flat[70000];
	struct gro_item items[MAX_OUT];
	int next[MAX_OUT];
	struct gro_plan plan = {.items = items, .next = next};
	struct iovec iov[GRO_MAX_SEGS + 2];
	struct vnet_hdr h;
	uint8_t saved[GRO_SAVED_LEN];
	int done;

	gro_plan_build(&plan, ps->p, ps->n, target);
	CHECK(plan.n_items == n_items);
	for (int k = 0; k < plan.n_items && k < n_items; k++) {
		int n, seg = 0;

		CHECK(members(&plan, k) == want[k]);
		if (items[k].nseg == 1)
			continue;
		n = gro_item_prepare(&items[k], &plan, ps->p, &h, iov, saved);
		memset(&o, 0, sizeof(o));
		o.limit = MAX_OUT;
		CHECK(offload_segment(&h, flat, flatten(iov, n, flat), out_alloc, &o, &done,
				      &stats) == items[k].nseg);
		for (int i = items[k].head; i >= 0 && seg < o.n; i = next[i], seg++)
			CHECK_MEM(o.buf[seg], orig->buf[i], orig->p[i].len, "coalesced segment");
		gro_item_restore(&items[k], ps->p, saved);
	}
	for (int i = 0; i < ps->n; i++)
		CHECK_MEM(ps->p[i].p, orig->buf[i], orig->p[i].len, "packet after the plan");
}

/* A segment whose own checksums fail is never coalesced: it is an item of
 * its own, left as it arrived (written without a virtio-net header claim,
 * so the kernel drops it as it would without GRO). */
static void test_plan_csum(void)
{
	static struct pkts ps, orig;
	size_t hdr4 = 20 + 20;

	/* a corrupted payload byte in the middle of a TCP run */
	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < 5; i++)
		add(&ps, false, 6, 1000, 100 + 1000 * (uint32_t)i, 0x10, (uint16_t)(1 + i));
	ps.p[2].p[hdr4 + 10] ^= 0x04;
	memcpy(&orig, &ps, sizeof(ps));
	check_plan(&ps, &orig, GRO_TUN, 3, (const uint64_t[]){0x03, 0x04, 0x18});

	/* a bad IPv4 header checksum (the id changed: GRO ignores the id) */
	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < 5; i++)
		add(&ps, false, 6, 1000, 100 + 1000 * (uint32_t)i, 0x10, (uint16_t)(1 + i));
	ps.p[1].p[5] ^= 0x01;
	memcpy(&orig, &ps, sizeof(ps));
	check_plan(&ps, &orig, GRO_TUN, 3, (const uint64_t[]){0x01, 0x02, 0x1c});
	/* for the stack too: the members' IPv4 headers are not passed on */
	check_plan(&ps, &orig, GRO_STACK, 3, (const uint64_t[]){0x01, 0x02, 0x1c});

	/* the run's head corrupted (IPv6: no header checksum) */
	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < 4; i++)
		add(&ps, true, 6, 1000, 100 + 1000 * (uint32_t)i, 0x10, 0);
	ps.p[0].p[40 + 20 + 999] ^= 0x80;
	memcpy(&orig, &ps, sizeof(ps));
	check_plan(&ps, &orig, GRO_TUN, 2, (const uint64_t[]){0x01, 0x0e});

	/* the last member corrupted: the run before it still coalesces */
	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < 4; i++)
		add(&ps, true, 6, 1000, 100 + 1000 * (uint32_t)i, 0x10, 0);
	ps.p[3].p[40 + 20] ^= 0x01;
	memcpy(&orig, &ps, sizeof(ps));
	check_plan(&ps, &orig, GRO_TUN, 2, (const uint64_t[]){0x07, 0x08});

	/* UDP (USO): a corrupted datagram, and one without a checksum (0:
	 * nothing to verify, so not coalesced either) */
	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < 8; i++)
		add(&ps, i >= 4, 17, 64, 0, 0, (uint16_t)i);
	ps.p[1].p[20 + 8 + 3] ^= 0x10;
	put_csum(ps.p[5].p + 40 + 6, 0);
	memcpy(&orig, &ps, sizeof(ps));
	check_plan(&ps, &orig, GRO_TUN_USO, 6,
		   (const uint64_t[]){0x01, 0x02, 0x0c, 0x10, 0x20, 0xc0});
}

/* ---- whole packets for an in-process stack (GRO_STACK, tun_sink) ---- */

/* What a sink was given last, flattened, and how many pieces it came in. */
struct seen {
	uint8_t pkt[70000];
	size_t len;
	int pieces;
};

static void sink_nop(void *ctx)
{
	(void)ctx;
}

static int sink_keep(void *ctx, const struct iovec *iov, int n)
{
	struct seen *s = ctx;

	s->len = 0;
	s->pieces = n;
	for (int i = 0; i < n; i++) {
		memcpy(s->pkt + s->len, iov[i].iov_base, iov[i].iov_len);
		s->len += iov[i].iov_len;
	}
	return 0;
}

static struct seen seen;
static const struct tun_sink keeper = {sink_nop, sink_keep, sink_nop, &seen};

/* A run coalesced for the stack reaches the sink as one IP packet, with
 * no virtio-net header: IP and TCP checksums that verify with the
 * independent sum, the head's sequence number, the last member's PSH and
 * the members' payloads in order (an odd mss puts every other one at an
 * odd offset). Its TCP checksum is built from the members' own, unread:
 * with member `corrupt` (or none, -1) altered, the whole fails the check,
 * so the stack drops it as it would have dropped the member. */
static void test_stack_run(bool v6, int count, size_t mss, size_t last, int corrupt)
{
	static struct pkts ps, orig;
	struct tun_dev dev = {.sink = &keeper};
	struct gro_item items[MAX_OUT];
	int next[MAX_OUT];
	struct gro_plan plan = {.items = items, .next = next};
	struct iovec iov[GRO_MAX_SEGS + 2];
	struct vnet_hdr h;
	uint8_t saved[64];
	size_t l4 = v6 ? 40 : 20, hdr = l4 + 20, off = hdr;

	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < count; i++)
		add(&ps, v6, 6, i == count - 1 ? last : mss, 5000 + (uint32_t)(i * mss),
		    (uint8_t)(0x10 | (i == count - 1 ? 0x08 : 0)), (uint16_t)(7 + i));
	if (corrupt >= 0)
		ps.p[corrupt].p[hdr + 5] ^= 0x21;
	memcpy(&orig, &ps, sizeof(ps));
	gro_plan_build(&plan, ps.p, ps.n, GRO_STACK);
	CHECK(plan.n_items == 1 && items[0].nseg == count);
	CHECK(tun_write_gro(&dev, iov, gro_item_prepare(&items[0], &plan, ps.p, &h, iov, saved)) ==
	      0);
	CHECK(seen.len == items[0].len && seen.pieces == count);
	if (v6)
		CHECK(get_be16(seen.pkt + 4) == seen.len - 40);
	else
		CHECK(rfc1071_ipv4_hdr_ok(seen.pkt) && get_be16(seen.pkt + 2) == seen.len);
	CHECK(l4_ok(seen.pkt, seen.len) == (corrupt < 0));
	CHECK(get_be32(seen.pkt + l4 + 4) == 5000 && seen.pkt[l4 + 13] == 0x18);
	for (int i = 0; i < count; i++) {
		CHECK_MEM(seen.pkt + off, orig.buf[i] + hdr, orig.p[i].len - hdr, "payload");
		off += orig.p[i].len - hdr;
	}
}

/* A packet written alone reaches the sink as it is, in one piece. */
static void test_stack_single(void)
{
	static struct pkts ps;
	struct tun_dev dev = {.sink = &keeper};

	memset(&ps, 0, sizeof(ps));
	add(&ps, false, 17, 300, 0, 0, 9);
	CHECK(tun_write(&dev, ps.p[0].p, ps.p[0].len) == 0);
	CHECK(seen.len == ps.p[0].len && seen.pieces == 1);
	CHECK_MEM(seen.pkt, ps.p[0].p, ps.p[0].len, "single packet");
}

int main(void)
{
	test_segment(false, 6, 64000, 1380);
	test_segment(false, 6, 1380 * 3, 1380); /* exact multiple */
	test_segment(true, 6, 40000, 1360);
	test_segment(false, 17, 9001, 1000);
	test_segment(true, 17, 5000, 64);
	test_segment(false, 6, 100, 1380); /* one segment only */
	test_segment_edges();
	test_roundtrip(false, 6, 5, 1380, 700);
	test_roundtrip(true, 6, 4, 1360, 1360);
	test_roundtrip(false, 17, 30, 64, 64);
	test_roundtrip(true, 17, 3, 1000, 10);
	test_plan();
	test_plan_header_fields();
	test_plan_csum();
	test_stack_run(false, 5, 1380, 700, -1);
	test_stack_run(true, 47, 1380, 1380, -1);
	test_stack_run(false, 9, 1379, 3, -1); /* odd offsets */
	test_stack_run(true, 4, 1001, 1001, -1);
	test_stack_run(false, 5, 1380, 700, 0); /* the head */
	test_stack_run(false, 9, 1379, 3, 4);
	test_stack_run(true, 4, 1001, 1001, 3); /* the last */
	test_stack_single();
	return test_finish("test_offload");
}
