// SPDX-License-Identifier: MIT
/* Poly1305 (RFC 8439) in portable C: three limbs of 44, 44 and 42 bits,
 * products accumulated in unsigned __int128. poly1305_blocks() is the single
 * point where an architecture implementation can later be dispatched. */
#include <stdint.h>
#include <string.h>

#include <zinc/memzero.h>
#include <zinc/poly1305.h>

#include "cpu.h"

#define MASK44 0xfffffffffffULL
#define MASK42 0x3ffffffffffULL

static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline void store_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

#if defined(__SIZEOF_INT128__) /* else poly1305_32.c */
typedef unsigned __int128 u128;

/* h = (h + m) * r mod 2^130 - 5 for each 16-byte block; hibit is 2^128
 * expressed in limb 2 (1 << 40) for full blocks, 0 for the padded last one. */
void zinc_poly1305_blocks_generic(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
				  uint64_t hibit)
{
	const uint64_t r0 = ctx->r[0], r1 = ctx->r[1], r2 = ctx->r[2];
	/* Limb products at 2^132 and above wrap to 2^130 * 4 ≡ 5 * 4 = 20. */
	const uint64_t s1 = r1 * 20, s2 = r2 * 20;
	uint64_t h0 = ctx->h[0], h1 = ctx->h[1], h2 = ctx->h[2];

	while (nblocks--) {
		uint64_t t0 = load_le64(src), t1 = load_le64(src + 8);
		u128 d0, d1, d2;
		uint64_t c;

		h0 += t0 & MASK44;
		h1 += ((t0 >> 44) | (t1 << 20)) & MASK44;
		h2 += (t1 >> 24) | hibit;

		d0 = (u128)h0 * r0 + (u128)h1 * s2 + (u128)h2 * s1;
		d1 = (u128)h0 * r1 + (u128)h1 * r0 + (u128)h2 * s2;
		d2 = (u128)h0 * r2 + (u128)h1 * r1 + (u128)h2 * r0;

		/* Partial carry: limbs stay a few bits above their width. */
		c = (uint64_t)(d0 >> 44);
		h0 = (uint64_t)d0 & MASK44;
		d1 += c;
		c = (uint64_t)(d1 >> 44);
		h1 = (uint64_t)d1 & MASK44;
		d2 += c;
		c = (uint64_t)(d2 >> 42);
		h2 = (uint64_t)d2 & MASK42;
		h0 += c * 5;
		c = h0 >> 44;
		h0 &= MASK44;
		h1 += c;

		src += 16;
	}
	ctx->h[0] = h0;
	ctx->h[1] = h1;
	ctx->h[2] = h2;
}
#endif

/* The one dispatch point: the entry zinc_impl() chose for this CPU (the
 * portable one above is zinc_poly1305_blocks_generic in zinc/cpu.h). */
static void poly1305_blocks(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
			    uint64_t hibit)
{
	zinc_impl()->poly1305_blocks(ctx, src, nblocks, hibit);
}

void zinc_poly1305_init(struct zinc_poly1305_ctx *ctx, const uint8_t key[32])
{
	/* Clamp r as RFC 8439 section 2.5 requires, then split into limbs. */
	uint64_t t0 = load_le64(key) & 0x0ffffffc0fffffffULL;
	uint64_t t1 = load_le64(key + 8) & 0x0ffffffc0ffffffcULL;

	ctx->r[0] = t0 & MASK44;
	ctx->r[1] = ((t0 >> 44) | (t1 << 20)) & MASK44;
	ctx->r[2] = t1 >> 24;
	ctx->h[0] = 0;
	ctx->h[1] = 0;
	ctx->h[2] = 0;
	ctx->s[0] = load_le64(key + 16);
	ctx->s[1] = load_le64(key + 24);
	ctx->num = 0;
}

void zinc_poly1305_update(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t len)
{
	if (!len)
		return; /* src may be NULL then */
	if (ctx->num) {
		size_t n = 16 - ctx->num;

		if (n > len)
			n = len;
		memcpy(ctx->buf + ctx->num, src, n);
		ctx->num += n;
		src += n;
		len -= n;
		if (ctx->num < 16)
			return;
		poly1305_blocks(ctx, ctx->buf, 1, 1ULL << 40);
		ctx->num = 0;
	}
	if (len >= 16) {
		size_t nblocks = len / 16;

		poly1305_blocks(ctx, src, nblocks, 1ULL << 40);
		src += nblocks * 16;
		len -= nblocks * 16;
	}
	if (len) {
		memcpy(ctx->buf, src, len);
		ctx->num = len;
	}
}

void zinc_poly1305_final(struct zinc_poly1305_ctx *ctx, uint8_t mac[16])
{
	uint64_t h0, h1, h2, g0, g1, g2, c, mask, f;

	if (ctx->num) {
		/* The last partial block carries its 2^(8*num) bit as a 0x01 byte. */
		ctx->buf[ctx->num] = 1;
		memset(ctx->buf + ctx->num + 1, 0, 16 - ctx->num - 1);
		poly1305_blocks(ctx, ctx->buf, 1, 0);
	}

	h0 = ctx->h[0];
	h1 = ctx->h[1];
	h2 = ctx->h[2];

	/* Full carry so that h < 2^130 with canonical limbs. */
	c = h1 >> 44;
	h1 &= MASK44;
	h2 += c;
	c = h2 >> 42;
	h2 &= MASK42;
	h0 += c * 5;
	c = h0 >> 44;
	h0 &= MASK44;
	h1 += c;
	c = h1 >> 44;
	h1 &= MASK44;
	h2 += c;
	c = h2 >> 42;
	h2 &= MASK42;
	h0 += c * 5;
	c = h0 >> 44;
	h0 &= MASK44;
	h1 += c;

	/* g = h + 5 - 2^130; use g when it did not go negative (h >= p). */
	g0 = h0 + 5;
	c = g0 >> 44;
	g0 &= MASK44;
	g1 = h1 + c;
	c = g1 >> 44;
	g1 &= MASK44;
	g2 = h2 + c - (1ULL << 42);
	mask = (g2 >> 63) - 1; /* all ones when g2 >= 0 */
	h0 = (h0 & ~mask) | (g0 & mask);
	h1 = (h1 & ~mask) | (g1 & mask);
	h2 = (h2 & ~mask) | (g2 & mask);

	/* tag = (h + s) mod 2^128 */
	f = (h0 | (h1 << 44)) + ctx->s[0];
	store_le64(mac, f);
	c = f < ctx->s[0]; /* the carry, without a 128-bit type (32-bit targets) */
	f = ((h1 >> 20) | (h2 << 24)) + ctx->s[1] + c;
	store_le64(mac + 8, f);

	zinc_memzero(ctx, sizeof(*ctx));
}

void zinc_poly1305(uint8_t mac[16], const uint8_t *src, size_t len, const uint8_t key[32])
{
	struct zinc_poly1305_ctx ctx;

	zinc_poly1305_init(&ctx, key);
	zinc_poly1305_update(&ctx, src, len);
	zinc_poly1305_final(&ctx, mac);
}
