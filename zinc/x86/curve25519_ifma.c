// SPDX-License-Identifier: MIT
/* Eight independent X25519 at once with AVX-512 IFMA: one Montgomery ladder
 * per 64-bit lane of the zmm registers, field elements in five 52-bit limbs
 * (limb k of all eight lanes in one register). VPMADD52LUQ/HUQ multiply the
 * low 52 bits of two limbs and add the low or high 52 bits of the 104-bit
 * product, so every limb entering a multiplication is below 2^52: each
 * operation ends with a carry chain that guarantees it. 2^260 = 608 and
 * 2^255 = 19 (mod p) fold the high parts back. Constant time: the lanes'
 * secret bits only make masks for the conditional swaps. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"
#include "../fe_invert.h"
#include "fe64.h"

#define TGT __attribute__((target("avx512f,avx512ifma")))
#define M52 ((UINT64_C(1) << 52) - 1)
#define LANES 8

typedef struct {
	__m512i v[5];
} fe8;

static inline TGT __m512i bc(uint64_t x)
{
	return _mm512_set1_epi64((long long)x);
}

/* Limbs 0..3 below 2^52, limb 4 below 2^48: bits from 255 up fold into
 * limb 0 as 19 each, then one pass carries 0 -> 4. Inputs below 2^63. */
static inline TGT void fe8_carry(fe8 *a)
{
	__m512i c = _mm512_srli_epi64(a->v[4], 47);

	a->v[4] = _mm512_and_si512(a->v[4], bc((UINT64_C(1) << 47) - 1));
	a->v[0] = _mm512_madd52lo_epu64(a->v[0], c, bc(19));
	_Pragma("GCC unroll 16") for (int k = 0; k < 4; k++)
	{
		c = _mm512_srli_epi64(a->v[k], 52);
		a->v[k] = _mm512_and_si512(a->v[k], bc(M52));
		a->v[k + 1] = _mm512_add_epi64(a->v[k + 1], c);
	}
}

/* Ten columns (each below 2^57) to a field element: columns 5..9 carried
 * below 2^52, then folded in as 608 each (2^260 = 608) with shifts and
 * adds (608 x < 2^62: no overflow), the carry out of column 9 as 608^2. */
static inline TGT void fe8_reduce(fe8 *r, __m512i col[11])
{
	__m512i t;

	col[10] = _mm512_setzero_si512();
	_Pragma("GCC unroll 16") for (int k = 5; k < 10; k++)
	{
		t = _mm512_srli_epi64(col[k], 52);
		col[k] = _mm512_and_si512(col[k], bc(M52));
		col[k + 1] = _mm512_add_epi64(col[k + 1], t);
	}
	_Pragma("GCC unroll 16") for (int k = 5; k < 10; k++)
	{
		t = _mm512_add_epi64(_mm512_slli_epi64(col[k], 9), _mm512_slli_epi64(col[k], 6));
		t = _mm512_add_epi64(t, _mm512_slli_epi64(col[k], 5));
		r->v[k - 5] = _mm512_add_epi64(col[k - 5], t);
	}
	r->v[0] = _mm512_madd52lo_epu64(r->v[0], col[10], bc(608 * 608));
	fe8_carry(r);
}

/* r = a * b: 25 low and 25 high partial products into ten columns. */
static TGT void fe8_mul(fe8 *r, const fe8 *a, const fe8 *b)
{
	__m512i col[11];

	_Pragma("GCC unroll 16") for (int k = 0; k < 10; k++) col[k] = _mm512_setzero_si512();
	_Pragma("GCC unroll 16") for (int i = 0; i < 5; i++)
	    _Pragma("GCC unroll 16") for (int j = 0; j < 5; j++)
	{
		col[i + j] = _mm512_madd52lo_epu64(col[i + j], a->v[i], b->v[j]);
		col[i + j + 1] = _mm512_madd52hi_epu64(col[i + j + 1], a->v[i], b->v[j]);
	}
	fe8_reduce(r, col);
}

/* r = a^2: the ten cross products once, the columns doubled, then the five
 * squares (30 multiply-adds instead of 50). */
