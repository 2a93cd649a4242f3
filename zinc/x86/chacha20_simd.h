/* ChaCha20 multi-block kernels, "vertical" layout: vector register i holds
 * state word i of 4 (xmm) or 8 (ymm) consecutive blocks, so one quarter round
 * runs on all blocks at once and only the output needs a transpose.
 * Included by zinc/x86/chacha20_*.c after they define:
 *   CH_TARGET               function attribute (target ISA)
 *   CH_ROT128(x, n)         rotate left each 32-bit lane of an __m128i
 *   CH_ROT256(x, n)         the same for __m256i (only with CH_WITH_8X) */
#ifndef ZINC_X86_CHACHA20_SIMD_H
#define ZINC_X86_CHACHA20_SIMD_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define CH_QR(ADD, XOR, ROT, a, b, c, d)                                                           \
	do {                                                                                       \
		a = ADD(a, b);                                                                     \
		d = XOR(d, a);                                                                     \
		d = ROT(d, 16);                                                                    \
		c = ADD(c, d);                                                                     \
		b = XOR(b, c);                                                                     \
		b = ROT(b, 12);                                                                    \
		a = ADD(a, b);                                                                     \
		d = XOR(d, a);                                                                     \
		d = ROT(d, 8);                                                                     \
		c = ADD(c, d);                                                                     \
		b = XOR(b, c);                                                                     \
		b = ROT(b, 7);                                                                     \
	} while (0)

#define CH_DOUBLE_ROUND(ADD, XOR, ROT)                                                             \
	do {                                                                                       \
		CH_QR(ADD, XOR, ROT, x0, x4, x8, x12);                                             \
		CH_QR(ADD, XOR, ROT, x1, x5, x9, x13);                                             \
		CH_QR(ADD, XOR, ROT, x2, x6, x10, x14);                                            \
		CH_QR(ADD, XOR, ROT, x3, x7, x11, x15);                                            \
		CH_QR(ADD, XOR, ROT, x0, x5, x10, x15);                                            \
		CH_QR(ADD, XOR, ROT, x1, x6, x11, x12);                                            \
		CH_QR(ADD, XOR, ROT, x2, x7, x8, x13);                                             \
		CH_QR(ADD, XOR, ROT, x3, x4, x9, x14);                                             \
	} while (0)

/* Four words (one per block) -> four 16-byte rows, xored into dst. */
#define CH_OUT4(a, b, c, d, off)                                                                   \
	do {                                                                                       \
		__m128i t0 = _mm_unpacklo_epi32(a, b), t1 = _mm_unpackhi_epi32(a, b);              \
		__m128i t2 = _mm_unpacklo_epi32(c, d), t3 = _mm_unpackhi_epi32(c, d);              \
		CH_XOR16(dst + (off), src + (off), _mm_unpacklo_epi64(t0, t2));                    \
		CH_XOR16(dst + 64 + (off), src + 64 + (off), _mm_unpackhi_epi64(t0, t2));          \
		CH_XOR16(dst + 128 + (off), src + 128 + (off), _mm_unpacklo_epi64(t1, t3));        \
		CH_XOR16(dst + 192 + (off), src + 192 + (off), _mm_unpackhi_epi64(t1, t3));        \
	} while (0)

#define CH_XOR16(d, s, k)                                                                          \
	_mm_storeu_si128((__m128i *)(void *)(d),                                                   \
			 _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(s)), (k)))

#define CH_ADD128(a, b) _mm_add_epi32(a, b)
#define CH_XOR128(a, b) _mm_xor_si128(a, b)

