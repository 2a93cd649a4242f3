/* ICMP error construction (RFC 792 / RFC 1812 4.3.2.7, RFC 4443 2.4). */
#include "icmp.h"
#include "csum.h"

#include <string.h>

/* Stores the complemented folded sum at dst (memory order, see csum.h). */
static void put_csum(uint8_t *dst, uint64_t sum)
{
	uint16_t c = (uint16_t)~csum_fold(sum);

	memcpy(dst, &c, 2);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int v4_no_reply_addr(const uint8_t *a)
{
	uint32_t v = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];

	return v == 0 || v == 0xffffffff || (a[0] & 0xf0) == 0xe0;
}

static size_t unreachable4(const uint8_t *pkt, size_t len, const struct if_addrs *from,
			   uint8_t *out)
{
	size_t ihl = (size_t)(pkt[0] & 0x0f) * 4;
	size_t quote, total;

	if (ihl < 20 || len < ihl)
		return 0;
	if ((((uint32_t)pkt[6] << 8 | pkt[7]) & 0x1fff) != 0)
		return 0; /* not the first fragment */
	if (v4_no_reply_addr(pkt + 12) || v4_no_reply_addr(pkt + 16))
		return 0;
	if (pkt[9] == 1) {
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
	put16(out + 2, (uint16_t)total);
	out[8] = 64;
	out[9] = 1;
	memcpy(out + 12, from && from->has4 ? from->v4 : pkt + 16, 4);
	memcpy(out + 16, pkt + 12, 4);
	put_csum(out + 10, csum_add(0, out, 20));
	out[20] = 3;
	out[21] = 1;
	memcpy(out + 28, pkt, quote);
	put_csum(out + 22, csum_add(0, out + 20, 8 + quote));
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

	if (len < 40)
		return 0;
	if (v6_no_reply_addr(pkt + 8) || v6_no_reply_addr(pkt + 24))
		return 0;
	if (pkt[6] == 58 && len >= 41 && pkt[40] < 128)
		return 0; /* an ICMPv6 error message */
	quote = len < ICMP_REPLY_MAX - 48 ? len : ICMP_REPLY_MAX - 48;
	plen = 8 + quote;
	total = 40 + plen;
	memset(out, 0, 48);
	out[0] = 0x60;
	put16(out + 4, (uint16_t)plen);
	out[6] = 58;
	out[7] = 64;
	memcpy(out + 8, from && from->has6 ? from->v6 : pkt + 24, 16);
	memcpy(out + 24, pkt + 8, 16);
	out[40] = 1;
	out[41] = 3;
	memcpy(out + 48, pkt, quote);
	put_csum(out + 42, csum_add(csum_pseudo(6, out + 8, out + 24, 58, (uint32_t)plen),
				    out + 40, plen));
	return total;
}

size_t icmp_unreachable(const uint8_t *pkt, size_t len, const struct if_addrs *from,
			uint8_t *out)
{
	if (len < 1)
		return 0;
	if ((pkt[0] >> 4) == 4)
		return unreachable4(pkt, len, from, out);
	if ((pkt[0] >> 4) == 6)
		return unreachable6(pkt, len, from, out);
	return 0;
}
