// SPDX-License-Identifier: MIT
/* ChaCha20, eight blocks at a time in AVX2 registers (four for the tail). */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"

#define CH_TARGET __attribute__((target("avx2")))
#define CH_WITH_8X

static CH_TARGET inline __m128i rot128(__m128i x, int n)
{
	if (n == 16)
		return _mm_shuffle_epi8(
		    x, _mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
	if (n == 8)
		return _mm_shuffle_epi8(
		    x, _mm_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14));
	return _mm_or_si128(_mm_slli_epi32(x, n), _mm_srli_epi32(x, 32 - n));
}

static CH_TARGET inline __m256i rot256(__m256i x, int n)
{
	if (n == 16)
		return _mm256_shuffle_epi8(x, _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
							       14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4,
							       5, 10, 11, 8, 9, 14, 15, 12, 13));
	if (n == 8)
		return _mm256_shuffle_epi8(x, _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10,
							       15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5,
							       6, 11, 8, 9, 10, 15, 12, 13, 14));
	return _mm256_or_si256(_mm256_slli_epi32(x, n), _mm256_srli_epi32(x, 32 - n));
}
#define CH_ROT128(x, n) rot128(x, n)
#define CH_ROT256(x, n) rot256(x, n)

#include "chacha20_simd.h"

CH_TARGET void zinc_chacha20_avx2(uint32_t st[16], uint8_t *dst, const uint8_t *src, size_t len)
{
	/* One block: the scalar code (four independent quarter rounds, 1-cycle
	 * integer ops) beats computing four blocks in vectors and using one. */
	if (len <= 64) {
		zinc_chacha20_generic(st, dst, src, len);
		return;
	}
	while (len >= 512) {
		chacha20_8x(st, dst, src);
		st[12] += 8;
		dst += 512;
		src += 512;
		len -= 512;
	}
	if (len >= 256) {
		chacha20_4x(st, dst, src);
		st[12] += 4;
		dst += 256;
		src += 256;
		len -= 256;
	}
	if (len)
		CH_TAIL(chacha20_4x, 256, st, dst, src, len);
}
#endif
