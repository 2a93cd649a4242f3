/* daemon/csum.c's sums against the independent RFC 1071 sum of
 * tests/rfc1071.h: every length up to a few hundred bytes at every
 * alignment, bytes that make every carry (all 0xff), random bytes, running
 * sums started anywhere (near 2^64 too) and sums chained at even splits. */
#include <stdio.h>
#include <stdlib.h>

#include "rfc1071.h"
#include "test.h"
#include "../../daemon/csum.c"

enum { MAX_LEN = 600, ALIGNS = 8, ROUNDS = 4 };

/* The folded daemon sum as the big-endian value rfc1071.h computes. */
static uint16_t daemon_fold_be(uint64_t sum)
{
	uint16_t c = csum_fold(sum);
	uint8_t b[2];

	memcpy(b, &c, 2);
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* A ones'-complement zero is 0 or 0xffff: compare modulo that. */
static bool same_sum(uint16_t a, uint16_t b)
{
	return a == b || (a % 0xffff) == (b % 0xffff);
}

static bool check_buf(const uint8_t *p, size_t len, uint64_t start)
{
	/* start's own 16-bit value, in memory order, as rfc1071 sees it */
	uint8_t sb[8];
	uint32_t ref;

	memcpy(sb, &start, 8);
	ref = rfc1071_add(rfc1071_add(0, sb, 8), p, len);
	return same_sum(daemon_fold_be(csum_add(start, p, len)), rfc1071_fold(ref));
}

int main(void)
{
	static uint8_t buf[MAX_LEN + ALIGNS];
	const uint64_t starts[] = {
	    0, 1, 0xffff, 0xffffffffffffffffULL, 0xfffffffffffffffeULL, 0x8000000000000000ULL};
	int bad = 0;

	srand(7);
	for (int r = 0; r < ROUNDS; r++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = r == 0 ? 0xff : r == 1 ? 0 : (uint8_t)rand();
		for (size_t al = 0; al < ALIGNS; al++)
			for (size_t len = 0; len <= MAX_LEN; len++)
				for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]); s++)
					bad += !check_buf(buf + al, len, starts[s]);
	}
	CHECK(bad == 0);

	/* chained at even offsets, as the offload code sums header and payload */
	for (size_t len = 2; len <= MAX_LEN; len += 2) {
		for (size_t cut = 0; cut <= len; cut += 2) {
			uint64_t s = csum_add(csum_add(0, buf, cut), buf + cut, len - cut);

			bad += !same_sum(daemon_fold_be(s), rfc1071_fold(rfc1071_add(0, buf, len)));
		}
	}
	CHECK(bad == 0);
	printf("csum: %d mismatches\n", bad);
	return bad != 0;
}
