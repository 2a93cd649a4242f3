/* Segmentation (TSO/USO from TUN) and coalescing (GRO to TUN). IP header
 * fields: ip.h. TCP: ports 0/2, seq 4, ack 8, data offset 12, flags 13,
 * window 14, checksum 16. UDP: length 4, checksum 6. */
#include "offload.h"

#include <arpa/inet.h>
#include <string.h>

#include "be.h"
#include "csum.h"
#include "ip.h"

enum {
	TCP_FIN = 0x01,
	TCP_PSH = 0x08,
	TCP_ACK = 0x10,
	TCP_CWR = 0x80,
};

static void ipv4_fix_csum(uint8_t *ip)
{
	size_t ihl = ip4_hdr_len(ip);

	ip[IP4_OFF_CSUM] = ip[IP4_OFF_CSUM + 1] = 0;
	csum_put(ip + IP4_OFF_CSUM, csum_add(0, ip, ihl));
}

/* The pseudo header's sum for the TCP/UDP part from l4 on. */
static uint64_t l4_pseudo(const uint8_t *p, bool v6, bool udp, size_t len, size_t l4)
{
	return csum_pseudo(v6 ? 6 : 4, p + (v6 ? IP6_OFF_SRC : IP4_OFF_SRC),
			   p + (v6 ? IP6_OFF_DST : IP4_OFF_DST), udp ? IP_PROTO_UDP : IP_PROTO_TCP,
			   (uint32_t)(len - l4));
}

/* Full L4 checksum of a complete packet whose L4 header starts at l4. */
static void l4_fix_csum(uint8_t *pkt, size_t len, size_t l4, uint8_t proto)
{
	bool udp = proto == IP_PROTO_UDP;
	size_t off = udp ? 6 : 16;
	uint16_t c;

	pkt[l4 + off] = pkt[l4 + off + 1] = 0;
	c = (uint16_t)~csum_fold(
	    csum_add(l4_pseudo(pkt, ip_version(pkt) == 6, udp, len, l4), pkt + l4, len - l4));
	if (udp && c == 0)
		c = 0xffff;
	memcpy(pkt + l4 + off, &c, 2);
}

/* The partial checksum's start and field lie within the packet. */
static bool csum_fits(const struct vnet_hdr *h, size_t len)
{
	return h->csum_start < len && (size_t)h->csum_start + h->csum_offset + 2 <= len;
}

/* A plain packet that the kernel left with a partial checksum. */
static void finish_csum(const struct vnet_hdr *h, uint8_t *pkt, size_t len)
{
	size_t start = h->csum_start;
	uint16_t c = (uint16_t)~csum_fold(csum_add(0, pkt + start, len - start));

	/* a UDP checksum of 0 means "none": send the equivalent 0xffff */
	if (c == 0 && h->csum_offset == 6)
		c = 0xffff;
	memcpy(pkt + start + h->csum_offset, &c, 2);
}

