// SPDX-License-Identifier: MIT
/* Poly1305, sixteen blocks in parallel in AVX-512 registers (radix 2^26):
 * poly1305_avx2.c with two independent sets of eight lanes (a: blocks
 * 16k..16k+7, b: 16k+8..16k+15), so the multiply-carry chains of the two
 * overlap, and r^16 per step. */
#if defined(__x86_64__)
#include <immintrin.h>

#include <zinc/memzero.h>

#include "poly1305_x86.h"

#define TGT __attribute__((target("avx512f")))
#define M26 0x3ffffffULL

/* d = a * r (lane-wise), r given as limbs r[j] and 5 * r[j]. */
#define MUL5(d, a, r, s)                                                                           \
	do {                                                                                       \
		d##0 = _mm512_add_epi64(                                                           \
		    _mm512_add_epi64(_mm512_mul_epu32(a##0, r##0), _mm512_mul_epu32(a##1, s##4)),  \
		    _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(a##2, s##3),                \
						      _mm512_mul_epu32(a##3, s##2)),               \
				     _mm512_mul_epu32(a##4, s##1)));                               \
		d##1 = _mm512_add_epi64(                                                           \
		    _mm512_add_epi64(_mm512_mul_epu32(a##0, r##1), _mm512_mul_epu32(a##1, r##0)),  \
		    _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(a##2, s##4),                \
						      _mm512_mul_epu32(a##3, s##3)),               \
				     _mm512_mul_epu32(a##4, s##2)));                               \
		d##2 = _mm512_add_epi64(                                                           \
		    _mm512_add_epi64(_mm512_mul_epu32(a##0, r##2), _mm512_mul_epu32(a##1, r##1)),  \
		    _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(a##2, r##0),                \
						      _mm512_mul_epu32(a##3, s##4)),               \
				     _mm512_mul_epu32(a##4, s##3)));                               \
		d##3 = _mm512_add_epi64(                                                           \
		    _mm512_add_epi64(_mm512_mul_epu32(a##0, r##3), _mm512_mul_epu32(a##1, r##2)),  \
		    _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(a##2, r##1),                \
						      _mm512_mul_epu32(a##3, r##0)),               \
				     _mm512_mul_epu32(a##4, s##4)));                               \
		d##4 = _mm512_add_epi64(                                                           \
		    _mm512_add_epi64(_mm512_mul_epu32(a##0, r##4), _mm512_mul_epu32(a##1, r##3)),  \
		    _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(a##2, r##2),                \
						      _mm512_mul_epu32(a##3, r##1)),               \
				     _mm512_mul_epu32(a##4, r##0)));                               \
	} while (0)

/* Lazy carry: every limb ends below 2^26 plus a little. */
#define CARRY(d, mask)                                                                             \
	do {                                                                                       \
		__m512i c_;                                                                        \
		c_ = _mm512_srli_epi64(d##3, 26);                                                  \
		d##3 = _mm512_and_si512(d##3, mask);                                               \
		d##4 = _mm512_add_epi64(d##4, c_);                                                 \
		c_ = _mm512_srli_epi64(d##0, 26);                                                  \
		d##0 = _mm512_and_si512(d##0, mask);                                               \
		d##1 = _mm512_add_epi64(d##1, c_);                                                 \
		c_ = _mm512_srli_epi64(d##4, 26);                                                  \
		d##4 = _mm512_and_si512(d##4, mask);                                               \
		d##0 = _mm512_add_epi64(d##0, _mm512_add_epi64(c_, _mm512_slli_epi64(c_, 2)));     \
		c_ = _mm512_srli_epi64(d##1, 26);                                                  \
		d##1 = _mm512_and_si512(d##1, mask);                                               \
		d##2 = _mm512_add_epi64(d##2, c_);                                                 \
		c_ = _mm512_srli_epi64(d##0, 26);                                                  \
		d##0 = _mm512_and_si512(d##0, mask);                                               \
		d##1 = _mm512_add_epi64(d##1, c_);                                                 \
		c_ = _mm512_srli_epi64(d##2, 26);                                                  \
		d##2 = _mm512_and_si512(d##2, mask);                                               \
		d##3 = _mm512_add_epi64(d##3, c_);                                                 \
		c_ = _mm512_srli_epi64(d##3, 26);                                                  \
		d##3 = _mm512_and_si512(d##3, mask);                                               \
		d##4 = _mm512_add_epi64(d##4, c_);                                                 \
	} while (0)

/* Adds blocks 0..7 at m into lanes in the order (0, 4, 1, 5, 2, 6, 3, 7),
 * which is how the unpacks leave them; the final powers follow it. */
#define ADD_MSG(a, m, mask)                                                                        \
	do {                                                                                       \
		__m512i b0_ = _mm512_loadu_si512((const void *)(m));                               \
		__m512i b1_ = _mm512_loadu_si512((const void *)((m) + 64));                        \
		__m512i lo_ = _mm512_unpacklo_epi64(b0_, b1_);                                     \
		__m512i hi_ = _mm512_unpackhi_epi64(b0_, b1_);                                     \
		a##0 = _mm512_add_epi64(a##0, _mm512_and_si512(lo_, mask));                        \
		a##1 = _mm512_add_epi64(a##1, _mm512_and_si512(_mm512_srli_epi64(lo_, 26), mask)); \
		a##2 = _mm512_add_epi64(                                                           \
		    a##2, _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo_, 52),             \
							   _mm512_slli_epi64(hi_, 12)),            \
					   mask));                                                 \
		a##3 = _mm512_add_epi64(a##3, _mm512_and_si512(_mm512_srli_epi64(hi_, 14), mask)); \
		a##4 = _mm512_add_epi64(a##4, _mm512_or_si512(_mm512_srli_epi64(hi_, 40),          \
							      _mm512_set1_epi64(1 << 24)));        \
	} while (0)

#define LOAD5(a, k)                                                                                \
	do {                                                                                       \
		a##0 = _mm512_loadu_si512((const void *)&p->acc[0][k]);                            \
		a##1 = _mm512_loadu_si512((const void *)&p->acc[1][k]);                            \
		a##2 = _mm512_loadu_si512((const void *)&p->acc[2][k]);                            \
		a##3 = _mm512_loadu_si512((const void *)&p->acc[3][k]);                            \
		a##4 = _mm512_loadu_si512((const void *)&p->acc[4][k]);                            \
	} while (0)

#define STORE5(a, k)                                                                               \
	do {                                                                                       \
		_mm512_storeu_si512((void *)&p->acc[0][k], a##0);                                  \
		_mm512_storeu_si512((void *)&p->acc[1][k], a##1);                                  \
		_mm512_storeu_si512((void *)&p->acc[2][k], a##2);                                  \
		_mm512_storeu_si512((void *)&p->acc[3][k], a##3);                                  \
		_mm512_storeu_si512((void *)&p->acc[4][k], a##4);                                  \
	} while (0)

TGT void zinc_poly1305_avx512_blocks(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks)
{
	const __m512i mask = _mm512_set1_epi64(M26);
	__m512i a0, a1, a2, a3, a4, b0, b1, b2, b3, b4, d0, d1, d2, d3, d4, e0, e1, e2, e3, e4;
	__m512i r0, r1, r2, r3, r4, s1, s2, s3, s4;
	int first = !p->vec_started;

	if (!nblocks)
		return;
	if (first)
		zinc_poly1305_vec_start(p, 16);
	LOAD5(a, 0);
	LOAD5(b, 8);
	r0 = _mm512_set1_epi64(p->rpow[15][0]);
	r1 = _mm512_set1_epi64(p->rpow[15][1]);
	r2 = _mm512_set1_epi64(p->rpow[15][2]);
	r3 = _mm512_set1_epi64(p->rpow[15][3]);
	r4 = _mm512_set1_epi64(p->rpow[15][4]);
	s1 = _mm512_set1_epi64(5 * (uint64_t)p->rpow[15][1]);
	s2 = _mm512_set1_epi64(5 * (uint64_t)p->rpow[15][2]);
	s3 = _mm512_set1_epi64(5 * (uint64_t)p->rpow[15][3]);
	s4 = _mm512_set1_epi64(5 * (uint64_t)p->rpow[15][4]);

	if (first) {
		ADD_MSG(a, m, mask);
		ADD_MSG(b, m + 128, mask);
		m += 256;
		nblocks -= 16;
	}
	while (nblocks) {
		MUL5(d, a, r, s);
		MUL5(e, b, r, s);
		CARRY(d, mask);
		CARRY(e, mask);
		a0 = d0;
		a1 = d1;
		a2 = d2;
		a3 = d3;
		a4 = d4;
		b0 = e0;
		b1 = e1;
		b2 = e2;
		b3 = e3;
		b4 = e4;
		ADD_MSG(a, m, mask);
		ADD_MSG(b, m + 128, mask);
		m += 256;
		nblocks -= 16;
	}
	STORE5(a, 0);
	STORE5(b, 8);
}

/* Lane i of a set holds blocks that still need r^(16 - position) (set a)
 * or r^(8 - position) (set b); positions per lane are 0, 4, 1, 5, 2, 6, 3, 7. */
TGT void zinc_poly1305_avx512_finish(struct poly1305_x86 *p)
{
	const __m512i mask = _mm512_set1_epi64(M26);
	__m512i a0, a1, a2, a3, a4, b0, b1, b2, b3, b4, d0, d1, d2, d3, d4, e0, e1, e2, e3, e4;
	__m512i r0, r1, r2, r3, r4, s1, s2, s3, s4;
	__m512i q0, q1, q2, q3, q4, t1, t2, t3, t4;
	uint64_t l[5];

	if (!p->vec_started)
		return;
#define POW(o, j)                                                                                  \
	_mm512_set_epi64(p->rpow[o + 0][j], p->rpow[o + 4][j], p->rpow[o + 1][j],                  \
			 p->rpow[o + 5][j], p->rpow[o + 2][j], p->rpow[o + 6][j],                  \
			 p->rpow[o + 3][j], p->rpow[o + 7][j])
	LOAD5(a, 0);
	LOAD5(b, 8);
	r0 = POW(8, 0);
	r1 = POW(8, 1);
	r2 = POW(8, 2);
	r3 = POW(8, 3);
	r4 = POW(8, 4);
	q0 = POW(0, 0);
	q1 = POW(0, 1);
	q2 = POW(0, 2);
	q3 = POW(0, 3);
	q4 = POW(0, 4);
#undef POW
	s1 = _mm512_add_epi64(r1, _mm512_slli_epi64(r1, 2));
	s2 = _mm512_add_epi64(r2, _mm512_slli_epi64(r2, 2));
	s3 = _mm512_add_epi64(r3, _mm512_slli_epi64(r3, 2));
	s4 = _mm512_add_epi64(r4, _mm512_slli_epi64(r4, 2));
	t1 = _mm512_add_epi64(q1, _mm512_slli_epi64(q1, 2));
	t2 = _mm512_add_epi64(q2, _mm512_slli_epi64(q2, 2));
	t3 = _mm512_add_epi64(q3, _mm512_slli_epi64(q3, 2));
	t4 = _mm512_add_epi64(q4, _mm512_slli_epi64(q4, 2));
	MUL5(d, a, r, s);
	MUL5(e, b, q, t);
	CARRY(d, mask);
	CARRY(e, mask);
	l[0] = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(d0, e0));
	l[1] = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(d1, e1));
	l[2] = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(d2, e2));
	l[3] = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(d3, e3));
	l[4] = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(d4, e4));
	zinc_poly1305_vec_fold(p, l);
}
#endif