/* 256 bytes: blocks st[12] .. st[12] + 3 (the caller advances st[12]). */
static CH_TARGET inline void chacha20_4x(const uint32_t st[16], uint8_t *dst, const uint8_t *src)
{
	const __m128i s0 = _mm_set1_epi32((int)st[0]), s1 = _mm_set1_epi32((int)st[1]);
	const __m128i s2 = _mm_set1_epi32((int)st[2]), s3 = _mm_set1_epi32((int)st[3]);
	const __m128i s4 = _mm_set1_epi32((int)st[4]), s5 = _mm_set1_epi32((int)st[5]);
	const __m128i s6 = _mm_set1_epi32((int)st[6]), s7 = _mm_set1_epi32((int)st[7]);
	const __m128i s8 = _mm_set1_epi32((int)st[8]), s9 = _mm_set1_epi32((int)st[9]);
	const __m128i s10 = _mm_set1_epi32((int)st[10]), s11 = _mm_set1_epi32((int)st[11]);
	const __m128i s12 = _mm_add_epi32(_mm_set1_epi32((int)st[12]), _mm_setr_epi32(0, 1, 2, 3));
	const __m128i s13 = _mm_set1_epi32((int)st[13]), s14 = _mm_set1_epi32((int)st[14]);
	const __m128i s15 = _mm_set1_epi32((int)st[15]);
	__m128i x0 = s0, x1 = s1, x2 = s2, x3 = s3, x4 = s4, x5 = s5, x6 = s6, x7 = s7;
	__m128i x8 = s8, x9 = s9, x10 = s10, x11 = s11, x12 = s12, x13 = s13, x14 = s14, x15 = s15;

	for (int i = 0; i < 10; i++)
		CH_DOUBLE_ROUND(CH_ADD128, CH_XOR128, CH_ROT128);

	x0 = _mm_add_epi32(x0, s0);
	x1 = _mm_add_epi32(x1, s1);
	x2 = _mm_add_epi32(x2, s2);
	x3 = _mm_add_epi32(x3, s3);
	x4 = _mm_add_epi32(x4, s4);
	x5 = _mm_add_epi32(x5, s5);
	x6 = _mm_add_epi32(x6, s6);
	x7 = _mm_add_epi32(x7, s7);
	x8 = _mm_add_epi32(x8, s8);
	x9 = _mm_add_epi32(x9, s9);
	x10 = _mm_add_epi32(x10, s10);
	x11 = _mm_add_epi32(x11, s11);
	x12 = _mm_add_epi32(x12, s12);
	x13 = _mm_add_epi32(x13, s13);
	x14 = _mm_add_epi32(x14, s14);
	x15 = _mm_add_epi32(x15, s15);
	CH_OUT4(x0, x1, x2, x3, 0);
	CH_OUT4(x4, x5, x6, x7, 16);
	CH_OUT4(x8, x9, x10, x11, 32);
	CH_OUT4(x12, x13, x14, x15, 48);
}

#ifdef CH_WITH_8X
#define CH_ADD256(a, b) _mm256_add_epi32(a, b)
#define CH_XOR256(a, b) _mm256_xor_si256(a, b)

/* The 32 bytes at offset pos; with CH_MASKED (AVX-512BW) only
 * those below len, by masked loads and stores, so a partial tail needs no
 * copy, and ANDed with keep (all ones, or zero for a forged message). */
#ifdef CH_MASKED
static CH_TARGET inline __mmask32 ch_mask32(size_t len, size_t pos)
{
	if (len <= pos)
		return 0;
	return len - pos >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << (len - pos)) - 1;
}

#define CH_XOR32(pos, k)                                                                           \
	do {                                                                                       \
		const __m256i k_ = _mm256_set1_epi64x((long long)keep);                            \
		if (len >= (pos) + 32) {                                                           \
			const __m256i s_ = _mm256_loadu_si256((const __m256i *)(src + (pos)));     \
			_mm256_storeu_si256((__m256i *)(dst + (pos)),                              \
					    _mm256_and_si256(_mm256_xor_si256(s_, (k)), k_));      \
		} else {                                                                           \
			const __mmask32 m_ = ch_mask32(len, pos);                                  \
			const __m256i s_ = _mm256_maskz_loadu_epi8(m_, src + (pos));               \
			_mm256_mask_storeu_epi8(dst + (pos), m_,                                   \
						_mm256_and_si256(_mm256_xor_si256(s_, (k)), k_));  \
		}                                                                                  \
	} while (0)
#else
#define CH_XOR32(pos, k)                                                                           \
	_mm256_storeu_si256(                                                                       \
	    (__m256i *)(void *)(dst + (pos)),                                                      \
	    _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(src + (pos))),     \
			     (k)))
#endif

/* Eight words i..i+7 of eight blocks -> 32 bytes (at off) of each block. */
#define CH_OUT8(a, b, c, d, e, f, g, h, off)                                                       \
	do {                                                                                       \
		__m256i t0 = _mm256_unpacklo_epi32(a, b), t1 = _mm256_unpackhi_epi32(a, b);        \
		__m256i t2 = _mm256_unpacklo_epi32(c, d), t3 = _mm256_unpackhi_epi32(c, d);        \
		__m256i t4 = _mm256_unpacklo_epi32(e, f), t5 = _mm256_unpackhi_epi32(e, f);        \
		__m256i t6 = _mm256_unpacklo_epi32(g, h), t7 = _mm256_unpackhi_epi32(g, h);        \
		__m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);    \
		__m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);    \
		__m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);    \
		__m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);    \
		CH_XOR32(0 * 64 + (off), _mm256_permute2x128_si256(u0, u4, 0x20));                 \
		CH_XOR32(1 * 64 + (off), _mm256_permute2x128_si256(u1, u5, 0x20));                 \
		CH_XOR32(2 * 64 + (off), _mm256_permute2x128_si256(u2, u6, 0x20));                 \
		CH_XOR32(3 * 64 + (off), _mm256_permute2x128_si256(u3, u7, 0x20));                 \
		CH_XOR32(4 * 64 + (off), _mm256_permute2x128_si256(u0, u4, 0x31));                 \
		CH_XOR32(5 * 64 + (off), _mm256_permute2x128_si256(u1, u5, 0x31));                 \
		CH_XOR32(6 * 64 + (off), _mm256_permute2x128_si256(u2, u6, 0x31));                 \
		CH_XOR32(7 * 64 + (off), _mm256_permute2x128_si256(u3, u7, 0x31));                 \
	} while (0)