/* offload_segment uncounted; every refusal comes before the first alloc. */
static int segment(const struct vnet_hdr *h, const uint8_t *pkt, size_t len, seg_alloc_fn alloc,
		   void *ctx, int *done)
{
	uint8_t type = h->gso_type & (uint8_t)~VNET_GSO_ECN;
	int fam = len ? ip_version(pkt) : 0;
	size_t l4, hdr, mss, payload, off;
	uint8_t proto;
	uint8_t *d;
	int k = 0;

	*done = 0;
	if (type == VNET_GSO_NONE) {
		bool partial = h->flags & VNET_F_NEEDS_CSUM;

		if (partial && !csum_fits(h, len))
			return 0;
		d = alloc(ctx, len);
		if (!d)
			return -1;
		memcpy(d, pkt, len);
		if (partial)
			finish_csum(h, d, len);
		*done = 1;
		return 1;
	}
	if (type != VNET_GSO_TCPV4 && type != VNET_GSO_TCPV6 && type != VNET_GSO_UDP_L4)
		return 0;
	if ((fam != 4 && fam != 6) || len < IP6_HDR_LEN)
		return 0;
	proto = type == VNET_GSO_UDP_L4 ? IP_PROTO_UDP : IP_PROTO_TCP;
	l4 = h->csum_start;
	if (fam == 4 ? l4 != ip4_hdr_len(pkt) || l4 < IP4_HDR_MIN : l4 < IP6_HDR_LEN)
		return 0;
	if (l4 + 20 > len)
		return 0;
	hdr = proto == IP_PROTO_TCP ? l4 + (size_t)(pkt[l4 + 12] >> 4) * 4 : l4 + 8;
	mss = h->gso_size;
	/* a short TCP header would put the checksum past the header */
	if (hdr > len || hdr < l4 + (proto == IP_PROTO_TCP ? 20 : 8) || !mss)
		return 0;
	payload = len - hdr;
	for (off = 0; off < payload || (off == 0 && payload == 0); off += mss, k++) {
		size_t plen = payload - off < mss ? payload - off : mss;
		size_t slen = hdr + plen;
		bool last = off + plen >= payload;

		d = alloc(ctx, slen);
		if (!d)
			return -1;
		memcpy(d, pkt, hdr);
		memcpy(d + hdr, pkt + hdr + off, plen);
		if (fam == 4) {
			put_be16(d + IP4_OFF_TOT_LEN, (uint16_t)slen);
			put_be16(d + IP4_OFF_ID, (uint16_t)(get_be16(pkt + IP4_OFF_ID) + k));
			ipv4_fix_csum(d);
		} else {
			put_be16(d + IP6_OFF_PAYLOAD_LEN, (uint16_t)(slen - IP6_HDR_LEN));
		}
		if (proto == IP_PROTO_TCP) {
			put_be32(d + l4 + 4, get_be32(pkt + l4 + 4) + (uint32_t)off);
			if (!last)
				d[l4 + 13] &= (uint8_t) ~(TCP_FIN | TCP_PSH);
			if (k)
				d[l4 + 13] &= (uint8_t)~TCP_CWR;
		} else {
			put_be16(d + l4 + 4, (uint16_t)(slen - l4));
		}
		l4_fix_csum(d, slen, l4, proto);
		*done = k + 1;
		if (last)
			break;
	}
	return *done;
}

int offload_segment(const struct vnet_hdr *h, const uint8_t *pkt, size_t len, seg_alloc_fn alloc,
		    void *ctx, int *done, struct offload_stats *st)
{
	int ret = segment(h, pkt, len, alloc, ctx, done);

	if (ret == 0)
		atomic_fetch_add_explicit(&st->malformed, 1, memory_order_relaxed);
	return ret;
}

/* ---- GRO ---- */

struct gro_info {
	bool tcp; /* a TCP or UDP packet: l4 and the tuple are known */
	bool udp;
	bool ok; /* a segment that may be coalesced */
	bool v6;
	uint16_t l4, hdr;
	uint32_t plen, seq;
};

