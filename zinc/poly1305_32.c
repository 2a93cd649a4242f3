// SPDX-License-Identifier: MIT
/* The portable Poly1305 blocks for targets without a 128-bit integer type
 * (32-bit ARM: make check-cross armhf): the state keeps zinc/poly1305.c's
 * 44-bit limbs, converted around five 26-bit limbs whose products fit
 * 64 bits. */
#if !defined(__SIZEOF_INT128__)
#include <zinc/memzero.h>
#include <zinc/poly1305.h>

#include "cpu.h"

#define M26 0x3ffffffULL
#define M44 0xfffffffffffULL

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* 44/44/42-bit limbs (a few bits over allowed) to 26-bit ones. */
static void to26(uint64_t o[5], const uint64_t in[3])
{
	uint64_t h0 = in[0], h1 = in[1], h2 = in[2], c;

	c = h0 >> 44, h0 &= M44, h1 += c;
	c = h1 >> 44, h1 &= M44, h2 += c;
	c = h2 >> 42, h2 &= 0x3ffffffffffULL, h0 += c * 5;
	c = h0 >> 44, h0 &= M44, h1 += c;
	o[0] = h0 & M26;
	o[1] = (h0 >> 26 | h1 << 18) & M26;
	o[2] = (h1 >> 8) & M26;
	o[3] = (h1 >> 34 | h2 << 10) & M26;
	o[4] = h2 >> 16;
}

/* Back, adding: limb 1 may be a bit over 26 bits. */
static void to44(uint64_t o[3], const uint64_t l[5])
{
	uint64_t v = l[0] + (l[1] << 26);

	o[0] = v & M44;
	v = (v >> 44) + (l[2] << 8) + (l[3] << 34);
	o[1] = v & M44;
	o[2] = (v >> 44) + (l[4] << 16);
}

void zinc_poly1305_blocks_generic(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
				  uint64_t hibit)
{
	uint64_t r[5], h[5], s[5], d[5], c;
	const uint64_t hb = hibit ? 1u << 24 : 0;

	to26(r, ctx->r);
	to26(h, ctx->h);
	for (int i = 1; i < 5; i++)
		s[i] = r[i] * 5;
	while (nblocks--) {
		h[0] += le32(src) & M26;
		h[1] += (le32(src + 3) >> 2) & M26;
		h[2] += (le32(src + 6) >> 4) & M26;
		h[3] += (le32(src + 9) >> 6) & M26;
		h[4] += (le32(src + 12) >> 8) | hb;
		d[0] = h[0] * r[0] + h[1] * s[4] + h[2] * s[3] + h[3] * s[2] + h[4] * s[1];
		d[1] = h[0] * r[1] + h[1] * r[0] + h[2] * s[4] + h[3] * s[3] + h[4] * s[2];
		d[2] = h[0] * r[2] + h[1] * r[1] + h[2] * r[0] + h[3] * s[4] + h[4] * s[3];
		d[3] = h[0] * r[3] + h[1] * r[2] + h[2] * r[1] + h[3] * r[0] + h[4] * s[4];
		d[4] = h[0] * r[4] + h[1] * r[3] + h[2] * r[2] + h[3] * r[1] + h[4] * r[0];
		c = 0;
		for (int i = 0; i < 5; i++) {
			d[i] += c;
			c = d[i] >> 26;
			h[i] = d[i] & M26;
		}
		h[0] += c * 5;
		h[1] += h[0] >> 26;
		h[0] &= M26;
		src += 16;
	}
	to44(ctx->h, h);
	zinc_memzero(h, sizeof(h));
	zinc_memzero(d, sizeof(d));
}
#endif
