/* Raising the window scale of the SYNs and SYN-ACKs lwIP sends
 * (proxy/synscale.c): the option's shift is replaced in IPv4 and IPv6
 * SYNs and SYN-ACKs wherever the option sits (either byte alignment of the
 * shift, after other options), the TCP checksum still verifies with an
 * independent RFC 1071 sum, and nothing else changes; a segment without
 * SYN, another shift, a missing option, truncated or malformed options, a
 * fragment and non-TCP packets are left alone. */
#include "rfc1071.h"
#include "test.h"
#include "../../proxy/synscale.c"

enum { PKT_MAX = 128, FROM = 1, TO = 4 };

static const uint8_t SRC6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4};
static const uint8_t DST6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

/* A segment with the given flags and options (padded to a 4-byte
 * boundary with END) and a valid checksum; returns its length. */
static size_t segment(uint8_t *p, bool v6, uint8_t flags, const uint8_t *opts, size_t olen)
{
	size_t l4 = v6 ? IP6_HDR_LEN : IP4_HDR_MIN, doff = TCP_HDR_MIN + ((olen + 3) & ~(size_t)3);
	size_t len = l4 + doff;

	memset(p, 0, PKT_MAX);
	if (v6) {
		p[0] = 0x60;
		put_be16(p + IP6_OFF_PAYLOAD_LEN, (uint16_t)(len - IP6_HDR_LEN));
		p[IP6_OFF_NEXT] = IP_PROTO_TCP;
		p[IP6_OFF_HOP_LIMIT] = 255;
		memcpy(p + IP6_OFF_SRC, SRC6, 16);
		memcpy(p + IP6_OFF_DST, DST6, 16);
	} else {
		p[0] = 0x45;
		put_be16(p + IP4_OFF_TOT_LEN, (uint16_t)len);
		p[IP4_OFF_TTL] = 255;
		p[IP4_OFF_PROTO] = IP_PROTO_TCP;
		p[IP4_OFF_SRC] = 10, p[IP4_OFF_SRC + 3] = 4;
		p[IP4_OFF_DST] = 10, p[IP4_OFF_DST + 3] = 1;
		put_be16(p + IP4_OFF_CSUM, (uint16_t)~rfc1071_fold(rfc1071_add(0, p, IP4_HDR_MIN)));
	}
	put_be16(p + l4, 49153);
	put_be16(p + l4 + 2, 80);
	put_be32(p + l4 + 4, 0x12345678);
	p[l4 + TCP_OFF_DOFF] = (uint8_t)(doff / 4 << 4);
	p[l4 + TCP_OFF_FLAGS] = flags;
	put_be16(p + l4 + 14, 0xFFFF);
	memcpy(p + l4 + TCP_HDR_MIN, opts, olen);
	put_be16(p + l4 + TCP_OFF_CSUM, (uint16_t)~rfc1071_l4_sum(p, len, l4, IP_PROTO_TCP));
	return len;
}

/* lwIP's SYN: MSS, then window scale behind a NOP (the shift at an odd
 * offset); the same without the NOP (even); behind timestamps and SACK. */
static const uint8_t LWIP[] = {2, 4, 0x05, 0xb4, 1, 3, 3, FROM};
static const uint8_t EVEN[] = {2, 4, 0x05, 0xb4, 3, 3, FROM, 0};
static const uint8_t LATE[] = {2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2,
			       3, 4, 0,	   0,	 0, 0, 1, 3,  3, FROM};

static void rewritten(bool v6, uint8_t flags, const uint8_t *opts, size_t olen, size_t shift_at)
{
	uint8_t p[PKT_MAX], before[PKT_MAX];
	size_t len = segment(p, v6, flags, opts, olen), l4 = v6 ? IP6_HDR_LEN : IP4_HDR_MIN;

	memcpy(before, p, len);
	CHECK(syn_scale_rewrite(p, len, FROM, TO));
	CHECK(p[l4 + TCP_HDR_MIN + shift_at] == TO);
	CHECK(rfc1071_l4_ok(p, len, l4, IP_PROTO_TCP));
	for (size_t i = 0; i < len; i++) {
		bool may = i == l4 + TCP_HDR_MIN + shift_at || i == l4 + TCP_OFF_CSUM ||
			   i == l4 + TCP_OFF_CSUM + 1;

		if (!may && p[i] != before[i]) {
			CHECK(!"a byte other than the shift or the checksum changed");
			break;
		}
	}
	/* once done, it is not the announced shift any more: left alone */
	CHECK(!syn_scale_rewrite(p, len, FROM, TO));
	CHECK(p[l4 + TCP_HDR_MIN + shift_at] == TO);
}