static void gro_parse(const struct gro_pkt *g, struct gro_info *in, bool udp)
{
	const uint8_t *p = g->p;
	uint8_t proto;
	size_t l4;

	memset(in, 0, sizeof(*in));
	if (g->len < 20)
		return;
	if (ip_version(p) == 4) {
		proto = p[IP4_OFF_PROTO];
		if (ip4_hdr_len(p) != IP4_HDR_MIN)
			return;
		l4 = IP4_HDR_MIN;
	} else if (ip_version(p) == 6) {
		proto = p[IP6_OFF_NEXT];
		l4 = IP6_HDR_LEN;
		in->v6 = true;
	} else {
		return;
	}
	if (proto != IP_PROTO_TCP && !(udp && proto == IP_PROTO_UDP))
		return;
	/* the whole L4 header is there (small UDP datagrams coalesce too) */
	if (g->len < l4 + (proto == IP_PROTO_TCP ? 20 : 8))
		return;
	in->tcp = true;
	in->udp = proto == IP_PROTO_UDP;
	in->l4 = (uint16_t)l4;
	/* not a fragment (DF allowed), consistent lengths */
	if (!in->v6 && (ip4_is_fragment(p) || get_be16(p + IP4_OFF_TOT_LEN) != g->len))
		return;
	if (in->v6 && get_be16(p + IP6_OFF_PAYLOAD_LEN) + (size_t)IP6_HDR_LEN != g->len)
		return;
	if (in->udp) {
		if (get_be16(p + l4 + 4) != g->len - l4 || g->len <= l4 + 8)
			return;
		in->hdr = (uint16_t)(l4 + 8);
		in->plen = (uint32_t)(g->len - in->hdr);
		in->ok = true;
		return;
	}
	in->hdr = (uint16_t)(l4 + (size_t)(p[l4 + 12] >> 4) * 4);
	if (in->hdr < l4 + 20 || in->hdr >= g->len)
		return; /* no payload: pure ACKs go as they are */
	if ((p[l4 + 13] & (uint8_t) ~(TCP_ACK | TCP_PSH)) || !(p[l4 + 13] & TCP_ACK))
		return;
	in->plen = (uint32_t)(g->len - in->hdr);
	in->seq = get_be32(p + l4 + 4);
	in->ok = true;
}

static bool same_tuple(const uint8_t *a, const uint8_t *b, bool v6)
{
	if (v6)
		return !memcmp(a + IP6_OFF_SRC, b + IP6_OFF_SRC, 32) &&
		       !memcmp(a + IP6_HDR_LEN, b + IP6_HDR_LEN, 4);
	return !memcmp(a + IP4_OFF_SRC, b + IP4_OFF_SRC, 8) &&
	       !memcmp(a + IP4_HDR_MIN, b + IP4_HDR_MIN, 4);
}

/* Same header apart from length, id, checksum, seq, PSH (same tuple). */
static bool gro_match(const uint8_t *a, const uint8_t *b, const struct gro_info *ia,
		      const struct gro_info *ib)
{
	size_t l4 = ia->l4;

	if (ia->hdr != ib->hdr || ia->udp != ib->udp)
		return false;
	if (ia->v6) {
		/* version, class, flow label, hop limit */
		if (memcmp(a, b, 4) || a[7] != b[7])
			return false;
	} else {
		/* tos, DF, ttl */
		if (a[1] != b[1] || memcmp(a + 6, b + 6, 3))
			return false;
	}
	if (ia->udp)
		return true;
	/* ack, data offset, window, urgent pointer, options */
	return !memcmp(a + l4 + 8, b + l4 + 8, 5) && !memcmp(a + l4 + 14, b + l4 + 14, 2) &&
	       !memcmp(a + l4 + 18, b + l4 + 18, ia->hdr - l4 - 18);
}

enum { GRO_FLOWS = 8 };

struct gro_flows {
	int item[GRO_FLOWS]; /* the open run of each flow */
	struct gro_info info[GRO_FLOWS];
	uint32_t next_seq[GRO_FLOWS];
	int n, evict;
};

static void flow_close(struct gro_flows *fl, int f)
{
	fl->n--;
	fl->item[f] = fl->item[fl->n];
	fl->info[f] = fl->info[fl->n];
	fl->next_seq[f] = fl->next_seq[fl->n];
}

/* The IPv4 header's checksum and, for TUN, the TCP/UDP one verify (a UDP
 * datagram without one is not coalesced). */