static TGT void fe8_sq(fe8 *r, const fe8 *a)
{
	__m512i col[11];

	_Pragma("GCC unroll 16") for (int k = 0; k < 10; k++) col[k] = _mm512_setzero_si512();
	_Pragma("GCC unroll 16") for (int i = 0; i < 5; i++)
	    _Pragma("GCC unroll 16") for (int j = i + 1; j < 5; j++)
	{
		col[i + j] = _mm512_madd52lo_epu64(col[i + j], a->v[i], a->v[j]);
		col[i + j + 1] = _mm512_madd52hi_epu64(col[i + j + 1], a->v[i], a->v[j]);
	}
	_Pragma("GCC unroll 16") for (int k = 1; k < 9; k++) col[k] =
	    _mm512_add_epi64(col[k], col[k]);
	_Pragma("GCC unroll 16") for (int i = 0; i < 5; i++)
	{
		col[2 * i] = _mm512_madd52lo_epu64(col[2 * i], a->v[i], a->v[i]);
		col[2 * i + 1] = _mm512_madd52hi_epu64(col[2 * i + 1], a->v[i], a->v[i]);
	}
	fe8_reduce(r, col);
}

static inline TGT void fe8_add(fe8 *r, const fe8 *a, const fe8 *b)
{
	_Pragma("GCC unroll 16") for (int k = 0; k < 5; k++) r->v[k] =
	    _mm512_add_epi64(a->v[k], b->v[k]);
	fe8_carry(r);
}

/* r = a + 64p - b: every limb of 64p (2^53 - 1216, 2^53 - 2, ...) exceeds
 * every limb of b, so no lane underflows. */
static inline TGT void fe8_sub(fe8 *r, const fe8 *a, const fe8 *b)
{
	_Pragma("GCC unroll 16") for (int k = 0; k < 5; k++) r->v[k] = _mm512_sub_epi64(
	    _mm512_add_epi64(a->v[k], bc(k ? (UINT64_C(1) << 53) - 2 : (UINT64_C(1) << 53) - 1216)),
	    b->v[k]);
	fe8_carry(r);
}

/* r = a * 121665, the ladder's (A - 2) / 4. */
static inline TGT void fe8_mul_a24(fe8 *r, const fe8 *a)
{
	__m512i col[6];

	_Pragma("GCC unroll 16") for (int k = 0; k < 6; k++) col[k] = _mm512_setzero_si512();
	_Pragma("GCC unroll 16") for (int k = 0; k < 5; k++)
	{
		col[k] = _mm512_madd52lo_epu64(col[k], a->v[k], bc(121665));
		col[k + 1] = _mm512_madd52hi_epu64(col[k + 1], a->v[k], bc(121665));
	}
	col[0] = _mm512_madd52lo_epu64(col[0], col[5], bc(608));
	_Pragma("GCC unroll 16") for (int k = 0; k < 5; k++) r->v[k] = col[k];
	fe8_carry(r);
}

static inline TGT void fe8_cswap(fe8 *a, fe8 *b, __m512i mask)
{
	_Pragma("GCC unroll 16") for (int k = 0; k < 5; k++)
	{
		const __m512i t = _mm512_and_si512(mask, _mm512_xor_si512(a->v[k], b->v[k]));

		a->v[k] = _mm512_xor_si512(a->v[k], t);
		b->v[k] = _mm512_xor_si512(b->v[k], t);
	}
}

static TGT void fe8_sq_n(fe8 *r, const fe8 *a, int n)
{
	fe8_sq(r, a);
	while (--n)
		fe8_sq(r, r);
}

/* out = 1 / z lane by lane (fe_invert.h). */
static TGT void fe8_invert(fe8 *out, const fe8 *z)
{
	fe8 t[4];

	FE_INVERT_CHAIN(fe8_sq_n, fe8_mul, out, z, &t[0], &t[1], &t[2], &t[3]);
	zinc_memzero(t, sizeof(t));
}

/* u coordinates (top bit ignored) into radix 2^52, lane by lane. */
static TGT void fe8_frombytes(fe8 *r, const uint8_t in[LANES][32])
{
	uint64_t l[5][LANES], w[4];

	for (int i = 0; i < LANES; i++) {
		memcpy(w, in[i], 32);
		w[3] &= 0x7fffffffffffffffULL;
		l[0][i] = w[0] & M52;
		l[1][i] = (w[0] >> 52 | w[1] << 12) & M52;
		l[2][i] = (w[1] >> 40 | w[2] << 24) & M52;
		l[3][i] = (w[2] >> 28 | w[3] << 36) & M52;
		l[4][i] = w[3] >> 16;
	}
	for (int k = 0; k < 5; k++)
		r->v[k] = _mm512_loadu_si512(l[k]);
	zinc_memzero(l, sizeof(l));
	zinc_memzero(w, sizeof(w));
}

