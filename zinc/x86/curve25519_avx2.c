// SPDX-License-Identifier: MIT
/* Four independent X25519 at once with AVX2: one Montgomery ladder per
 * 64-bit lane of the ymm registers, field elements in ten limbs of
 * alternately 26 and 25 bits (limb k of all four lanes in one register),
 * multiplied 32 x 32 -> 64 with VPMULUDQ. Every limb entering a
 * multiplication is below 2^27 (so 38 times it fits 32 bits) and every
 * column below 2^63: each operation ends with a carry pass that keeps
 * that. Odd-by-odd limb products count twice (25.5-bit radix) and columns
 * from 10 up fold back as 19 (2^255 = 19 mod p). Constant time: the
 * lanes' secret bits only make masks for the conditional swaps. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"
#include "../fe_invert.h"
#include "fe64.h"

#define TGT __attribute__((target("avx2")))
#define LANES 4
#define NL 10

typedef struct {
	__m256i v[NL];
} fe4;

/* limb i starts at bit ceil(25.5 i) */
static const uint8_t limb_pos[NL] = {0, 26, 51, 77, 102, 128, 153, 179, 204, 230};

static inline TGT __m256i bc(uint64_t x)
{
	return _mm256_set1_epi64x((long long)x);
}

static inline int width(int k)
{
	return 26 - (k & 1);
}

static inline TGT void carry1(__m256i *h, int k)
{
	const __m256i c = _mm256_srli_epi64(h[k], width(k));

	h[k] = _mm256_and_si256(h[k], bc((UINT64_C(1) << width(k)) - 1));
	if (k < NL - 1) {
		h[k + 1] = _mm256_add_epi64(h[k + 1], c);
	} else { /* 19 c = 16 c + 2 c + c: c may exceed 32 bits */
		h[0] = _mm256_add_epi64(h[0], _mm256_add_epi64(_mm256_slli_epi64(c, 4), c));
		h[0] = _mm256_add_epi64(h[0], _mm256_slli_epi64(c, 1));
	}
}

/* Columns below 2^63 to limbs at their width (limbs 1 and 5 a little
 * over): two interleaved chains, 0 -> 4 and 4 -> 9 -> 0 -> 1, for
 * parallelism. */
static inline TGT void fe4_carry(fe4 *a)
{
	__m256i *h = a->v;

	_Pragma("GCC unroll 16") for (int k = 0; k < 5; k++)
	{
		carry1(h, k);
		carry1(h, k + 4);
	}
	carry1(h, 9);
	carry1(h, 0);
}

/* r = a * b: 100 products, odd x odd doubled (a's limb taken twice), the
 * columns from 10 up folded through 19 b. */
static TGT void fe4_mul(fe4 *r, const fe4 *a, const fe4 *b)
{
	__m256i h[NL], a2[NL], b19[NL];

	_Pragma("GCC unroll 16") for (int k = 0; k < NL; k++)
	{
		h[k] = _mm256_setzero_si256();
		a2[k] = _mm256_add_epi64(a->v[k], a->v[k]);
		b19[k] = _mm256_mul_epu32(b->v[k], bc(19));
	}
	_Pragma("GCC unroll 16") for (int i = 0; i < NL; i++)
	    _Pragma("GCC unroll 16") for (int j = 0; j < NL; j++)
	{
		const __m256i x = (i & j & 1) ? a2[i] : a->v[i];
		const __m256i y = i + j >= NL ? b19[j] : b->v[j];
		const int k = (i + j) % NL;

		h[k] = _mm256_add_epi64(h[k], _mm256_mul_epu32(x, y));
	}
	_Pragma("GCC unroll 16") for (int k = 0; k < NL; k++) r->v[k] = h[k];
	fe4_carry(r);
}