static bool gro_csum_ok(const struct gro_pkt *g, const struct gro_info *in, enum gro_target target)
{
	const uint8_t *p = g->p;
	size_t l4 = in->l4;
	uint64_t sum;

	if (!in->v6 && csum_fold(csum_add(0, p, l4)) != 0xffff)
		return false;
	if (target == GRO_STACK)
		return true; /* the whole's TCP sum carries each member's */
	if (in->udp && !p[l4 + 6] && !p[l4 + 7])
		return false;
	sum = l4_pseudo(p, in->v6, in->udp, g->len, l4);
	return csum_fold(csum_add(sum, p + l4, g->len - l4)) == 0xffff;
}

/* Appends packet i to flow f's run. The kernel trusts a run's partial
 * checksum, so a member's own are verified first; one that fails is marked
 * not ok and written alone, as it arrived. */
static bool try_append(struct gro_plan *plan, const struct gro_pkt *pkts, struct gro_flows *fl,
		       int f, int i, struct gro_info *in)
{
	struct gro_item *it = &plan->items[fl->item[f]];

	if (it->push || (!in->udp && in->seq != fl->next_seq[f]) || in->plen > it->gso_size ||
	    pkts[it->tail].len - fl->info[f].hdr != it->gso_size ||
	    it->len + in->plen > 65535 - 40 || it->nseg >= GRO_MAX_SEGS)
		return false;
	if (it->nseg == 1 && !gro_csum_ok(&pkts[it->head], &fl->info[f], plan->target))
		return false;
	if (!gro_csum_ok(&pkts[i], in, plan->target)) {
		in->ok = false;
		return false;
	}
	plan->next[it->tail] = i;
	it->tail = i;
	it->nseg++;
	it->len += in->plen;
	fl->next_seq[f] += in->plen;
	if (!in->udp && (pkts[i].p[in->l4 + 13] & TCP_PSH))
		it->push = true;
	return true;
}

void gro_plan_build(struct gro_plan *plan, const struct gro_pkt *pkts, int n,
		    enum gro_target target)
{
	struct gro_flows fl = {.n = 0};

	plan->n_items = 0;
	plan->target = target;
	for (int i = 0; i < n; i++) {
		struct gro_info in;
		struct gro_item *it;
		int f;

		plan->next[i] = -1;
		gro_parse(&pkts[i], &in, target == GRO_TUN_USO);
		if (in.tcp) {
			/* at most one open run per tuple */
			for (f = 0; f < fl.n; f++) {
				const uint8_t *h = pkts[plan->items[fl.item[f]].head].p;

				if (fl.info[f].v6 == in.v6 && same_tuple(h, pkts[i].p, in.v6))
					break;
			}
			if (f < fl.n) {
				const uint8_t *h = pkts[plan->items[fl.item[f]].head].p;

				if (in.ok && gro_match(h, pkts[i].p, &fl.info[f], &in) &&
				    try_append(plan, pkts, &fl, f, i, &in))
					continue;
				flow_close(&fl, f);
			}
		}
		it = &plan->items[plan->n_items];
		it->head = it->tail = i;
		it->nseg = 1;
		it->len = (uint32_t)pkts[i].len;
		it->v6 = in.v6;
		it->udp = in.udp;
		it->hdr_len = in.hdr;
		it->gso_size = (uint16_t)in.plen;
		it->push = in.ok && !in.udp && (pkts[i].p[in.l4 + 13] & TCP_PSH);
		if (in.ok) {
			if (fl.n == GRO_FLOWS) {
				f = fl.evict;
				fl.evict = (fl.evict + 1) % GRO_FLOWS;
			} else {
				f = fl.n++;
			}
			fl.item[f] = plan->n_items;
			fl.info[f] = in;
			fl.next_seq[f] = in.seq + in.plen;
		}
		plan->n_items++;
	}
}

/* The run's payload sum, taken from each member's own checksum without a
 * pass over the data, so a member that would fail makes the whole fail. */
