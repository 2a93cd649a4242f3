/* The proxy's intake of the data path's packets (proxy/vnet_packet.c): a
 * run of TCP segments coalesced by the daemon's receive path (gro_plan_build
 * and gro_item_prepare, as gro_write.c writes them) becomes one IP packet
 * whose IP and TCP checksums verify with an independent RFC 1071 sum and
 * whose payload is the members' in order; plain packets pass unchanged;
 * malformed headers and lengths, and offloads lwIP cannot take, are
 * refused. */
#include "rfc1071.h"
#include "test.h"
#include "../../daemon/csum.c"
#include "../../daemon/offload.c"
#include "../../proxy/vnet_packet.c"

enum { SEGS = 47, MSS = 1380, SEG_MAX = 1500 };

static const uint8_t SRC4[4] = {10, 97, 0, 1}, DST4[4] = {10, 97, 0, 4};
static const uint8_t SRC6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t DST6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4};

static uint8_t seg[SEGS][SEG_MAX];
static uint8_t flat[PROXY_STACK_PACKET_MAX + 64];

/* A TCP segment with valid checksums (the independent sum); byte i of
 * the stream is (uint8_t)(i * 13 + i / 251). */
static size_t tcp_segment(uint8_t *p, bool v6, uint32_t seq, size_t plen, uint8_t flags)
{
	size_t l4 = v6 ? IP6_HDR_LEN : IP4_HDR_MIN, len = l4 + TCP_HDR_MIN + plen;
	uint32_t s;
	uint16_t c;

	memset(p, 0, l4 + TCP_HDR_MIN);
	if (v6) {
		p[0] = 0x60;
		put_be16(p + IP6_OFF_PAYLOAD_LEN, (uint16_t)(len - IP6_HDR_LEN));
		p[IP6_OFF_NEXT] = IP_PROTO_TCP;
		p[IP6_OFF_HOP_LIMIT] = 64;
		memcpy(p + IP6_OFF_SRC, SRC6, 16);
		memcpy(p + IP6_OFF_DST, DST6, 16);
	} else {
		p[0] = 0x45;
		put_be16(p + IP4_OFF_TOT_LEN, (uint16_t)len);
		put_be16(p + IP4_OFF_ID, (uint16_t)seq);
		p[IP4_OFF_FRAG] = 0x40;
		p[IP4_OFF_TTL] = 64;
		p[IP4_OFF_PROTO] = IP_PROTO_TCP;
		memcpy(p + IP4_OFF_SRC, SRC4, 4);
		memcpy(p + IP4_OFF_DST, DST4, 4);
		c = (uint16_t)~rfc1071_fold(rfc1071_add(0, p, IP4_HDR_MIN));
		put_be16(p + IP4_OFF_CSUM, c);
	}
	put_be16(p + l4, 8080);
	put_be16(p + l4 + 2, 40001);
	put_be32(p + l4 + 4, seq);
	put_be32(p + l4 + 8, 4242);
	p[l4 + 12] = 5 << 4;
	p[l4 + 13] = flags;
	put_be16(p + l4 + 14, 1000);
	for (size_t i = 0; i < plen; i++) {
		size_t at = seq - 1000 + i;

		p[l4 + TCP_HDR_MIN + i] = (uint8_t)(at * 13 + at / 251);
	}
	s = rfc1071_add(0, p + (v6 ? IP6_OFF_SRC : IP4_OFF_SRC), v6 ? 32 : 8) + IP_PROTO_TCP +
	    (uint32_t)(len - l4);
	c = (uint16_t)~rfc1071_fold(rfc1071_add(s, p + l4, len - l4));
	put_be16(p + l4 + TCP_OFF_CSUM, c);
	return len;
}

/* n segments coalesced as the receive path writes them: into flat, the
 * header into *h. Returns the packet's length. */
