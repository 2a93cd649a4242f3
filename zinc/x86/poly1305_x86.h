/* Internal Poly1305 for the x86-64 AEAD paths.
 * Scalar part: radix 2^64 (h = h0 + h1 2^64 + h2 2^128, r = r0 + r1 2^64),
 * three 64x64->128 multiplies per block, which beats the portable 44-bit
 * limbs on short messages.
 * Vector part (poly1305_avx2.c): four lanes in radix 2^26; block 4k+i
 * goes to lane i and each lane is multiplied by r^4 per group, so the lanes
 * finally need r^4, r^3, r^2, r^1 before they are summed. */
#ifndef ZINC_X86_POLY1305_X86_H
#define ZINC_X86_POLY1305_X86_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <zinc/poly1305.h>

typedef unsigned __int128 poly_u128;

struct poly1305_x86 {
	uint64_t h0, h1, h2;
	uint64_t r0, r1, s1; /* s1 = r1 + r1 / 4: folds 2^128 r1 terms back by 5/4 */
	uint64_t pad0, pad1;
	/* 4- or 8-lane state (radix 2^26, lane-major): accumulators and key
	 * powers. */
	int vec_started;
	uint32_t rpow[16][5];	/* r^1..r^16 in 26-bit limbs */
	uint64_t rpow44[16][3]; /* the same in 44-bit limbs (IFMA) */
	uint64_t acc[5][16];	/* limb j of lane i at acc[j][i] */
};

static inline uint64_t poly_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void poly64_init(struct poly1305_x86 *p, const uint8_t key[32])
{
	p->h0 = p->h1 = p->h2 = 0;
	p->r0 = poly_le64(key) & 0x0ffffffc0fffffffULL;
	p->r1 = poly_le64(key + 8) & 0x0ffffffc0ffffffcULL;
	p->s1 = p->r1 + (p->r1 >> 2);
	p->pad0 = poly_le64(key + 16);
	p->pad1 = poly_le64(key + 24);
	p->vec_started = 0;
}

/* h = (h + m + hibit 2^128) * r, partially reduced (h2 stays a few bits);
 * hibit is 1 except for the padded last block of the streaming API. */
static inline void poly64_blocks_hb(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks,
				    uint64_t hibit)
{
	const uint64_t r0 = p->r0, r1 = p->r1, s1 = p->s1;
	uint64_t h0 = p->h0, h1 = p->h1, h2 = p->h2;

	while (nblocks--) {
		poly_u128 d0, d1;
		uint64_t d2, c;

		d0 = (poly_u128)h0 + poly_le64(m);
		h0 = (uint64_t)d0;
		d1 = (poly_u128)h1 + poly_le64(m + 8) + (uint64_t)(d0 >> 64);
		h1 = (uint64_t)d1;
		h2 += (uint64_t)(d1 >> 64) + hibit;

		d0 = (poly_u128)h0 * r0 + (poly_u128)h1 * s1;
		d1 = (poly_u128)h0 * r1 + (poly_u128)h1 * r0 + (poly_u128)h2 * s1;
		d2 = h2 * r0;

		d1 += (uint64_t)(d0 >> 64);
		d2 += (uint64_t)(d1 >> 64);
		h0 = (uint64_t)d0;
		h1 = (uint64_t)d1;
		/* Bits at 2^130 and up are worth 5 times as much at 2^0. */
		c = (d2 >> 2) + (d2 & ~(uint64_t)3);
		h2 = d2 & 3;
		d0 = (poly_u128)h0 + c;
		h0 = (uint64_t)d0;
		d1 = (poly_u128)h1 + (uint64_t)(d0 >> 64);
		h1 = (uint64_t)d1;
		h2 += (uint64_t)(d1 >> 64);
		m += 16;
	}
	p->h0 = h0;
	p->h1 = h1;
	p->h2 = h2;
}

static inline void poly64_blocks(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks)
{
	poly64_blocks_hb(p, m, nblocks, 1);
}

/* Feeds len bytes, zero-padding a partial last block (the AEAD layout). */
static inline void poly64_padded(struct poly1305_x86 *p, const uint8_t *m, size_t len)
{
	poly64_blocks(p, m, len / 16);
	if (len & 15) {
		uint8_t b[16] = {0};

		memcpy(b, m + (len & ~(size_t)15), len & 15);
		poly64_blocks(p, b, 1);
	}
}

/* The streaming API's state (zinc/poly1305.c: 44-bit limbs, which may run
 * a little over) to radix 2^64 and back, around the scalar and vector
 * blocks of the x86-64 and arm64 entries. */
