/* The Internet checksum (RFC 1071) for the tests and test tools, written
 * apart from daemon/csum.c so that the daemon's sums are checked against
 * an independent one. */
#ifndef ZT_TESTS_RFC1071_H
#define ZT_TESTS_RFC1071_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Adds len bytes as big-endian 16-bit words (an odd last byte is the high
 * half of a zero-padded word). */
static inline uint32_t rfc1071_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/* The carries folded in; not complemented. */
static inline uint16_t rfc1071_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* A valid IPv4 header's sum folds to 0xffff. */
static inline bool rfc1071_ipv4_hdr_ok(const uint8_t *ip)
{
	return rfc1071_fold(rfc1071_add(0, ip, (size_t)(ip[0] & 15) * 4)) == 0xffff;
}

/* The folded sum over the pseudo header and the L4 part of a whole
 * IPv4/IPv6 packet p whose L4 header (upper-layer protocol proto) starts
 * at l4. */
static inline uint16_t rfc1071_l4_sum(const uint8_t *p, size_t len, size_t l4, uint8_t proto)
{
	bool v6 = p[0] >> 4 == 6;
	uint32_t s =
	    rfc1071_add(0, v6 ? p + 8 : p + 12, v6 ? 32 : 8) + proto + (uint32_t)(len - l4);

	return rfc1071_fold(rfc1071_add(s, p + l4, len - l4));
}

/* The same check for the L4 checksum. */
static inline bool rfc1071_l4_ok(const uint8_t *p, size_t len, size_t l4, uint8_t proto)
{
	return rfc1071_l4_sum(p, len, l4, proto) == 0xffff;
}

#endif
