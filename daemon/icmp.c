/* ICMP error construction (RFC 792 / RFC 1812 4.3.2.7, RFC 4443 2.4). */
#include "icmp.h"

#include <string.h>

#include "be.h"
#include "csum.h"
#include "ip.h"

static int v4_no_reply_addr(const uint8_t *a)
{
	uint32_t v = get_be32(a);

	return v == 0 || v == 0xffffffff || (a[0] & 0xf0) == 0xe0;
}

static size_t unreachable4(const uint8_t *pkt, size_t len, const struct if_addrs *from,
			   uint8_t *out)
{
	size_t ihl = ip4_hdr_len(pkt);
	size_t quote, total;

	if (ihl < IP4_HDR_MIN || len < ihl)
		return 0;
	if (ip4_is_later_fragment(pkt))
		return 0; /* not the first fragment */
	if (v4_no_reply_addr(pkt + IP4_OFF_SRC) || v4_no_reply_addr(pkt + IP4_OFF_DST))
		return 0;
	if (pkt[IP4_OFF_PROTO] == IP_PROTO_ICMP) {
		/* only informational ICMP gets an error: echo, timestamp, ... */
		uint8_t type;

		if (len < ihl + 1)
			return 0;
		type = pkt[ihl];
		if (type == 3 || type == 4 || type == 5 || type == 11 || type == 12)
			return 0;
	}
	/* RFC 1812: quote as much as fits in 576 bytes */
	quote = len < 576 - 28 ? len : 576 - 28;
	total = 28 + quote;
	memset(out, 0, 28);
	out[0] = 0x45;
	put_be16(out + IP4_OFF_TOT_LEN, (uint16_t)total);
	out[IP4_OFF_TTL] = 64;
	out[IP4_OFF_PROTO] = IP_PROTO_ICMP;
	memcpy(out + IP4_OFF_SRC, from && from->has4 ? from->v4 : pkt + IP4_OFF_DST, 4);
	memcpy(out + IP4_OFF_DST, pkt + IP4_OFF_SRC, 4);
	csum_put(out + IP4_OFF_CSUM, csum_add(0, out, IP4_HDR_MIN));
	out[20] = 3;
	out[21] = 1;
	memcpy(out + 28, pkt, quote);
	csum_put(out + 22, csum_add(0, out + 20, 8 + quote));
	return total;
}

static int v6_no_reply_addr(const uint8_t *a)
{
	static const uint8_t zero[16];

	return a[0] == 0xff || memcmp(a, zero, 16) == 0;
}

static size_t unreachable6(const uint8_t *pkt, size_t len, const struct if_addrs *from,
			   uint8_t *out)
{
	size_t quote, total, plen;

	if (len < IP6_HDR_LEN)
		return 0;
	if (v6_no_reply_addr(pkt + IP6_OFF_SRC) || v6_no_reply_addr(pkt + IP6_OFF_DST))
		return 0;
	if (pkt[IP6_OFF_NEXT] == IP_PROTO_ICMP6 && len >= 41 && pkt[40] < 128)
		return 0; /* an ICMPv6 error message */
	quote = len < ICMP_REPLY_MAX - 48 ? len : ICMP_REPLY_MAX - 48;
	plen = 8 + quote;
	total = 40 + plen;
	memset(out, 0, 48);
	out[0] = 0x60;
	put_be16(out + IP6_OFF_PAYLOAD_LEN, (uint16_t)plen);
	out[IP6_OFF_NEXT] = IP_PROTO_ICMP6;
	out[IP6_OFF_HOP_LIMIT] = 64;
	memcpy(out + IP6_OFF_SRC, from && from->has6 ? from->v6 : pkt + IP6_OFF_DST, 16);
	memcpy(out + IP6_OFF_DST, pkt + IP6_OFF_SRC, 16);
	out[40] = 1;
	out[41] = 3;
	memcpy(out + 48, pkt, quote);
	csum_put(out + 42, csum_add(csum_pseudo(6, out + IP6_OFF_SRC, out + IP6_OFF_DST,
						IP_PROTO_ICMP6, (uint32_t)plen),
				    out + 40, plen));
	return total;
}

size_t icmp_unreachable(const uint8_t *pkt, size_t len, const struct if_addrs *from, uint8_t *out)
{
	if (len < 1)
		return 0;
	if (ip_version(pkt) == 4)
		return unreachable4(pkt, len, from, out);
	if (ip_version(pkt) == 6)
		return unreachable6(pkt, len, from, out);
	return 0;
}