/* r = a^2: 55 products, cross products doubled through a's multiples. */
static TGT void fe4_sq(fe4 *r, const fe4 *a)
{
	__m256i h[NL], m[3][NL], a19[NL];

	_Pragma("GCC unroll 16") for (int k = 0; k < NL; k++)
	{
		h[k] = _mm256_setzero_si256();
		m[0][k] = a->v[k];
		m[1][k] = _mm256_add_epi64(a->v[k], a->v[k]);
		m[2][k] = _mm256_add_epi64(m[1][k], m[1][k]);
		a19[k] = _mm256_mul_epu32(a->v[k], bc(19));
	}
	_Pragma("GCC unroll 16") for (int i = 0; i < NL; i++)
	    _Pragma("GCC unroll 16") for (int j = i; j < NL; j++)
	{
		const int s = (i < j) + (i & j & 1); /* times 1, 2 or 4 */
		const __m256i y = i + j >= NL ? a19[j] : a->v[j];
		const int k = (i + j) % NL;

		h[k] = _mm256_add_epi64(h[k], _mm256_mul_epu32(m[s][i], y));
	}
	_Pragma("GCC unroll 16") for (int k = 0; k < NL; k++) r->v[k] = h[k];
	fe4_carry(r);
}

static inline TGT void fe4_add(fe4 *r, const fe4 *a, const fe4 *b)
{
	_Pragma("GCC unroll 16") for (int k = 0; k < NL; k++) r->v[k] =
	    _mm256_add_epi64(a->v[k], b->v[k]);
	fe4_carry(r);
}

/* r = a + 4p - b: every limb of 4p (2^28 - 76, 2^27 - 4, 2^28 - 4, ...)
 * exceeds every limb of b, so no lane underflows. */
static inline TGT void fe4_sub(fe4 *r, const fe4 *a, const fe4 *b)
{
	_Pragma("GCC unroll 16") for (int k = 0; k < NL; k++)
	{
		const uint64_t p4 =
		    k ? (UINT64_C(1) << (width(k) + 2)) - 4 : (UINT64_C(1) << 28) - 76;

		r->v[k] = _mm256_sub_epi64(_mm256_add_epi64(a->v[k], bc(p4)), b->v[k]);
	}
	fe4_carry(r);
}

/* r = a * 121665 + b, the ladder's (A - 2) / 4 step. */
static inline TGT void fe4_mul_a24_add(fe4 *r, const fe4 *a, const fe4 *b)
{
	_Pragma("GCC unroll 16") for (int k = 0; k < NL; k++) r->v[k] =
	    _mm256_add_epi64(_mm256_mul_epu32(a->v[k], bc(121665)), b->v[k]);
	fe4_carry(r);
}

static inline TGT void fe4_cswap(fe4 *a, fe4 *b, __m256i mask)
{
	_Pragma("GCC unroll 16") for (int k = 0; k < NL; k++)
	{
		const __m256i t = _mm256_and_si256(mask, _mm256_xor_si256(a->v[k], b->v[k]));

		a->v[k] = _mm256_xor_si256(a->v[k], t);
		b->v[k] = _mm256_xor_si256(b->v[k], t);
	}
}

static TGT void fe4_sq_n(fe4 *r, const fe4 *a, int n)
{
	fe4_sq(r, a);
	while (--n)
		fe4_sq(r, r);
}

/* out = 1 / z lane by lane (fe_invert.h). */
static TGT void fe4_invert(fe4 *out, const fe4 *z)
{
	fe4 t[4];

	FE_INVERT_CHAIN(fe4_sq_n, fe4_mul, out, z, &t[0], &t[1], &t[2], &t[3]);
	zinc_memzero(t, sizeof(t));
}

/* u coordinates (top bit ignored) into the ten limbs, lane by lane. */
static TGT void fe4_frombytes(fe4 *r, const uint8_t in[LANES][32])
{
	uint64_t l[NL][LANES], w;
	uint8_t b[40] = {0};

	for (int i = 0; i < LANES; i++) {
		memcpy(b, in[i], 32);
		b[31] &= 0x7f;
		for (int k = 0; k < NL; k++) {
			memcpy(&w, b + limb_pos[k] / 8, 8);
			l[k][i] = (w >> (limb_pos[k] % 8)) & ((UINT64_C(1) << width(k)) - 1);
		}
	}
	for (int k = 0; k < NL; k++)
		r->v[k] = _mm256_loadu_si256((const __m256i *)l[k]);
	zinc_memzero(l, sizeof(l));
	zinc_memzero(b, sizeof(b));
	zinc_memzero(&w, sizeof(w));
}

/* Each lane carried to exact limb widths (limb 9 up to 26 bits: below
 * 2^256), packed into four 64-bit words and reduced by fe64.h. */
