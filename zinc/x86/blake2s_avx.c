// SPDX-License-Identifier: MIT
/* BLAKE2s compression, AVX (VEX three-operand forms). */
#if defined(__x86_64__)
#include <immintrin.h>

#define B2_TARGET __attribute__((target("avx")))
#define B2_NAME zinc_blake2s_compress_avx
#define B2_FINAL_NAME zinc_blake2s_compress_final_avx

/* 16 and 8 are byte shuffles; 12 and 7 need two shifts. */
static B2_TARGET inline __m128i b2_rot(__m128i x, int n)
{
	if (n == 16)
		return _mm_shuffle_epi8(
		    x, _mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
	if (n == 8)
		return _mm_shuffle_epi8(
		    x, _mm_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12));
	return _mm_or_si128(_mm_srli_epi32(x, n), _mm_slli_epi32(x, 32 - n));
}
#define B2_ROT(x, n) b2_rot(x, n)

#include "blake2s_simd.h"
#endif
