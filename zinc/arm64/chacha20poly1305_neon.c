// SPDX-License-Identifier: MIT
/* ChaCha20-Poly1305 in one pass on arm64, as on x86 (zinc/x86/
 * chacha20poly1305_x86.c): 1 KiB chunks are encrypted with the NEON kernel
 * and authenticated (or authenticated and then decrypted) while still in
 * L1, block 0 (the Poly1305 key) is computed in the same kernel call as the
 * first three data blocks, and Poly1305 is the 64-bit scalar
 * code (mul/umulh: fewer instructions per byte at 1420 bytes than NEON's
 * radix 2^26 lanes with their key powers and final fold). The scalar
 * Poly1305 is the portable-C one of zinc/x86/poly1305_x86.h. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"
#include "../x86/poly1305_x86.h"

#define CHUNK 256 /* the first kernel call: block 0 and three data blocks */
#define PASS 1024 /* bytes per pass after it */
/* h0..h2, r0, r1, s1, pad0, pad1: the only fields this file uses */
#define POLY_WIPE (8 * sizeof(uint64_t))

/* Block 0 and the first data in one kernel call into buf (block 0 is the
 * Poly1305 key); returns the data bytes, which follow it in buf. */
static size_t first_chunk(uint32_t st[16], struct poly1305_x86 *p, uint8_t buf[CHUNK],
			  const uint8_t *src, size_t len, const uint8_t *ad, size_t ad_len)
{
	size_t n = len < CHUNK - 64 ? len : CHUNK - 64;

	memset(buf, 0, 64);
	if (n) /* src may be NULL when len is 0 */
		memcpy(buf + 64, src, n);
	zinc_chacha20_neon(st, buf, buf, 64 + n);
	poly64_init(p, buf);
	poly64_padded(p, ad, ad_len);
	return n;
}

static void tag_of(struct poly1305_x86 *p, size_t ad_len, size_t len, uint8_t tag[16])
{
	uint64_t lens[2] = {(uint64_t)ad_len, (uint64_t)len};

	poly64_blocks(p, (const uint8_t *)lens, 1);
	poly64_final(p, tag);
}

/* Authenticates ct from *done up to upto: whole blocks, padded at the end
 * (upto == len). */
static void auth_to(struct poly1305_x86 *p, const uint8_t *ct, size_t *done, size_t upto,
		    size_t len)
{
	if (upto == len)
		poly64_padded(p, ct + *done, upto - *done);
	else
		poly64_blocks(p, ct + *done, (upto - *done) / 16);
	*done = upto;
}

void zinc_aead_seal_neon(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			 size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	uint8_t buf[CHUNK];
	struct poly1305_x86 p;
	uint32_t st[16];
	size_t off, m, done = 0;

	zinc_chacha20_state(st, key, nonce, 0);
	off = first_chunk(st, &p, buf, src, len, ad, ad_len);
	memcpy(dst, buf + 64, off);
	zinc_memzero(buf, 64);
	auth_to(&p, dst, &done, off, len);
	for (; off < len; off += m) {
		m = len - off < PASS ? len - off : PASS;
		zinc_chacha20_neon(st, dst + off, src + off, m);
		auth_to(&p, dst, &done, off + m, len);
	}
	tag_of(&p, ad_len, len, dst + len);
	zinc_memzero(st, sizeof(st));
	zinc_memzero(&p, POLY_WIPE);
}

/* Zeroes dst unless ok, without a branch on the (secret until returned)
 * verdict; 64 bytes a step in NEON registers. */
static void wipe_unless(uint8_t *dst, size_t len, bool ok)
{
	uint64_t mask = 0 - (uint64_t)ok, w;
	uint8x16_t m;
	size_t i;

	__asm__("" : "+r"(mask));
	m = vreinterpretq_u8_u64(vdupq_n_u64(mask));
	for (i = 0; i + 64 <= len; i += 64) {
		uint8x16x4_t v = vld1q_u8_x4(dst + i);

		v.val[0] = vandq_u8(v.val[0], m);
		v.val[1] = vandq_u8(v.val[1], m);
		v.val[2] = vandq_u8(v.val[2], m);
		v.val[3] = vandq_u8(v.val[3], m);
		vst1q_u8_x4(dst + i, v);
	}
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, dst + i, 8);
		w &= mask;
		memcpy(dst + i, &w, 8);
	}
	for (; i < len; i++)
		dst[i] &= (uint8_t)mask;
}

/* Each chunk of ciphertext is authenticated before it is overwritten (dst
 * may be src). */
bool zinc_aead_open_neon(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			 size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	uint8_t buf[CHUNK], tag[16];
	struct poly1305_x86 p;
	uint32_t st[16];
	size_t len, off, m, done = 0;
	bool ok;

	if (src_len < 16)
		return false;
	len = src_len - 16;
	zinc_chacha20_state(st, key, nonce, 0);
	off = first_chunk(st, &p, buf, src, len, ad, ad_len);
	auth_to(&p, src, &done, off, len);
	memcpy(dst, buf + 64, off);
	zinc_memzero(buf, sizeof(buf));
	for (; off < len; off += m) {
		m = len - off < PASS ? len - off : PASS;
		auth_to(&p, src, &done, off + m, len);
		zinc_chacha20_neon(st, dst + off, src + off, m);
	}
	tag_of(&p, ad_len, len, tag);
	ok = zinc_memeq(tag, src + len, 16);
	wipe_unless(dst, len, ok);
	zinc_memzero(st, sizeof(st));
	zinc_memzero(&p, POLY_WIPE);
	zinc_memzero(tag, sizeof(tag));
	return ok;
}

/* The streaming Poly1305 entry: zinc/poly1305.c's 44-bit limbs to radix
 * 2^64 and back around the scalar code. */
void zinc_poly1305_blocks_arm64(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
				uint64_t hibit)
{
	struct poly1305_x86 p;

	poly64_from_ctx(&p, ctx);
	poly64_blocks_hb(&p, src, nblocks, hibit ? 1 : 0);
	poly64_to_ctx(ctx, &p);
	zinc_memzero(&p.h0, 6 * sizeof(uint64_t));
}
#endif
