// SPDX-License-Identifier: MIT
/* Scalar set-up and tear-down shared by the 4- and 8-lane Poly1305. */
#if defined(__x86_64__)
#include <zinc/memzero.h>

#include "poly1305_x86.h"

#define M26 0x3ffffffULL

#define M44 0xfffffffffffULL
#define M42 0x3ffffffffffULL

/* o = x * y mod 2^130 - 5 in limbs of 44, 44, 42 bits (2^132 = 20). */
static void mul44(uint64_t o[3], const uint64_t x[3], const uint64_t y[3])
{
	const uint64_t s1 = 20 * y[1], s2 = 20 * y[2];
	poly_u128 d0 = (poly_u128)x[0] * y[0] + (poly_u128)x[1] * s2 + (poly_u128)x[2] * s1;
	poly_u128 d1 = (poly_u128)x[0] * y[1] + (poly_u128)x[1] * y[0] + (poly_u128)x[2] * s2;
	poly_u128 d2 = (poly_u128)x[0] * y[2] + (poly_u128)x[1] * y[1] + (poly_u128)x[2] * y[0];
	uint64_t c;

	d1 += (uint64_t)(d0 >> 44);
	o[0] = (uint64_t)d0 & M44;
	d2 += (uint64_t)(d1 >> 44);
	o[1] = (uint64_t)d1 & M44;
	c = (uint64_t)(d2 >> 42);
	o[2] = (uint64_t)d2 & M42;
	o[0] += c * 5;
	o[1] += o[0] >> 44;
	o[0] &= M44;
}

/* r^1..r^n (n = 4, 8 or 16) as a tree (r^2, then r^3..r^4, r^5..r^8, r^9..r^16), four
 * dependent multiplications deep instead of fifteen. */
void zinc_poly1305_powers44(uint64_t pw[16][3], const struct poly1305_x86 *p, int n)
{
	pw[0][0] = p->r0 & M44;
	pw[0][1] = ((p->r0 >> 44) | (p->r1 << 20)) & M44;
	pw[0][2] = p->r1 >> 24;
	mul44(pw[1], pw[0], pw[0]);
	mul44(pw[2], pw[1], pw[0]);
	mul44(pw[3], pw[1], pw[1]);
	for (int k = 0; n > 4 && k < 4; k++)
		mul44(pw[4 + k], pw[3], pw[k]);
	for (int k = 0; n > 8 && k < 8; k++)
		mul44(pw[8 + k], pw[7], pw[k]);
}

/* Radix 2^44 limbs (possibly a bit over) to the radix 2^64 words. */
static void from44(uint64_t h[3], const uint64_t l[3])
{
	poly_u128 t = (poly_u128)l[0] + ((poly_u128)l[1] << 44);

	h[0] = (uint64_t)t;
	t = (t >> 64) + ((poly_u128)l[2] << 24);
	h[1] = (uint64_t)t;
	h[2] = (uint64_t)(t >> 64);
}

static void to_26(uint32_t l[5], const uint64_t h[3])
{
	l[0] = (uint32_t)(h[0] & M26);
	l[1] = (uint32_t)((h[0] >> 26) & M26);
	l[2] = (uint32_t)(((h[0] >> 52) | (h[1] << 12)) & M26);
	l[3] = (uint32_t)((h[1] >> 14) & M26);
	l[4] = (uint32_t)((h[1] >> 40) | (h[2] << 24));
}

void zinc_poly1305_vec_start(struct poly1305_x86 *p, int npow)
{
	uint64_t pw[16][3], w[3];
	uint64_t h[3] = {p->h0, p->h1, p->h2};
	uint32_t h26[5];

	zinc_poly1305_powers44(pw, p, npow);
	for (int k = 0; k < npow; k++) {
		from44(w, pw[k]);
		to_26(p->rpow[k], w);
	}
	to_26(h26, h);
	for (int j = 0; j < 5; j++) {
		for (int i = 0; i < 16; i++)
			p->acc[j][i] = 0;
		p->acc[j][0] = h26[j];
	}
	p->h0 = p->h1 = p->h2 = 0;
	p->vec_started = 1;
	zinc_memzero(pw, sizeof(pw));
	zinc_memzero(w, sizeof(w));
}

void zinc_poly1305_vec_fold(struct poly1305_x86 *p, uint64_t l[5])
{
	poly_u128 lo, mid;

	/* Carry the sum so the radix 2^64 form below is exact and small. */
	for (int j = 0; j < 4; j++) {
		l[j + 1] += l[j] >> 26;
		l[j] &= M26;
	}
	l[0] += (l[4] >> 26) * 5;
	l[4] &= M26;
	l[1] += l[0] >> 26;
	l[0] &= M26;
	lo = (poly_u128)l[0] + ((poly_u128)l[1] << 26) + ((poly_u128)l[2] << 52);
	mid = (lo >> 64) + ((poly_u128)l[3] << 14) + ((poly_u128)l[4] << 40);
	p->h0 = (uint64_t)lo;
	p->h1 = (uint64_t)mid;
	p->h2 = (uint64_t)(mid >> 64);
	p->vec_started = 0;
	zinc_memzero(p->acc, sizeof(p->acc));
	zinc_memzero(p->rpow, sizeof(p->rpow));
	zinc_memzero(l, 5 * sizeof(uint64_t));
}

static void to_44(uint64_t l[3], const uint64_t h[3])
{
	l[0] = h[0] & M44;
	l[1] = ((h[0] >> 44) | (h[1] << 20)) & M44;
	l[2] = (h[1] >> 24) | (h[2] << 40);
}

void zinc_poly1305_vec_start44(struct poly1305_x86 *p, int npow)
{
	uint64_t h[3] = {p->h0, p->h1, p->h2};
	uint64_t h44[3];

	zinc_poly1305_powers44(p->rpow44, p, npow);
	to_44(h44, h);
	/* the other lanes start at 0 in the caller's registers */
	for (int j = 0; j < 3; j++)
		p->acc[j][0] = h44[j];
	p->h0 = p->h1 = p->h2 = 0;
	p->vec_started = 1;
	zinc_memzero(h44, sizeof(h44));
}

void zinc_poly1305_vec_fold44(struct poly1305_x86 *p, uint64_t l[3])
{
	poly_u128 t;
	uint64_t h0, h1, h2, c;

	t = (poly_u128)l[0] + ((poly_u128)l[1] << 44);
	h0 = (uint64_t)t;
	t = (t >> 64) + ((poly_u128)l[2] << 24);
	h1 = (uint64_t)t;
	h2 = (uint64_t)(t >> 64);
	/* Keep h2 small for the scalar code: 2^130 = 5. */
	c = (h2 >> 2) * 5;
	h2 &= 3;
	t = (poly_u128)h0 + c;
	p->h0 = (uint64_t)t;
	t = (poly_u128)h1 + (uint64_t)(t >> 64);
	p->h1 = (uint64_t)t;
	p->h2 = h2 + (uint64_t)(t >> 64);
	p->vec_started = 0;
	zinc_memzero(p->acc, 3 * sizeof(p->acc[0])); /* three limbs in radix 2^44 */
	zinc_memzero(p->rpow44, sizeof(p->rpow44));
	zinc_memzero(l, 3 * sizeof(uint64_t));
}
#endif