/* Each lane (limbs 0..3 below 2^52, 4 below 2^48: below 2^256) to four
 * 64-bit words, reduced and written by fe64.h's fe_tobytes. */
static TGT void fe8_tobytes(uint8_t out[LANES][32], const fe8 *a)
{
	uint64_t l[5][LANES];
	fe w;

	for (int k = 0; k < 5; k++)
		_mm512_storeu_si512(l[k], a->v[k]);
	for (int i = 0; i < LANES; i++) {
		w[0] = l[0][i] | l[1][i] << 52;
		w[1] = l[1][i] >> 12 | l[2][i] << 40;
		w[2] = l[2][i] >> 24 | l[3][i] << 28;
		w[3] = l[3][i] >> 36 | l[4][i] << 16;
		fe_tobytes(out[i], w);
	}
	zinc_memzero(l, sizeof(l));
	zinc_memzero(w, sizeof(w));
}

struct ladder8 {
	fe8 x1, x2, z2, x3, z3;
};

/* One ladder step on every lane, as in zinc_x25519_bmi2_adx. */
static TGT void ladder8_step(struct ladder8 *s)
{
	fe8 a, aa, b, bb, c, d, da, cb, e;

	fe8_add(&a, &s->x2, &s->z2);
	fe8_sq(&aa, &a);
	fe8_sub(&b, &s->x2, &s->z2);
	fe8_sq(&bb, &b);
	fe8_sub(&e, &aa, &bb);
	fe8_add(&c, &s->x3, &s->z3);
	fe8_sub(&d, &s->x3, &s->z3);
	fe8_mul(&da, &d, &a);
	fe8_mul(&cb, &c, &b);
	fe8_add(&s->x3, &da, &cb);
	fe8_sq(&s->x3, &s->x3);
	fe8_sub(&s->z3, &da, &cb);
	fe8_sq(&s->z3, &s->z3);
	fe8_mul(&s->z3, &s->z3, &s->x1);
	fe8_mul(&s->x2, &aa, &bb);
	fe8_mul_a24(&s->z2, &e);
	fe8_add(&s->z2, &s->z2, &aa);
	fe8_mul(&s->z2, &s->z2, &e);
}

/* out[i] = X25519(scalar[i], point[i]) for eight clamped scalars. */
TGT void zinc_x25519_x8_ifma(uint8_t out[LANES][32], const uint8_t scalar[LANES][32],
			     const uint8_t point[LANES][32])
{
	struct ladder8 s;
	uint64_t sw[4][LANES];
	__m512i bits[4], swap = _mm512_setzero_si512(), k, mask;

	for (int i = 0; i < LANES; i++)
		for (int q = 0; q < 4; q++)
			memcpy(&sw[q][i], scalar[i] + 8 * q, 8);
	for (int q = 0; q < 4; q++)
		bits[q] = _mm512_loadu_si512(sw[q]);
	fe8_frombytes(&s.x1, point);
	memset(&s.x2, 0, sizeof(fe8));
	s.x2.v[0] = bc(1);
	memset(&s.z2, 0, sizeof(fe8));
	s.x3 = s.x1;
	s.z3 = s.x2;
	for (int t = 254; t >= 0; t--) {
		k = _mm512_and_si512(_mm512_srl_epi64(bits[t >> 6], _mm_cvtsi32_si128(t & 63)),
				     bc(1));
		swap = _mm512_xor_si512(swap, k);
		mask = _mm512_sub_epi64(_mm512_setzero_si512(), swap);
		fe8_cswap(&s.x2, &s.x3, mask);
		fe8_cswap(&s.z2, &s.z3, mask);
		swap = k;
		ladder8_step(&s);
	}
	mask = _mm512_sub_epi64(_mm512_setzero_si512(), swap);
	fe8_cswap(&s.x2, &s.x3, mask);
	fe8_cswap(&s.z2, &s.z3, mask);
	fe8_invert(&s.z2, &s.z2);
	fe8_mul(&s.x2, &s.x2, &s.z2);
	fe8_tobytes(out, &s.x2);
	zinc_memzero(&s, sizeof(s));
	zinc_memzero(sw, sizeof(sw));
	zinc_memzero(bits, sizeof(bits));
}
#endif