/* 512 bytes: blocks st[12] .. st[12] + 7 (with CH_MASKED: the first len,
 * ANDed with keep). */
static CH_TARGET inline void chacha20_8x_len(const uint32_t st[16], uint8_t *dst,
					     const uint8_t *src, size_t len, uint64_t keep)
{
	const __m256i s0 = _mm256_set1_epi32((int)st[0]), s1 = _mm256_set1_epi32((int)st[1]);
	const __m256i s2 = _mm256_set1_epi32((int)st[2]), s3 = _mm256_set1_epi32((int)st[3]);
	const __m256i s4 = _mm256_set1_epi32((int)st[4]), s5 = _mm256_set1_epi32((int)st[5]);
	const __m256i s6 = _mm256_set1_epi32((int)st[6]), s7 = _mm256_set1_epi32((int)st[7]);
	const __m256i s8 = _mm256_set1_epi32((int)st[8]), s9 = _mm256_set1_epi32((int)st[9]);
	const __m256i s10 = _mm256_set1_epi32((int)st[10]), s11 = _mm256_set1_epi32((int)st[11]);
	const __m256i s12 = _mm256_add_epi32(_mm256_set1_epi32((int)st[12]),
					     _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
	const __m256i s13 = _mm256_set1_epi32((int)st[13]), s14 = _mm256_set1_epi32((int)st[14]);
	const __m256i s15 = _mm256_set1_epi32((int)st[15]);
	__m256i x0 = s0, x1 = s1, x2 = s2, x3 = s3, x4 = s4, x5 = s5, x6 = s6, x7 = s7;
	__m256i x8 = s8, x9 = s9, x10 = s10, x11 = s11, x12 = s12, x13 = s13, x14 = s14, x15 = s15;

	for (int i = 0; i < 10; i++)
		CH_DOUBLE_ROUND(CH_ADD256, CH_XOR256, CH_ROT256);

	x0 = _mm256_add_epi32(x0, s0);
	x1 = _mm256_add_epi32(x1, s1);
	x2 = _mm256_add_epi32(x2, s2);
	x3 = _mm256_add_epi32(x3, s3);
	x4 = _mm256_add_epi32(x4, s4);
	x5 = _mm256_add_epi32(x5, s5);
	x6 = _mm256_add_epi32(x6, s6);
	x7 = _mm256_add_epi32(x7, s7);
	CH_OUT8(x0, x1, x2, x3, x4, x5, x6, x7, 0);
	x8 = _mm256_add_epi32(x8, s8);
	x9 = _mm256_add_epi32(x9, s9);
	x10 = _mm256_add_epi32(x10, s10);
	x11 = _mm256_add_epi32(x11, s11);
	x12 = _mm256_add_epi32(x12, s12);
	x13 = _mm256_add_epi32(x13, s13);
	x14 = _mm256_add_epi32(x14, s14);
	x15 = _mm256_add_epi32(x15, s15);
	CH_OUT8(x8, x9, x10, x11, x12, x13, x14, x15, 32);
	(void)len;
	(void)keep;
}

static CH_TARGET inline void chacha20_8x(const uint32_t st[16], uint8_t *dst, const uint8_t *src)
{
	chacha20_8x_len(st, dst, src, 512, ~(uint64_t)0);
}
#endif

/* Partial tail (< 4 blocks when only 4x exists): the kernel runs on a
 * zero-padded copy; the buffer is wiped since it holds spare keystream. */
#define CH_TAIL(kernel, bufsize, st, dst, src, len)                                                \
	do {                                                                                       \
		uint8_t buf_[bufsize];                                                             \
		memset(buf_, 0, sizeof(buf_));                                                     \
		memcpy(buf_, src, len);                                                            \
		kernel(st, buf_, buf_);                                                            \
		memcpy(dst, buf_, len);                                                            \
		st[12] += (uint32_t)((len + 63) / 64);                                             \
		zinc_memzero(buf_, sizeof(buf_));                                                  \
	} while (0)

#endif
