// SPDX-License-Identifier: MIT
/* Poly1305, sixteen blocks in parallel with AVX-512 IFMA: limbs of 44, 44
 * and 42 bits, products by 52-bit multiply-add (VPMADD52LUQ/HUQ give the
 * low and high 52 bits of each 104-bit product). Nine products per block
 * instead of the 25 of radix 2^26. Two sets of eight lanes, a (blocks
 * 16k..16k+7) and b (16k+8..16k+15), in the lane order of poly1305_avx512.c,
 * advance by r^16 per step. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include <zinc/memzero.h>

#include "poly1305_x86.h"

#define TGT __attribute__((target("avx512f,avx512ifma")))
#define M44 0xfffffffffffULL
#define M42 0x3ffffffffffULL

/* d = a * r mod 2^130 - 5, r given as limbs r0..r2 and s = 20 r (2^132 is
 * 20 mod p). The high halves weigh 2^52 = 2^44 * 2^8 more than the low
 * ones, so they join the next limb times 256; the top one wraps with
 * 20 * 2^8 = 5120. Those joins are multiply-adds too, which leaves the
 * shift and add units (busy with the carries, and with ChaCha20 in the
 * AEAD) three instructions fewer per product: 11% on long messages. They
 * are exact: with limbs in of at most 45, 45 and 42.6 bits (a carried
 * accumulator plus a block) and r limbs of 44.01 bits, each high-half sum
 * is below 2^40.3 (u0), 2^38.6 (u1) and 2^37.6 (u2), so 256 u0, 256 u1
 * and 5120 u2 stay below the 2^52 a multiply-add keeps. */
