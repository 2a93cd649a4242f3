// SPDX-License-Identifier: MIT
/* Poly1305, four blocks in parallel in AVX2 registers (radix 2^26), for the
 * bulk of long AEAD messages. See poly1305_x86.h for the lane layout. */
#if defined(__x86_64__)
#include <immintrin.h>

#include <zinc/memzero.h>

#include "poly1305_x86.h"

#define TGT __attribute__((target("avx2")))
#define M26 0x3ffffffULL

/* d = a * r (lane-wise), r given as limbs r[j] and 5 * r[j]. */
#define MUL5(d, a, r, s)                                                                           \
	do {                                                                                       \
		d##0 = _mm256_add_epi64(                                                           \
		    _mm256_add_epi64(_mm256_mul_epu32(a##0, r##0), _mm256_mul_epu32(a##1, s##4)),  \
		    _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a##2, s##3),                \
						      _mm256_mul_epu32(a##3, s##2)),               \
				     _mm256_mul_epu32(a##4, s##1)));                               \
		d##1 = _mm256_add_epi64(                                                           \
		    _mm256_add_epi64(_mm256_mul_epu32(a##0, r##1), _mm256_mul_epu32(a##1, r##0)),  \
		    _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a##2, s##4),                \
						      _mm256_mul_epu32(a##3, s##3)),               \
				     _mm256_mul_epu32(a##4, s##2)));                               \
		d##2 = _mm256_add_epi64(                                                           \
		    _mm256_add_epi64(_mm256_mul_epu32(a##0, r##2), _mm256_mul_epu32(a##1, r##1)),  \
		    _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a##2, r##0),                \
						      _mm256_mul_epu32(a##3, s##4)),               \
				     _mm256_mul_epu32(a##4, s##3)));                               \
		d##3 = _mm256_add_epi64(                                                           \
		    _mm256_add_epi64(_mm256_mul_epu32(a##0, r##3), _mm256_mul_epu32(a##1, r##2)),  \
		    _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a##2, r##1),                \
						      _mm256_mul_epu32(a##3, r##0)),               \
				     _mm256_mul_epu32(a##4, s##4)));                               \
		d##4 = _mm256_add_epi64(                                                           \
		    _mm256_add_epi64(_mm256_mul_epu32(a##0, r##4), _mm256_mul_epu32(a##1, r##3)),  \
		    _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a##2, r##2),                \
						      _mm256_mul_epu32(a##3, r##1)),               \
				     _mm256_mul_epu32(a##4, r##0)));                               \
	} while (0)

/* Lazy carry: every limb ends below 2^26 plus a little. */
#define CARRY(d, mask)                                                                             \
	do {                                                                                       \
		__m256i c_;                                                                        \
		c_ = _mm256_srli_epi64(d##3, 26);                                                  \
		d##3 = _mm256_and_si256(d##3, mask);                                               \
		d##4 = _mm256_add_epi64(d##4, c_);                                                 \
		c_ = _mm256_srli_epi64(d##0, 26);                                                  \
		d##0 = _mm256_and_si256(d##0, mask);                                               \
		d##1 = _mm256_add_epi64(d##1, c_);                                                 \
		c_ = _mm256_srli_epi64(d##4, 26);                                                  \
		d##4 = _mm256_and_si256(d##4, mask);                                               \
		d##0 = _mm256_add_epi64(d##0, _mm256_add_epi64(c_, _mm256_slli_epi64(c_, 2)));     \
		c_ = _mm256_srli_epi64(d##1, 26);                                                  \
		d##1 = _mm256_and_si256(d##1, mask);                                               \
		d##2 = _mm256_add_epi64(d##2, c_);                                                 \
		c_ = _mm256_srli_epi64(d##0, 26);                                                  \
		d##0 = _mm256_and_si256(d##0, mask);                                               \
		d##1 = _mm256_add_epi64(d##1, c_);                                                 \
		c_ = _mm256_srli_epi64(d##2, 26);                                                  \
		d##2 = _mm256_and_si256(d##2, mask);                                               \
		d##3 = _mm256_add_epi64(d##3, c_);                                                 \
		c_ = _mm256_srli_epi64(d##3, 26);                                                  \
		d##3 = _mm256_and_si256(d##3, mask);                                               \
		d##4 = _mm256_add_epi64(d##4, c_);                                                 \
	} while (0)

/* Adds blocks 0..3 at m into lanes (0, 2, 1, 3): the unpacks leave them in
 * that order and the final powers follow it, which saves two permutes. */
#define ADD_MSG(a, m, mask)                                                                        \
	do {                                                                                       \
		__m256i b0_ = _mm256_loadu_si256((const __m256i *)(const void *)(m));              \
		__m256i b1_ = _mm256_loadu_si256((const __m256i *)(const void *)((m) + 32));       \
		__m256i lo_ = _mm256_unpacklo_epi64(b0_, b1_);                                     \
		__m256i hi_ = _mm256_unpackhi_epi64(b0_, b1_);                                     \
		a##0 = _mm256_add_epi64(a##0, _mm256_and_si256(lo_, mask));                        \
		a##1 = _mm256_add_epi64(a##1, _mm256_and_si256(_mm256_srli_epi64(lo_, 26), mask)); \
		a##2 = _mm256_add_epi64(                                                           \
		    a##2, _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(lo_, 52),             \
							   _mm256_slli_epi64(hi_, 12)),            \
					   mask));                                                 \
		a##3 = _mm256_add_epi64(a##3, _mm256_and_si256(_mm256_srli_epi64(hi_, 14), mask)); \
		a##4 = _mm256_add_epi64(a##4, _mm256_or_si256(_mm256_srli_epi64(hi_, 40),          \
							      _mm256_set1_epi64x(1 << 24)));       \
	} while (0)

TGT void zinc_poly1305_avx2_blocks(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks)
{
	const __m256i mask = _mm256_set1_epi64x(M26);
	__m256i a0, a1, a2, a3, a4, d0, d1, d2, d3, d4;
	__m256i r0, r1, r2, r3, r4, s1, s2, s3, s4;
	int first = !p->vec_started;

	if (!nblocks)
		return;
	if (first)
		zinc_poly1305_vec_start(p, 4);
	a0 = _mm256_loadu_si256((const __m256i *)(const void *)p->acc[0]);
	a1 = _mm256_loadu_si256((const __m256i *)(const void *)p->acc[1]);
	a2 = _mm256_loadu_si256((const __m256i *)(const void *)p->acc[2]);
	a3 = _mm256_loadu_si256((const __m256i *)(const void *)p->acc[3]);
	a4 = _mm256_loadu_si256((const __m256i *)(const void *)p->acc[4]);
	r0 = _mm256_set1_epi64x(p->rpow[3][0]);
	r1 = _mm256_set1_epi64x(p->rpow[3][1]);
	r2 = _mm256_set1_epi64x(p->rpow[3][2]);
	r3 = _mm256_set1_epi64x(p->rpow[3][3]);
	r4 = _mm256_set1_epi64x(p->rpow[3][4]);
	s1 = _mm256_set1_epi64x(5 * (uint64_t)p->rpow[3][1]);
	s2 = _mm256_set1_epi64x(5 * (uint64_t)p->rpow[3][2]);
	s3 = _mm256_set1_epi64x(5 * (uint64_t)p->rpow[3][3]);
	s4 = _mm256_set1_epi64x(5 * (uint64_t)p->rpow[3][4]);

	if (first) {
		ADD_MSG(a, m, mask);
		m += 64;
		nblocks -= 4;
	}
	while (nblocks) {
		MUL5(d, a, r, s);
		CARRY(d, mask);
		a0 = d0;
		a1 = d1;
		a2 = d2;
		a3 = d3;
		a4 = d4;
		ADD_MSG(a, m, mask);
		m += 64;
		nblocks -= 4;
	}
	_mm256_storeu_si256((__m256i *)(void *)p->acc[0], a0);
	_mm256_storeu_si256((__m256i *)(void *)p->acc[1], a1);
	_mm256_storeu_si256((__m256i *)(void *)p->acc[2], a2);
	_mm256_storeu_si256((__m256i *)(void *)p->acc[3], a3);
	_mm256_storeu_si256((__m256i *)(void *)p->acc[4], a4);
}

/* Lane i holds the blocks that still need r^(4 - position): lanes
 * (0, 1, 2, 3) took blocks (4k, 4k+2, 4k+1, 4k+3). */
TGT void zinc_poly1305_avx2_finish(struct poly1305_x86 *p)
{
	const __m256i mask = _mm256_set1_epi64x(M26);
	__m256i a0, a1, a2, a3, a4, d0, d1, d2, d3, d4;
	__m256i r0, r1, r2, r3, r4, s1, s2, s3, s4;
	uint64_t l[5], lane[4];

	if (!p->vec_started)
		return;
#define POW(j) _mm256_set_epi64x(p->rpow[0][j], p->rpow[2][j], p->rpow[1][j], p->rpow[3][j])
	a0 = _mm256_loadu_si256((const __m256i *)(const void *)p->acc[0]);
	a1 = _mm256_loadu_si256((const __m256i *)(const void *)p->acc[1]);
	a2 = _mm256_loadu_si256((const __m256i *)(const void *)p->acc[2]);
	a3 = _mm256_loadu_si256((const __m256i *)(const void *)p->acc[3]);
	a4 = _mm256_loadu_si256((const __m256i *)(const void *)p->acc[4]);
	r0 = POW(0);
	r1 = POW(1);
	r2 = POW(2);
	r3 = POW(3);
	r4 = POW(4);
#undef POW
	s1 = _mm256_add_epi64(r1, _mm256_slli_epi64(r1, 2));
	s2 = _mm256_add_epi64(r2, _mm256_slli_epi64(r2, 2));
	s3 = _mm256_add_epi64(r3, _mm256_slli_epi64(r3, 2));
	s4 = _mm256_add_epi64(r4, _mm256_slli_epi64(r4, 2));
	MUL5(d, a, r, s);
	CARRY(d, mask);
#define HSUM(j, v)                                                                                 \
	do {                                                                                       \
		_mm256_storeu_si256((__m256i *)(void *)lane, v);                                   \
		l[j] = lane[0] + lane[1] + lane[2] + lane[3];                                      \
	} while (0)
	HSUM(0, d0);
	HSUM(1, d1);
	HSUM(2, d2);
	HSUM(3, d3);
	HSUM(4, d4);
#undef HSUM
	zinc_poly1305_vec_fold(p, l);
}
#endif
