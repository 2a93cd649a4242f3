/* Internet checksum (RFC 1071), summed in memory order, so a folded
 * result is stored back with memcpy and no swap. */
#ifndef ZT_CSUM_H
#define ZT_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Adds len bytes at p to the running sum. */
uint64_t csum_add(uint64_t sum, const void *p, size_t len);
/* Folds to 16 bits (not complemented). */
uint16_t csum_fold(uint64_t sum);
/* Sum of the TCP/UDP pseudo header; family 4 or 6, addresses as in the IP
 * header, l4len in host order. */
uint64_t csum_pseudo(int family, const uint8_t *src, const uint8_t *dst, uint8_t proto,
		     uint32_t l4len);

/* Stores the checksum of sum (folded, complemented) in the field at dst. */
static inline void csum_put(uint8_t *dst, uint64_t sum)
{
	uint16_t c = (uint16_t)~csum_fold(sum);

	memcpy(dst, &c, 2);
}

#endif