#define MUL3(d, a, r, s)                                                                           \
	do {                                                                                       \
		const __m512i z_ = _mm512_setzero_si512();                                         \
		__m512i l0_ = _mm512_madd52lo_epu64(z_, a##0, r##0);                               \
		__m512i l1_ = _mm512_madd52lo_epu64(z_, a##0, r##1);                               \
		__m512i l2_ = _mm512_madd52lo_epu64(z_, a##0, r##2);                               \
		__m512i u0_ = _mm512_madd52hi_epu64(z_, a##0, r##0);                               \
		__m512i u1_ = _mm512_madd52hi_epu64(z_, a##0, r##1);                               \
		__m512i u2_ = _mm512_madd52hi_epu64(z_, a##0, r##2);                               \
		l0_ = _mm512_madd52lo_epu64(l0_, a##1, s##2);                                      \
		l1_ = _mm512_madd52lo_epu64(l1_, a##1, r##0);                                      \
		l2_ = _mm512_madd52lo_epu64(l2_, a##1, r##1);                                      \
		u0_ = _mm512_madd52hi_epu64(u0_, a##1, s##2);                                      \
		u1_ = _mm512_madd52hi_epu64(u1_, a##1, r##0);                                      \
		u2_ = _mm512_madd52hi_epu64(u2_, a##1, r##1);                                      \
		l0_ = _mm512_madd52lo_epu64(l0_, a##2, s##1);                                      \
		l1_ = _mm512_madd52lo_epu64(l1_, a##2, s##2);                                      \
		l2_ = _mm512_madd52lo_epu64(l2_, a##2, r##0);                                      \
		u0_ = _mm512_madd52hi_epu64(u0_, a##2, s##1);                                      \
		u1_ = _mm512_madd52hi_epu64(u1_, a##2, s##2);                                      \
		u2_ = _mm512_madd52hi_epu64(u2_, a##2, r##0);                                      \
		d##0 = _mm512_madd52lo_epu64(l0_, u2_, _mm512_set1_epi64(5120));                   \
		d##1 = _mm512_madd52lo_epu64(l1_, u0_, _mm512_set1_epi64(256));                    \
		d##2 = _mm512_madd52lo_epu64(l2_, u1_, _mm512_set1_epi64(256));                    \
	} while (0)

/* Lazy carry: limbs end a little above 44, 44 and 42 bits, well inside
 * the 52 bits the multiply-add reads. */
#define CARRY3(d)                                                                                  \
	do {                                                                                       \
		const __m512i m44_ = _mm512_set1_epi64(M44), m42_ = _mm512_set1_epi64(M42);        \
		__m512i c0_ = _mm512_srli_epi64(d##0, 44), c2_ = _mm512_srli_epi64(d##2, 42);      \
		d##0 = _mm512_add_epi64(_mm512_and_si512(d##0, m44_),                              \
					_mm512_add_epi64(c2_, _mm512_slli_epi64(c2_, 2)));         \
		d##2 = _mm512_and_si512(d##2, m42_);                                               \
		d##1 = _mm512_add_epi64(d##1, c0_);                                                \
		c0_ = _mm512_srli_epi64(d##1, 44);                                                 \
		d##1 = _mm512_and_si512(d##1, m44_);                                               \
		d##2 = _mm512_add_epi64(d##2, c0_);                                                \
	} while (0)

/* Blocks 0..7 at m into lane order (0, 4, 1, 5, 2, 6, 3, 7), 2^128 only in
 * the lanes of hib (a bit per block): the zero blocks ahead of a tail. */
#define ADD_MSG3_MASKED(a, m, hib)                                                                 \
	do {                                                                                       \
		__mmask8 k_ = 0;                                                                   \
		for (int l_ = 0; l_ < 8; l_++)                                                     \
			k_ |= (__mmask8)(((hib) >> ((l_ & 1) * 4 + (l_ >> 1)) & 1) << l_);         \
		const __m512i m44_ = _mm512_set1_epi64(M44);                                       \
		__m512i b0_ = _mm512_loadu_si512((const void *)(m));                               \
		__m512i b1_ = _mm512_loadu_si512((const void *)((m) + 64));                        \
		__m512i lo_ = _mm512_unpacklo_epi64(b0_, b1_);                                     \
		__m512i hi_ = _mm512_unpackhi_epi64(b0_, b1_);                                     \
		a##0 = _mm512_add_epi64(a##0, _mm512_and_si512(lo_, m44_));                        \
		a##1 = _mm512_add_epi64(                                                           \
		    a##1, _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo_, 44),             \
							   _mm512_slli_epi64(hi_, 20)),            \
					   m44_));                                                 \
		a##2 = _mm512_add_epi64(                                                           \
		    a##2,                                                                          \
		    _mm512_or_si512(_mm512_srli_epi64(hi_, 24),                                    \
				    _mm512_maskz_mov_epi64(k_, _mm512_set1_epi64(1ULL << 40))));   \
	} while (0)
#define ADD_MSG3(a, m) ADD_MSG3_MASKED(a, m, 0xffu)

#define LOAD3(a, k)                                                                                \
	do {                                                                                       \
		a##0 = _mm512_loadu_si512((const void *)&p->acc[0][k]);                            \
		a##1 = _mm512_loadu_si512((const void *)&p->acc[1][k]);                            \
		a##2 = _mm512_loadu_si512((const void *)&p->acc[2][k]);                            \
	} while (0)

#define STORE3(a, k)                                                                               \
	do {                                                                                       \
		_mm512_storeu_si512((void *)&p->acc[0][k], a##0);                                  \
		_mm512_storeu_si512((void *)&p->acc[1][k], a##1);                                  \
		_mm512_storeu_si512((void *)&p->acc[2][k], a##2);                                  \
	} while (0)

/* 20 x (2^132 is 20 mod p): the s limbs MUL3 takes for r. */
static TGT inline __m512i times20(__m512i x)
{
	return _mm512_add_epi64(_mm512_slli_epi64(x, 4), _mm512_slli_epi64(x, 2));
}

/* Limb j of r^(i + 1) in lane i < 4, 0 above: from the scalar powers. */
static TGT inline __m512i low_powers(const uint64_t (*pw)[3], int j)
{
	return _mm512_inserti64x4(_mm512_setzero_si512(),
				  _mm256_set_epi64x((long long)pw[3][j], (long long)pw[2][j],
						    (long long)pw[1][j], (long long)pw[0][j]),
				  0);
}

/* x * splat of lane n - 1 of r (its limbs r0..r2): lanes (r^1..r^n) times
 * r^n give r^(n + 1)..r^(2n). */
#define TIMES_LANE(d, a, v, n)                                                                     \
	do {                                                                                       \
		const __m512i k_ = _mm512_set1_epi64((n)-1);                                       \
		__m512i r0 = _mm512_permutexvar_epi64(k_, v##0);                                   \
		__m512i r1 = _mm512_permutexvar_epi64(k_, v##1);                                   \
		__m512i r2 = _mm512_permutexvar_epi64(k_, v##2);                                   \
		__m512i s1 = times20(r1);                                                          \
		__m512i s2 = times20(r2);                                                          \
		MUL3(d, a, r, s);                                                                  \
		CARRY3(d);                                                                         \
	} while (0)

/* Lanes 0..7 of the limb vectors x0..x2 as rpow44[o..o + 7] (limb j of
 * power i at word 3i + j): three interleaving permutes per 64 bytes. */
static TGT inline void store_powers(struct poly1305_x86 *p, int o, __m512i x0, __m512i x1,
				    __m512i x2)
{
	uint64_t *w = &p->rpow44[o][0];
	/* word 8k + m is limb (8k + m) % 3 of lane (8k + m) / 3; the index
	 * picks from x0 (0..7) and x1 (8..15), the mask from x2 */
	const __m512i i0 = _mm512_set_epi64(10, 2, 1, 9, 1, 0, 8, 0);
	const __m512i i1 = _mm512_set_epi64(5, 4, 12, 4, 3, 11, 3, 2);
	const __m512i i2 = _mm512_set_epi64(7, 15, 7, 6, 14, 6, 5, 13);

	_mm512_storeu_si512((void *)w, _mm512_mask_permutexvar_epi64(
					   _mm512_permutex2var_epi64(x0, i0, x1), 0x24, i0, x2));
	_mm512_storeu_si512(
	    (void *)(w + 8),
	    _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(x0, i1, x1), 0x49, i1, x2));
	_mm512_storeu_si512(
	    (void *)(w + 16),
	    _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(x0, i2, x1), 0x92, i2, x2));
}

/* r^5..r^16 as two vector products, r^4 * (r^1..r^4) and r^8 * (r^1..r^8),
 * instead of twelve dependent scalar ones: at 1420-byte packets the powers
 * were a third of the Poly1305 time. All in registers: the scalar powers
 * stored and reloaded as vectors stalled store forwarding. r^16 (lane 7 of
 * the second product) is left in r16 for the caller. */
static TGT void start(struct poly1305_x86 *p, __m512i r16[3])
{
	__m512i a0, a1, a2, d0, d1, d2, e0, e1, e2;

	zinc_poly1305_vec_start44(p, 4);
	a0 = low_powers(p->rpow44, 0);
	a1 = low_powers(p->rpow44, 1);
	a2 = low_powers(p->rpow44, 2);
	TIMES_LANE(d, a, a, 4); /* r^5..r^8 in lanes 0..3 */
	/* r^1..r^8 */
	a0 = _mm512_mask_permutexvar_epi64(a0, 0xf0, _mm512_set_epi64(3, 2, 1, 0, 0, 0, 0, 0), d0);
	a1 = _mm512_mask_permutexvar_epi64(a1, 0xf0, _mm512_set_epi64(3, 2, 1, 0, 0, 0, 0, 0), d1);
	a2 = _mm512_mask_permutexvar_epi64(a2, 0xf0, _mm512_set_epi64(3, 2, 1, 0, 0, 0, 0, 0), d2);
	TIMES_LANE(e, a, a, 8); /* r^9..r^16 */
	store_powers(p, 0, a0, a1, a2);
	store_powers(p, 8, e0, e1, e2);
	r16[0] = _mm512_permutexvar_epi64(_mm512_set1_epi64(7), e0);
	r16[1] = _mm512_permutexvar_epi64(_mm512_set1_epi64(7), e1);
	r16[2] = _mm512_permutexvar_epi64(_mm512_set1_epi64(7), e2);
}

TGT void zinc_poly1305_ifma_blocks(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks)
{
	__m512i a0, a1, a2, b0, b1, b2, d0, d1, d2, e0, e1, e2, r0, r1, r2, s1, s2;
	int first = !p->vec_started;

	if (!nblocks)
		return;
	if (first) {
		__m512i r16[3];

		start(p, r16);
		r0 = r16[0];
		r1 = r16[1];
		r2 = r16[2];
		/* h (in lane 0 of set a) was folded in by vec_start44 */
		a0 = _mm512_zextsi128_si512(_mm_cvtsi64_si128((long long)p->acc[0][0]));
		a1 = _mm512_zextsi128_si512(_mm_cvtsi64_si128((long long)p->acc[1][0]));
		a2 = _mm512_zextsi128_si512(_mm_cvtsi64_si128((long long)p->acc[2][0]));
		b0 = b1 = b2 = _mm512_setzero_si512();
	} else {
		LOAD3(a, 0);
		LOAD3(b, 8);
		r0 = _mm512_set1_epi64((long long)p->rpow44[15][0]);
		r1 = _mm512_set1_epi64((long long)p->rpow44[15][1]);
		r2 = _mm512_set1_epi64((long long)p->rpow44[15][2]);
	}
	s1 = times20(r1);
	s2 = times20(r2);

	if (first) {
		ADD_MSG3(a, m);
		ADD_MSG3(b, m + 128);
		m += 256;
		nblocks -= 16;
	}
	while (nblocks) {
		MUL3(d, a, r, s);
		MUL3(e, b, r, s);
		CARRY3(d);
		CARRY3(e);
		a0 = d0;
		a1 = d1;
		a2 = d2;
		b0 = e0;
		b1 = e1;
		b2 = e2;
		ADD_MSG3(a, m);
		ADD_MSG3(b, m + 128);
		m += 256;
		nblocks -= 16;
	}
	STORE3(a, 0);
	STORE3(b, 8);
}

/* Limb j of r^(o + 7), r^(o + 3), r^(o + 6), r^(o + 2), r^(o + 5), r^(o + 1),
 * r^(o + 4), r^o (lanes 0..7) from the 24 words of rpow44[o..o + 7] by
 * two permutes: building it from scalars went through the stack, and the
 * vector load of what was just stored stalled (a fifth of the finish). */
static TGT inline __m512i pow_lanes(const struct poly1305_x86 *p, int o, int j)
{
	const uint64_t *w = &p->rpow44[o][0];
	const __m512i idx =
	    _mm512_add_epi64(_mm512_set_epi64(0, 12, 3, 15, 6, 18, 9, 21), _mm512_set1_epi64(j));
	const __mmask8 hi = _mm512_cmpge_epu64_mask(idx, _mm512_set1_epi64(16));
	__m512i lo = _mm512_permutex2var_epi64(_mm512_loadu_si512((const void *)w), idx,
					       _mm512_loadu_si512((const void *)(w + 8)));

	return _mm512_mask_permutexvar_epi64(lo, hi, idx,
					     _mm512_loadu_si512((const void *)(w + 16)));
}

/* Set a still needs r^(16 - position), set b r^(8 - position); the sets
 * come in registers (from finish_tail) or from p->acc. */
static TGT inline void finish_sets(struct poly1305_x86 *p, __m512i a0, __m512i a1, __m512i a2,
				   __m512i b0, __m512i b1, __m512i b2)
{
	__m512i d0, d1, d2, e0, e1, e2;
	__m512i r0, r1, r2, s1, s2, q0, q1, q2, t1, t2;
	uint64_t l[3];

	r0 = pow_lanes(p, 8, 0);
	r1 = pow_lanes(p, 8, 1);
	r2 = pow_lanes(p, 8, 2);
	q0 = pow_lanes(p, 0, 0);
	q1 = pow_lanes(p, 0, 1);
	q2 = pow_lanes(p, 0, 2);
	s1 = times20(r1);
	s2 = times20(r2);
	t1 = times20(q1);
	t2 = times20(q2);
	MUL3(d, a, r, s);
	MUL3(e, b, q, t);
	CARRY3(d);
	CARRY3(e);
	l[0] = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(d0, e0));
	l[1] = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(d1, e1));
	l[2] = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(d2, e2));
	zinc_poly1305_vec_fold44(p, l);
}

TGT void zinc_poly1305_ifma_finish(struct poly1305_x86 *p)
{
	__m512i a0, a1, a2, b0, b1, b2;

	if (!p->vec_started)
		return;
	LOAD3(a, 0);
	LOAD3(b, 8);
	finish_sets(p, a0, a1, a2, b0, b1, b2);
}

/* The last len (< 256) bytes, zero-padded to j whole blocks, in the vector:
 * every lane times r^j, then the tail into the last j lanes (lane i is
 * finished with r^(16 - i)), then the usual finish. Replaces up to 16
 * scalar blocks at the end of each AEAD message. */
TGT void zinc_poly1305_ifma_finish_tail(struct poly1305_x86 *p, const uint8_t *m, size_t len)
{
	__m512i a0, a1, a2, b0, b1, b2, d0, d1, d2, e0, e1, e2, r0, r1, r2, s1, s2;
	uint8_t buf[256]; /* ciphertext: public, not wiped */
	const size_t j = (len + 15) / 16;
	const unsigned hib = (0xffffu << (16 - j)) & 0xffffu;

	if (!j || !p->vec_started) {
		zinc_poly1305_ifma_finish(p);
		poly64_padded(p, m, len);
		return;
	}
	memset(buf, 0, 256);
	memcpy(buf + 256 - 16 * j, m, len);
	LOAD3(a, 0);
	LOAD3(b, 8);
	r0 = _mm512_set1_epi64((long long)p->rpow44[j - 1][0]);
	r1 = _mm512_set1_epi64((long long)p->rpow44[j - 1][1]);
	r2 = _mm512_set1_epi64((long long)p->rpow44[j - 1][2]);
	s1 = _mm512_set1_epi64((long long)(20 * p->rpow44[j - 1][1]));
	s2 = _mm512_set1_epi64((long long)(20 * p->rpow44[j - 1][2]));
	MUL3(d, a, r, s);
	MUL3(e, b, r, s);
	CARRY3(d);
	CARRY3(e);
	ADD_MSG3_MASKED(d, buf, hib);
	ADD_MSG3_MASKED(e, buf + 128, hib >> 8);
	finish_sets(p, d0, d1, d2, e0, e1, e2);
}
#endif