static void untouched(const char *what, uint8_t *p, size_t len)
{
	uint8_t before[PKT_MAX];

	memcpy(before, p, len);
	if (syn_scale_rewrite(p, len, FROM, TO) || memcmp(p, before, len)) {
		fprintf(stderr, "  changed: %s\n", what);
		CHECK(false);
	}
}

static void refused(bool v6)
{
	uint8_t p[PKT_MAX];
	size_t len, l4 = v6 ? IP6_HDR_LEN : IP4_HDR_MIN;
	static const uint8_t other[] = {2, 4, 0x05, 0xb4, 1, 3, 3, 7};
	static const uint8_t none[] = {2, 4, 0x05, 0xb4};
	static const uint8_t after_end[] = {2, 4, 0x05, 0xb4, 0, 3, 3, FROM};
	static const uint8_t bad_len[] = {2, 4, 0x05, 0xb4, 1, 3, 2, FROM};
	static const uint8_t zero_len[] = {2, 0, 3, 3, FROM, 0, 0, 0};
	static const uint8_t past_doff[] = {1, 1, 1, 1, 1, 1, 8, 9};

	len = segment(p, v6, 0x10, LWIP, sizeof(LWIP));
	untouched("an ACK", p, len);
	len = segment(p, v6, 0x02, other, sizeof(other));
	untouched("another shift", p, len);
	len = segment(p, v6, 0x02, none, sizeof(none));
	untouched("no window scale option", p, len);
	len = segment(p, v6, 0x02, after_end, sizeof(after_end));
	untouched("the option behind END", p, len);
	len = segment(p, v6, 0x02, bad_len, sizeof(bad_len));
	untouched("a window scale option of length 2", p, len);
	len = segment(p, v6, 0x02, zero_len, sizeof(zero_len));
	untouched("an option of length 0", p, len);
	len = segment(p, v6, 0x02, past_doff, sizeof(past_doff));
	untouched("an option running past the header", p, len);
	/* the header says more options than the packet has */
	len = segment(p, v6, 0x02, LWIP, sizeof(LWIP));
	untouched("options cut short", p, len - 4);
	untouched("a TCP header cut short", p, l4 + TCP_HDR_MIN - 1);
	p[l4 + TCP_OFF_DOFF] = 4 << 4;
	untouched("a data offset below 5", p, len);
	len = segment(p, v6, 0x02, LWIP, sizeof(LWIP));
	p[v6 ? IP6_OFF_NEXT : IP4_OFF_PROTO] = IP_PROTO_UDP;
	untouched("UDP", p, len);
	if (!v6) {
		len = segment(p, v6, 0x02, LWIP, sizeof(LWIP));
		put_be16(p + IP4_OFF_FRAG, 0x2000); /* more fragments */
		untouched("a first fragment", p, len);
		len = segment(p, v6, 0x02, LWIP, sizeof(LWIP));
		p[0] = 0x44; /* IHL below the minimum */
		untouched("an IPv4 header length of 16", p, len);
	}
	p[0] = 0x50;
	untouched("IP version 5", p, len);
	untouched("an empty packet", p, 0);
}

int main(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		rewritten(v6, 0x02, LWIP, sizeof(LWIP), 7);
		rewritten(v6, 0x12, LWIP, sizeof(LWIP), 7); /* SYN-ACK */
		rewritten(v6, 0x02, EVEN, sizeof(EVEN), 6);
		rewritten(v6, 0x02, LATE, sizeof(LATE), 19);
		refused(v6);
	}
	return test_finish("test_synscale");
}