static inline void poly64_from_ctx(struct poly1305_x86 *p, const struct zinc_poly1305_ctx *ctx)
{
	poly_u128 t;

	p->r0 = ctx->r[0] | (ctx->r[1] << 44);
	p->r1 = (ctx->r[1] >> 20) | (ctx->r[2] << 24);
	p->s1 = p->r1 + (p->r1 >> 2);
	/* add, do not OR: the limbs may overlap */
	t = (poly_u128)ctx->h[0] + ((poly_u128)ctx->h[1] << 44);
	p->h0 = (uint64_t)t;
	t = (t >> 64) + ((poly_u128)ctx->h[2] << 24);
	p->h1 = (uint64_t)t;
	p->h2 = (uint64_t)(t >> 64);
	p->vec_started = 0;
}

static inline void poly64_to_ctx(struct zinc_poly1305_ctx *ctx, const struct poly1305_x86 *p)
{
	const uint64_t m44 = 0xfffffffffffULL;

	ctx->h[0] = p->h0 & m44;
	ctx->h[1] = ((p->h0 >> 44) | (p->h1 << 20)) & m44;
	ctx->h[2] = (p->h1 >> 24) | (p->h2 << 40);
}

/* Full reduction mod 2^130 - 5, plus the pad; branch free. */
static inline void poly64_final(struct poly1305_x86 *p, uint8_t mac[16])
{
	uint64_t h0 = p->h0, h1 = p->h1, h2 = p->h2, g0, g1, g2, mask;
	poly_u128 t;

	/* h < 2^131 here; fold bits above 2^130 once more. */
	t = (poly_u128)h0 + (h2 >> 2) * 5;
	h0 = (uint64_t)t;
	t = (poly_u128)h1 + (uint64_t)(t >> 64);
	h1 = (uint64_t)t;
	h2 = (h2 & 3) + (uint64_t)(t >> 64);
	/* g = h + 5 - 2^130; keep g when it did not go negative. */
	t = (poly_u128)h0 + 5;
	g0 = (uint64_t)t;
	t = (poly_u128)h1 + (uint64_t)(t >> 64);
	g1 = (uint64_t)t;
	g2 = h2 + (uint64_t)(t >> 64);
	mask = 0 - (g2 >> 2); /* all ones when h + 5 >= 2^130 */
	h0 = (h0 & ~mask) | (g0 & mask);
	h1 = (h1 & ~mask) | (g1 & mask);
	t = (poly_u128)h0 + p->pad0;
	h0 = (uint64_t)t;
	h1 = h1 + p->pad1 + (uint64_t)(t >> 64);
	memcpy(mac, &h0, 8);
	memcpy(mac + 8, &h1, 8);
}

/* 4-lane bulk (poly1305_avx2.c): nblocks is a multiple of 4. Starts the
 * vector state on the first call; poly_vec_finish folds it back into h. */
void zinc_poly1305_avx2_blocks(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks);
void zinc_poly1305_avx2_finish(struct poly1305_x86 *p);
/* The same with two sets of 8 lanes (poly1305_avx512.c), for more
 * independent work per step: nblocks a multiple of 16. */
void zinc_poly1305_avx512_blocks(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks);
void zinc_poly1305_avx512_finish(struct poly1305_x86 *p);
/* The same 16 lanes in radix 2^44 with AVX-512 IFMA (poly1305_ifma.c):
 * 52-bit multiply-adds need three limbs instead of five. */
void zinc_poly1305_ifma_blocks(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks);
void zinc_poly1305_ifma_finish(struct poly1305_x86 *p);
/* The finish with the last len (< 256) bytes, zero-padded to whole blocks
 * as the AEAD pads them, taken in the vector too. */
void zinc_poly1305_ifma_finish_tail(struct poly1305_x86 *p, const uint8_t *m, size_t len);
/* Shared by both: r^1..r^n into p->rpow, h into lane 0 of p->acc. */
void zinc_poly1305_vec_start(struct poly1305_x86 *p, int npow);
/* The radix 2^44 form: r^1..r^n into p->rpow44, h into lane 0 of p->acc
 * (only that lane is written). */
void zinc_poly1305_vec_start44(struct poly1305_x86 *p, int npow);
/* r^1..r^n (n = 4, 8 or 16) in radix 2^44, scalar. */
void zinc_poly1305_powers44(uint64_t pw[16][3], const struct poly1305_x86 *p, int n);
/* Folds lane sums l[0..2] (radix 2^44) back into p->h0..h2. */
void zinc_poly1305_vec_fold44(struct poly1305_x86 *p, uint64_t l[3]);
/* Folds the lane sums l[0..4] (radix 2^26) back into p->h0..h2. */
void zinc_poly1305_vec_fold(struct poly1305_x86 *p, uint64_t l[5]);

#endif
