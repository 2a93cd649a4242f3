/* GF(2^255 - 19) for zinc/curve25519.c on targets without a 128-bit
 * integer type (32-bit ARM: make check-cross armhf): ten signed limbs of
 * alternately 26 and 25 bits whose products fit 64 bits. The same
 * functions as the 51-bit code; constant time (no branch, no index on a
 * value). */
#ifndef ZINC_FE25519_32_H
#define ZINC_FE25519_32_H

#include <stdint.h>

typedef struct {
	int64_t v[10];
} fe;

/* limb i starts at bit ceil(25.5 i) */
static const uint8_t fe_pos[10] = {0, 26, 51, 77, 102, 128, 153, 179, 204, 230};

static inline int fe_bits(int i)
{
	return 26 - (i & 1);
}

/* Every limb to its width (limb 0 a little over), wrapping 2^255 as 19. */
static void fe_carry(fe *h)
{
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 10; i++) {
			const int64_t c = h->v[i] >> fe_bits(i);

			h->v[i] -= c * ((int64_t)1 << fe_bits(i));
			if (i < 9) /* i is public: the loop bound */
				h->v[i + 1] += c;
			else
				h->v[0] += 19 * c;
		}
}

static void fe_frombytes(fe *h, const uint8_t s[32])
{
	for (int i = 0; i < 10; i++) {
		uint64_t w = 0;
		const int b = fe_pos[i] / 8;

		for (int j = 4; j >= 0; j--)
			w = (w << 8) | (b + j < 32 ? s[b + j] : 0);
		h->v[i] = (int64_t)((w >> (fe_pos[i] % 8)) & ((1u << fe_bits(i)) - 1));
	}
	h->v[9] &= (1 << 25) - 1; /* bit 255 ignored */
}

/* The unique value below p: h + 19 reaches 2^255 exactly when h >= p. */
static void fe_tobytes(uint8_t s[32], const fe *f)
{
	fe h = *f, g;
	int64_t m;

	fe_carry(&h);
	g = h;
	g.v[0] += 19;
	for (int i = 0; i < 9; i++) {
		g.v[i + 1] += g.v[i] >> fe_bits(i);
		g.v[i] &= ((int64_t)1 << fe_bits(i)) - 1;
	}
	m = -(g.v[9] >> 25); /* all ones when h >= p */
	g.v[9] &= (1 << 25) - 1;
	for (int i = 0; i < 10; i++)
		h.v[i] = (h.v[i] & ~m) | (g.v[i] & m);
	for (int i = 0; i < 32; i++)
		s[i] = 0;
	for (int i = 0; i < 10; i++)
		for (int j = 0; j < fe_bits(i); j++) {
			const int bit = fe_pos[i] + j;

			s[bit / 8] |= (uint8_t)(((h.v[i] >> j) & 1) << (bit % 8));
		}
}

static inline void fe_0(fe *h)
{
	for (int i = 0; i < 10; i++)
		h->v[i] = 0;
}

static inline void fe_1(fe *h)
{
	fe_0(h);
	h->v[0] = 1;
}

static inline void fe_add(fe *h, const fe *f, const fe *g)
{
	for (int i = 0; i < 10; i++)
		h->v[i] = f->v[i] + g->v[i];
	fe_carry(h);
}

static inline void fe_sub(fe *h, const fe *f, const fe *g)
{
	for (int i = 0; i < 10; i++)
		h->v[i] = f->v[i] - g->v[i];
	fe_carry(h);
}

/* Schoolbook: two odd (25-bit) limbs meet a bit early, hence the 2. */
static void fe_mul(fe *h, const fe *f, const fe *g)
{
	int64_t t[19] = {0};

	for (int i = 0; i < 10; i++)
		for (int j = 0; j < 10; j++)
			t[i + j] += f->v[i] * g->v[j] * (1 + (i & j & 1));
	for (int k = 18; k >= 10; k--)
		t[k - 10] += 19 * t[k];
	for (int i = 0; i < 10; i++)
		h->v[i] = t[i];
	fe_carry(h);
}

static void fe_sq(fe *h, const fe *f)
{
	fe_mul(h, f, f);
}

static void fe_mul_a24(fe *h, const fe *f)
{
	for (int i = 0; i < 10; i++)
		h->v[i] = f->v[i] * 121665;
	fe_carry(h);
}

#endif