static size_t coalesce(bool v6, int n, struct vnet_hdr *h)
{
	struct gro_pkt pk[SEGS];
	struct gro_item items[SEGS];
	int next[SEGS];
	struct gro_plan plan = {.items = items, .next = next};
	struct iovec iov[GRO_MAX_SEGS + 2];
	uint8_t saved[GRO_SAVED_LEN];
	size_t off = 0;
	int nv;

	for (int i = 0; i < n; i++) {
		pk[i].p = seg[i];
		pk[i].len = tcp_segment(seg[i], v6, 1000 + (uint32_t)(i * MSS), MSS,
					i == n - 1 ? 0x18 : 0x10);
	}
	gro_plan_build(&plan, pk, n, false);
	CHECK(plan.n_items == 1 && items[0].nseg == n);
	nv = gro_item_prepare(&items[0], &plan, pk, h, iov, saved);
	for (int i = 1; i < nv; i++) {
		memcpy(flat + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	return off;
}

static void test_coalesced(bool v6, int n)
{
	struct vnet_hdr h;
	size_t len = coalesce(v6, n, &h), l4 = v6 ? IP6_HDR_LEN : IP4_HDR_MIN;
	bool stream_ok = true;

	CHECK(len == l4 + TCP_HDR_MIN + (size_t)n * MSS);
	CHECK(h.flags & VNET_F_NEEDS_CSUM);
	/* partial: the TCP checksum does not verify yet */
	CHECK(!rfc1071_l4_ok(flat, len, l4, IP_PROTO_TCP));
	CHECK(vnet_packet_finish(&h, flat, len) == 0);
	CHECK(rfc1071_l4_ok(flat, len, l4, IP_PROTO_TCP));
	if (!v6)
		CHECK(rfc1071_ipv4_hdr_ok(flat) && get_be16(flat + IP4_OFF_TOT_LEN) == len);
	else
		CHECK((size_t)get_be16(flat + IP6_OFF_PAYLOAD_LEN) + IP6_HDR_LEN == len);
	CHECK(get_be32(flat + l4 + 4) == 1000); /* the head's sequence number */
	CHECK(flat[l4 + 13] == 0x18);		/* the last member's PSH */
	for (size_t i = 0; i < (size_t)n * MSS; i++) {
		if (flat[l4 + TCP_HDR_MIN + i] != (uint8_t)(i * 13 + i / 251))
			stream_ok = false;
	}
	CHECK(stream_ok);
}

static void test_plain(void)
{
	struct vnet_hdr none = {0};
	uint8_t copy[SEG_MAX];
	size_t len = tcp_segment(seg[0], false, 1000, 100, 0x10);

	memcpy(copy, seg[0], len);
	CHECK(vnet_packet_finish(&none, seg[0], len) == 0);
	CHECK_MEM(seg[0], copy, len, "a plain packet is left as it is");
	len = tcp_segment(seg[0], true, 1000, 0, 0x10);
	CHECK(vnet_packet_finish(&none, seg[0], len) == 0);
}

static void test_refused(void)
{
	struct vnet_hdr h, bad;
	size_t len = coalesce(false, 3, &h);

	/* lengths that disagree with the IP header */
	CHECK(vnet_packet_finish(&h, flat, len - 1) == -1);
	CHECK(vnet_packet_finish(&h, flat, len + 1) == -1);
	CHECK(vnet_packet_finish(&h, flat, 0) == -1);
	CHECK(vnet_packet_finish(&h, flat, 10) == -1);
	/* the gso type of the other IP version, coalesced UDP, an unknown one */
	bad = h;
	bad.gso_type = VNET_GSO_TCPV6;
	CHECK(vnet_packet_finish(&bad, flat, len) == -1);
	bad.gso_type = VNET_GSO_UDP_L4;
	CHECK(vnet_packet_finish(&bad, flat, len) == -1);
	bad.gso_type = 9;
	CHECK(vnet_packet_finish(&bad, flat, len) == -1);
	/* a checksum elsewhere than TCP's field right behind the IP header */
	bad = h;
	bad.csum_offset = 6;
	CHECK(vnet_packet_finish(&bad, flat, len) == -1);
	bad = h;
	bad.csum_start = 0;
	CHECK(vnet_packet_finish(&bad, flat, len) == -1);
	bad = h;
	bad.csum_start = 24;
	CHECK(vnet_packet_finish(&bad, flat, len) == -1);
	/* not TCP */
	flat[IP4_OFF_PROTO] = IP_PROTO_UDP;
	CHECK(vnet_packet_finish(&h, flat, len) == -1);
	flat[IP4_OFF_PROTO] = IP_PROTO_TCP;
	/* not IP */
	flat[0] = 0x35;
	CHECK(vnet_packet_finish(&h, flat, len) == -1);
	flat[0] = 0x45;
	/* an IPv4 header length past the packet */
	CHECK(vnet_packet_finish(&h, flat, IP4_HDR_MIN) == -1);
	/* the unchanged packet still goes through */
	CHECK(vnet_packet_finish(&h, flat, len) == 0);
	/* a TCP header cut short */
	len = tcp_segment(seg[0], false, 1000, 0, 0x10) - 4;
	put_be16(seg[0] + IP4_OFF_TOT_LEN, (uint16_t)len);
	h.gso_type = VNET_GSO_NONE;
	CHECK(vnet_packet_finish(&h, seg[0], len) == -1);
}

int main(void)
{
	test_coalesced(false, 2);
	test_coalesced(false, SEGS);
	test_coalesced(true, 2);
	test_coalesced(true, SEGS);
	test_plain();
	test_refused();
	return test_finish("test_vnet_packet");
}
