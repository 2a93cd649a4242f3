#include "csum.h"

#include <arpa/inet.h>
#include <string.h>

uint64_t csum_add(uint64_t sum, const void *p, size_t len)
{
	const uint8_t *b = p;
	/* 32-bit words into a 64-bit accumulator: no carry handling in the
	 * loop, ample headroom for 64 KiB packets */
	uint64_t acc = 0;

	while (len >= 16) {
		uint32_t w[4];

		memcpy(w, b, 16);
		acc += (uint64_t)w[0] + w[1] + w[2] + w[3];
		b += 16;
		len -= 16;
	}
	while (len >= 4) {
		uint32_t w;

		memcpy(&w, b, 4);
		acc += w;
		b += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t w;

		memcpy(&w, b, 2);
		acc += w;
		b += 2;
		len -= 2;
	}
	if (len) {
		/* the odd byte is the high-order byte of a zero-padded word in
		 * memory order */
		uint8_t last[2] = {b[0], 0};
		uint16_t w;

		memcpy(&w, last, 2);
		acc += w;
	}
	sum += acc;
	if (sum < acc)
		sum++;
	return sum;
}

uint16_t csum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)sum;
}

uint64_t csum_pseudo(int family, const uint8_t *src, const uint8_t *dst, uint8_t proto,
		     uint32_t l4len)
{
	size_t alen = family == 4 ? 4 : 16;
	uint64_t sum = csum_add(csum_add(0, src, alen), dst, alen);
	uint16_t w[2] = {htons(proto), htons((uint16_t)l4len)};

	/* IPv6 uses a 32-bit length; packets here never exceed 64 KiB */
	return csum_add(sum, w, sizeof(w));
}
