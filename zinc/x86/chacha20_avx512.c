// SPDX-License-Identifier: MIT
/* ChaCha20, sixteen blocks at a time in AVX-512 registers; the 8- and
 * 4-block tails use the AVX-512VL forms, whose vprold replaces the
 * shift-shift-or rotates. Partial 16- and 8-block tails read and write
 * only their bytes with AVX-512BW masks instead of going through a copy. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"

#define CH_TARGET __attribute__((target("avx2,avx512f,avx512vl,avx512bw")))
#define CH_WITH_8X
#define CH_MASKED
#define CH_ROT128(x, n) _mm_rol_epi32(x, n)
#define CH_ROT256(x, n) _mm256_rol_epi32(x, n)

#include "chacha20_simd.h"

#define CH_ADD512(a, b) _mm512_add_epi32(a, b)
#define CH_XOR512(a, b) _mm512_xor_si512(a, b)
#define CH_ROT512(x, n) _mm512_rol_epi32(x, n)

/* The 64 bytes at offset pos, or those of them below len, ANDed with keep. */
#define CH_XOR64(pos, k)                                                                           \
	do {                                                                                       \
		const __m512i k_ = _mm512_set1_epi64((long long)keep);                             \
		if (len >= (pos) + 64) {                                                           \
			const __m512i s_ = _mm512_loadu_si512((const void *)(src + (pos)));        \
			_mm512_storeu_si512((void *)(dst + (pos)),                                 \
					    _mm512_and_si512(_mm512_xor_si512(s_, (k)), k_));      \
		} else if (len > (pos)) {                                                          \
			const __mmask64 m_ = ((__mmask64)1 << (len - (pos))) - 1;                  \
			const __m512i s_ = _mm512_maskz_loadu_epi8(m_, src + (pos));               \
			_mm512_mask_storeu_epi8(dst + (pos), m_,                                   \
						_mm512_and_si512(_mm512_xor_si512(s_, (k)), k_));  \
		}                                                                                  \
	} while (0)

/* Words 4g..4g+3 of 16 blocks -> o[j] holds, in 128-bit lane k, those words
 * of block 4k + j. */
#define CH_T4(a, b, c, d, o)                                                                       \
	do {                                                                                       \
		__m512i t0 = _mm512_unpacklo_epi32(a, b), t1 = _mm512_unpackhi_epi32(a, b);        \
		__m512i t2 = _mm512_unpacklo_epi32(c, d), t3 = _mm512_unpackhi_epi32(c, d);        \
		o[0] = _mm512_unpacklo_epi64(t0, t2);                                              \
		o[1] = _mm512_unpackhi_epi64(t0, t2);                                              \
		o[2] = _mm512_unpacklo_epi64(t1, t3);                                              \
		o[3] = _mm512_unpackhi_epi64(t1, t3);                                              \
	} while (0)

/* Block b's keystream ks out: XORed into dst, or with k0 (the AEAD's first
 * call) block 0 is the Poly1305 key into k0 and block b the data block b - 1. */
#define CH_OUT64(b, ks)                                                                            \
	do {                                                                                       \
		if (k0 && (b) == 0)                                                                \
			_mm512_storeu_si512((void *)k0, (ks));                                     \
		else                                                                               \
			CH_XOR64(64 * (size_t)((b) - !!k0), (ks));                                 \
	} while (0)

/* 1024 bytes: blocks st[12] .. st[12] + 15 (with k0: 64 + 960), of which
 * len bytes of data are read and written, ANDed with keep. */