static uint64_t run_payload_sum(const struct gro_item *it, const struct gro_plan *plan,
				const struct gro_pkt *pkts)
{
	size_t l4 = it->v6 ? IP6_HDR_LEN : IP4_HDR_MIN, off = it->hdr_len;
	uint64_t sum = 0;

	for (int i = it->head; i >= 0; i = plan->next[i]) {
		const uint8_t *p = pkts[i].p;
		uint64_t s = l4_pseudo(p, it->v6, false, pkts[i].len, l4);
		uint16_t c = (uint16_t)~csum_fold(csum_add(s, p + l4, it->hdr_len - l4));

		/* a payload at an odd offset adds its words byte-swapped */
		sum += off & 1 ? (uint16_t)(c << 8 | c >> 8) : c;
		off += pkts[i].len - it->hdr_len;
	}
	return sum;
}

/* The run's TCP/UDP checksum: partial for TUN, complete for GRO_STACK. */
static void run_csum(const struct gro_item *it, uint8_t *p, enum gro_target target,
		     uint64_t payload)
{
	size_t l4 = it->v6 ? IP6_HDR_LEN : IP4_HDR_MIN;
	uint8_t *field = p + l4 + (it->udp ? 6 : 16);
	uint64_t sum = l4_pseudo(p, it->v6, it->udp, it->len, l4);
	uint16_t c;

	if (target != GRO_STACK) {
		c = csum_fold(sum);
		memcpy(field, &c, 2);
		return;
	}
	field[0] = field[1] = 0;
	csum_put(field, csum_add(sum + payload, p + l4, it->hdr_len - l4));
}

int gro_item_prepare(const struct gro_item *it, const struct gro_plan *plan,
		     const struct gro_pkt *pkts, struct vnet_hdr *h, struct iovec *iov,
		     uint8_t saved[GRO_SAVED_LEN])
{
	uint8_t *p = pkts[it->head].p;
	size_t l4 = it->v6 ? IP6_HDR_LEN : IP4_HDR_MIN;
	/* before the head's header changes */
	uint64_t payload = plan->target == GRO_STACK ? run_payload_sum(it, plan, pkts) : 0;
	int n = 2;

	memcpy(saved, p, pkts[it->head].len < GRO_SAVED_LEN ? pkts[it->head].len : GRO_SAVED_LEN);
	if (it->v6) {
		put_be16(p + IP6_OFF_PAYLOAD_LEN, (uint16_t)(it->len - IP6_HDR_LEN));
	} else {
		put_be16(p + IP4_OFF_TOT_LEN, (uint16_t)it->len);
		ipv4_fix_csum(p);
	}
	if (it->push)
		p[l4 + 13] |= TCP_PSH;
	if (it->udp)
		put_be16(p + l4 + 4, (uint16_t)(it->len - l4));
	run_csum(it, p, plan->target, payload);
	memset(h, 0, sizeof(*h));
	h->flags = plan->target == GRO_STACK ? 0 : VNET_F_NEEDS_CSUM;
	if (it->udp)
		h->gso_type = VNET_GSO_UDP_L4;
	else
		h->gso_type = it->v6 ? VNET_GSO_TCPV6 : VNET_GSO_TCPV4;
	h->hdr_len = it->hdr_len;
	h->gso_size = it->gso_size;
	h->csum_start = (uint16_t)l4;
	h->csum_offset = it->udp ? 6 : 16;
	iov[0].iov_base = h;
	iov[0].iov_len = VNET_HDR_LEN;
	iov[1].iov_base = p;
	iov[1].iov_len = pkts[it->head].len;
	for (int i = plan->next[it->head]; i >= 0; i = plan->next[i]) {
		iov[n].iov_base = pkts[i].p + it->hdr_len;
		iov[n].iov_len = pkts[i].len - it->hdr_len;
		n++;
	}
	return n;
}

void gro_item_restore(const struct gro_item *it, const struct gro_pkt *pkts,
		      const uint8_t saved[GRO_SAVED_LEN])
{
	size_t len = pkts[it->head].len;

	memcpy(pkts[it->head].p, saved, len < GRO_SAVED_LEN ? len : GRO_SAVED_LEN);
}