static TGT void fe4_tobytes(uint8_t out[LANES][32], const fe4 *a)
{
	uint64_t l[NL][LANES];
	fe w;

	for (int k = 0; k < NL; k++)
		_mm256_storeu_si256((__m256i *)l[k], a->v[k]);
	for (int i = 0; i < LANES; i++) {
		memset(w, 0, sizeof(w));
		for (int k = 0; k < NL; k++) {
			const int q = limb_pos[k] / 64, s = limb_pos[k] % 64;

			if (k < NL - 1) {
				l[k + 1][i] += l[k][i] >> width(k);
				l[k][i] &= (UINT64_C(1) << width(k)) - 1;
			}
			w[q] |= l[k][i] << s;
			if (s && q < 3)
				w[q + 1] |= l[k][i] >> (64 - s);
		}
		fe_tobytes(out[i], w);
	}
	zinc_memzero(l, sizeof(l));
	zinc_memzero(w, sizeof(w));
}

struct ladder4 {
	fe4 x1, x2, z2, x3, z3;
};

/* One ladder step on every lane, as in zinc_x25519_bmi2_adx. */
static TGT void ladder4_step(struct ladder4 *s)
{
	fe4 a, aa, b, bb, c, d, da, cb, e;

	fe4_add(&a, &s->x2, &s->z2);
	fe4_sq(&aa, &a);
	fe4_sub(&b, &s->x2, &s->z2);
	fe4_sq(&bb, &b);
	fe4_sub(&e, &aa, &bb);
	fe4_add(&c, &s->x3, &s->z3);
	fe4_sub(&d, &s->x3, &s->z3);
	fe4_mul(&da, &d, &a);
	fe4_mul(&cb, &c, &b);
	fe4_add(&s->x3, &da, &cb);
	fe4_sq(&s->x3, &s->x3);
	fe4_sub(&s->z3, &da, &cb);
	fe4_sq(&s->z3, &s->z3);
	fe4_mul(&s->z3, &s->z3, &s->x1);
	fe4_mul(&s->x2, &aa, &bb);
	fe4_mul_a24_add(&s->z2, &e, &aa);
	fe4_mul(&s->z2, &s->z2, &e);
}

/* out[i] = X25519(scalar[i], point[i]) for four clamped scalars. */
TGT void zinc_x25519_x4_avx2(uint8_t out[LANES][32], const uint8_t scalar[LANES][32],
			     const uint8_t point[LANES][32])
{
	struct ladder4 s;
	uint64_t sw[4][LANES];
	__m256i bits[4], swap = _mm256_setzero_si256(), k, mask;

	for (int i = 0; i < LANES; i++)
		for (int q = 0; q < 4; q++)
			memcpy(&sw[q][i], scalar[i] + 8 * q, 8);
	for (int q = 0; q < 4; q++)
		bits[q] = _mm256_loadu_si256((const __m256i *)sw[q]);
	fe4_frombytes(&s.x1, point);
	memset(&s.x2, 0, sizeof(fe4));
	s.x2.v[0] = bc(1);
	memset(&s.z2, 0, sizeof(fe4));
	s.x3 = s.x1;
	s.z3 = s.x2;
	for (int t = 254; t >= 0; t--) {
		k = _mm256_and_si256(_mm256_srl_epi64(bits[t >> 6], _mm_cvtsi32_si128(t & 63)),
				     bc(1));
		swap = _mm256_xor_si256(swap, k);
		mask = _mm256_sub_epi64(_mm256_setzero_si256(), swap);
		fe4_cswap(&s.x2, &s.x3, mask);
		fe4_cswap(&s.z2, &s.z3, mask);
		swap = k;
		ladder4_step(&s);
	}
	mask = _mm256_sub_epi64(_mm256_setzero_si256(), swap);
	fe4_cswap(&s.x2, &s.x3, mask);
	fe4_cswap(&s.z2, &s.z3, mask);
	fe4_invert(&s.z2, &s.z2);
	fe4_mul(&s.x2, &s.x2, &s.z2);
	fe4_tobytes(out, &s.x2);
	zinc_memzero(&s, sizeof(s));
	zinc_memzero(sw, sizeof(sw));
	zinc_memzero(bits, sizeof(bits));
}
#endif