static CH_TARGET inline void chacha20_16x_k0(const uint32_t st[16], uint8_t *k0, uint8_t *dst,
					     const uint8_t *src, size_t len, uint64_t keep)
{
	const __m512i ctr = _mm512_add_epi32(
	    _mm512_set1_epi32((int)st[12]),
	    _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
	__m512i x0 = _mm512_set1_epi32((int)st[0]), x1 = _mm512_set1_epi32((int)st[1]);
	__m512i x2 = _mm512_set1_epi32((int)st[2]), x3 = _mm512_set1_epi32((int)st[3]);
	__m512i x4 = _mm512_set1_epi32((int)st[4]), x5 = _mm512_set1_epi32((int)st[5]);
	__m512i x6 = _mm512_set1_epi32((int)st[6]), x7 = _mm512_set1_epi32((int)st[7]);
	__m512i x8 = _mm512_set1_epi32((int)st[8]), x9 = _mm512_set1_epi32((int)st[9]);
	__m512i x10 = _mm512_set1_epi32((int)st[10]), x11 = _mm512_set1_epi32((int)st[11]);
	__m512i x12 = ctr, x13 = _mm512_set1_epi32((int)st[13]);
	__m512i x14 = _mm512_set1_epi32((int)st[14]), x15 = _mm512_set1_epi32((int)st[15]);
	__m512i o[4][4];

	for (int i = 0; i < 10; i++)
		CH_DOUBLE_ROUND(CH_ADD512, CH_XOR512, CH_ROT512);

#define FEED(i) x##i = _mm512_add_epi32(x##i, _mm512_set1_epi32((int)st[i]))
	FEED(0);
	FEED(1);
	FEED(2);
	FEED(3);
	FEED(4);
	FEED(5);
	FEED(6);
	FEED(7);
	FEED(8);
	FEED(9);
	FEED(10);
	FEED(11);
	x12 = _mm512_add_epi32(x12, ctr);
	FEED(13);
	FEED(14);
	FEED(15);
#undef FEED
	CH_T4(x0, x1, x2, x3, o[0]);
	CH_T4(x4, x5, x6, x7, o[1]);
	CH_T4(x8, x9, x10, x11, o[2]);
	CH_T4(x12, x13, x14, x15, o[3]);
	/* A 4x4 transpose of 128-bit lanes per j gathers whole blocks. */
	for (int j = 0; j < 4; j++) {
		__m512i u0 = _mm512_shuffle_i32x4(o[0][j], o[1][j], 0x44);
		__m512i u1 = _mm512_shuffle_i32x4(o[0][j], o[1][j], 0xee);
		__m512i u2 = _mm512_shuffle_i32x4(o[2][j], o[3][j], 0x44);
		__m512i u3 = _mm512_shuffle_i32x4(o[2][j], o[3][j], 0xee);

		CH_OUT64(0 + j, _mm512_shuffle_i32x4(u0, u2, 0x88));
		CH_OUT64(4 + j, _mm512_shuffle_i32x4(u0, u2, 0xdd));
		CH_OUT64(8 + j, _mm512_shuffle_i32x4(u1, u3, 0x88));
		CH_OUT64(12 + j, _mm512_shuffle_i32x4(u1, u3, 0xdd));
	}
}

/* The AEAD's first 16 blocks without a copy: block 0 into k0, len (at
 * most 960) bytes of data from src to dst. */
CH_TARGET void zinc_chacha20_avx512_first(uint32_t st[16], uint8_t k0[64], uint8_t *dst,
					  const uint8_t *src, size_t len)
{
	chacha20_16x_k0(st, k0, dst, src, len, ~(uint64_t)0);
	st[12] += 16;
}

/* With masked, every tail goes through the masked kernels, which AND the
 * output with keep; otherwise short ones take the cheaper scalar and
 * 4-block code. */
static CH_TARGET inline void chacha20_any(uint32_t st[16], uint8_t *dst, const uint8_t *src,
					  size_t len, uint64_t keep, bool masked)
{
	/* One block: the scalar code (four independent quarter rounds, 1-cycle
	 * integer ops) beats computing four blocks in vectors and using one. */
	if (!masked && len <= 64) {
		zinc_chacha20_generic(st, dst, src, len);
		return;
	}
	while (len >= 1024) {
		chacha20_16x_k0(st, NULL, dst, src, 1024, keep);
		st[12] += 16;
		dst += 1024;
		src += 1024;
		len -= 1024;
	}
	if (len > 512)
		chacha20_16x_k0(st, NULL, dst, src, len, keep);
	else if (len > 256 || (masked && len))
		chacha20_8x_len(st, dst, src, len, keep);
	else if (len)
		CH_TAIL(chacha20_4x, 256, st, dst, src, len);
	if (len > 256 || masked)
		st[12] += (uint32_t)((len + 63) / 64);
}

CH_TARGET void zinc_chacha20_avx512(uint32_t st[16], uint8_t *dst, const uint8_t *src, size_t len)
{
	chacha20_any(st, dst, src, len, ~(uint64_t)0, false);
}

CH_TARGET void zinc_chacha20_avx512_keep(uint32_t st[16], uint8_t *dst, const uint8_t *src,
					 size_t len, uint64_t keep)
{
	chacha20_any(st, dst, src, len, keep, true);
}
#endif
