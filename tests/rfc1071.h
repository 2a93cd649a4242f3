/* The Internet checksum (RFC 1071) for the tests and test tools, written
 * apart from daemon/csum.c so that the daemon's sums are checked against
 * an independent one. */
#ifndef ZT_TESTS_RFC1071_H
#define ZT_TESTS_RFC1071_H

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

#endif
