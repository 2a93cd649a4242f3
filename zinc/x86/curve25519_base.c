// SPDX-License-Identifier: MIT
/* Fixed-base X25519 (public keys) for CPUs with BMI2 and ADX: [e]B on the
 * Edwards form of the curve, whose base point B maps to u = 9, as a comb
 * over a precomputed table (curve25519_base_table.h: j * 256^i * B for
 * j = 1..8), then u = (Z + Y) / (Z - Y). The scalar is written in 64
 * signed radix-16 digits d_k in [-8, 8]; the odd digits are added first,
 * the sum multiplied by 16 (four doublings), then the even ones:
 * 64 table additions and 4 doublings in place of 255 ladder steps.
 * Constant time: every lookup reads all eight entries of its row and keeps
 * one with masks; the sign is applied with masks too. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"
#include "curve25519_base_table.h"
#include "fe64.h"

/* Extended coordinates: x = X/Z, y = Y/Z, T = XY/Z. */
struct ge {
	fe x, y, z, t;
};

/* A table entry: (y + x, y - x, 2dxy). */
struct niels {
	fe ypx, ymx, xy2d;
};

/* 1 when a == b (small non-negative values), else 0, without a branch. */
static inline uint64_t eq(uint64_t a, uint64_t b)
{
	return ((a ^ b) - 1) >> 63;
}

/* The entry |d| * 256^row * B, negated when d < 0; d = 0 gives the
 * neutral element (1, 1, 0). All eight entries of the row are read, one
 * kept by a mask, in AVX2 registers (this path runs only at level avx2). */
__attribute__((target("avx2"))) static void lookup(struct niels *n, int row, int8_t d)
{
	const uint8_t ud = (uint8_t)d, neg = ud >> 7;
	const uint8_t abs = (uint8_t)(ud - ((uint8_t)(-neg & ud) << 1));
	__m256i a = _mm256_setr_epi64x(1, 0, 0, 0), b = a, c = _mm256_setzero_si256();
	fe zero = {0}, negxy = {0};

/* v ^= mask & (entry ^ v): v becomes the entry where the mask is set */
#define KEEP(v, k)                                                                                 \
	v = _mm256_xor_si256(                                                                      \
	    v, _mm256_and_si256(                                                                   \
		   mask, _mm256_xor_si256(                                                         \
			     _mm256_loadu_si256((const __m256i *)base_table[row][j][k]), v)))
	for (int j = 0; j < 8; j++) {
		const __m256i mask = _mm256_set1_epi64x(-(long long)eq(abs, (uint64_t)j + 1));

		KEEP(a, 0);
		KEEP(b, 1);
		KEEP(c, 2);
	}
#undef KEEP
	_mm256_storeu_si256((__m256i *)n->ypx, a);
	_mm256_storeu_si256((__m256i *)n->ymx, b);
	_mm256_storeu_si256((__m256i *)n->xy2d, c);
	/* (y + x, y - x, 2dxy) of -P is (y - x, y + x, -2dxy) */
	fe_cswap(n->ypx, n->ymx, neg);
	fe_sub(negxy, zero, n->xy2d);
	fe_cswap(n->xy2d, negxy, neg);
}

/* r = p + n (mixed addition, a = -1 twisted Edwards): 7 multiplications. */
static void ge_add(struct ge *r, const struct ge *p, const struct niels *n)
{
	fe a, b, c, d, e, f, g, h;

	fe_sub(a, p->y, p->x);
	fe_mul(a, a, n->ymx);
	fe_add(b, p->y, p->x);
	fe_mul(b, b, n->ypx);
	fe_mul(c, p->t, n->xy2d);
	fe_add(d, p->z, p->z);
	fe_sub(e, b, a);
	fe_sub(f, d, c);
	fe_add(g, d, c);
	fe_add(h, b, a);
	fe_mul(r->x, e, f);
	fe_mul(r->y, g, h);
	fe_mul(r->t, e, h);
	fe_mul(r->z, f, g);
}

/* r = 2p: 4 squarings, 4 multiplications. */
static void ge_double(struct ge *r, const struct ge *p)
{
	fe a, b, c, e, f, g, h;

	fe_sq(a, p->x);
	fe_sq(b, p->y);
	fe_sq(c, p->z);
	fe_add(c, c, c);
	fe_add(e, p->x, p->y);
	fe_sq(e, e);
	fe_sub(e, e, a);
	fe_sub(e, e, b); /* 2xy */
	fe_sub(g, b, a); /* y^2 - x^2 = -a x^2 + y^2 */
	fe_sub(f, g, c);
	fe_add(h, a, b);
	fe_mul(r->x, e, f);
	fe_sub(h, (fe){0}, h); /* -(x^2 + y^2) */
	fe_mul(r->y, g, h);
	fe_mul(r->t, e, h);
	fe_mul(r->z, f, g);
}

/* e (32 bytes, below 2^255) as 64 digits in [-8, 8]: e = sum d_k 16^k. */
static void recode(int8_t d[64], const uint8_t e[32])
{
	int8_t carry = 0;

	for (int i = 0; i < 32; i++) {
		d[2 * i] = (int8_t)(e[i] & 15);
		d[2 * i + 1] = (int8_t)(e[i] >> 4);
	}
	for (int i = 0; i < 63; i++) {
		d[i] = (int8_t)(d[i] + carry);
		carry = (int8_t)((d[i] + 8) >> 4);
		d[i] = (int8_t)(d[i] - carry * 16);
	}
	d[63] = (int8_t)(d[63] + carry);
}

/* out = X25519(scalar, 9) for a scalar below 2^255 (clamped ones are). */
void zinc_x25519_base_bmi2_adx(uint8_t out[32], const uint8_t scalar[32])
{
	struct ge h = {.y = {1}, .z = {1}};
	struct niels n;
	int8_t d[64];
	fe num = {0}, den = {0}; /* written by inline asm: MSan keeps this shadow */

	recode(d, scalar);
	for (int i = 1; i < 64; i += 2) {
		lookup(&n, i / 2, d[i]);
		ge_add(&h, &h, &n);
	}
	for (int i = 0; i < 4; i++)
		ge_double(&h, &h);
	for (int i = 0; i < 64; i += 2) {
		lookup(&n, i / 2, d[i]);
		ge_add(&h, &h, &n);
	}
	/* the birational map to the Montgomery form: u = (1 + y) / (1 - y) */
	fe_add(num, h.z, h.y);
	fe_sub(den, h.z, h.y);
	fe_invert(den, den);
	fe_mul(num, num, den);
	fe_tobytes(out, num);
	zinc_memzero(&h, sizeof(h));
	zinc_memzero(&n, sizeof(n));
	zinc_memzero(d, sizeof(d));
	zinc_memzero(num, sizeof(fe));
	zinc_memzero(den, sizeof(fe));
}
#endif
