// SPDX-License-Identifier: MIT
/* Known answers every accelerated entry passes before zinc_impl() hands it
 * out (selftest.h). */
#include <string.h>

#include <zinc/memzero.h>

#include "blake2s_constants.h"
#include "selftest.h"

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_BASIS 0xcbf29ce484222325ULL
#define KAT_MAX 2100

/* Shared inputs; the expected values were computed with libsodium and
 * OpenSSL, so they are independent of Zinc's own code. */
static void kat_inputs(uint8_t key[32], uint8_t nonce[12], uint8_t ad[13], uint8_t *in)
{
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 12; i++)
		nonce[i] = (uint8_t)(0x40 + i);
	for (int i = 0; i < 13; i++)
		ad[i] = (uint8_t)(0xa0 + i);
	for (int i = 0; i < KAT_MAX; i++)
		in[i] = (uint8_t)(i * 31 + 5);
}

/* Lengths cross every kernel width (4, 8, 16 blocks) and partial tails. */
static bool kat_chacha20(zinc_chacha20_fn fn)
{
	static const size_t lens[] = {1, 64, 130, 256, 511, 700, 1024, 2100};
	uint8_t key[32], nonce[12], ad[13], in[KAT_MAX], out[KAT_MAX];
	uint64_t h = FNV_BASIS;

	kat_inputs(key, nonce, ad, in);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		uint32_t st[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

		memcpy(st + 4, key, 32);
		st[12] = 7;
		memcpy(st + 13, nonce, 12);
		fn(st, out, in, lens[k]);
		if (st[12] != 7 + (lens[k] + 63) / 64)
			return false;
		h = fnv1a(h, out, lens[k]);
	}
	return h == 0x75a17205f909655fULL;
}

static bool kat_aead(zinc_aead_seal_fn seal, zinc_aead_open_fn open)
{
	static const size_t lens[] = {0, 1, 64, 200, 448, 449, 1420, 2100};
	uint8_t key[32], nonce[12], ad[13], in[KAT_MAX], out[KAT_MAX + 16], back[KAT_MAX];
	uint64_t h = FNV_BASIS;
	bool ok = true;

	kat_inputs(key, nonce, ad, in);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t n = lens[k];

		seal(out, in, n, ad, sizeof(ad), key, nonce);
		h = fnv1a(h, out, n + 16);
		ok &= open(back, out, n + 16, ad, sizeof(ad), key, nonce);
		ok &= memcmp(back, in, n) == 0;
		out[n / 2] ^= 1;
		ok &= !open(back, out, n + 16, ad, sizeof(ad), key, nonce);
	}
	return ok && h == 0xe7a7232667e58164ULL;
}

/* BLAKE2s-256 of the 320 known-answer input bytes. */
static const uint8_t kat_blake2s_digest[32] = {
    0xdb, 0xe1, 0x6e, 0xcf, 0x71, 0x94, 0x24, 0xdf, 0xca, 0xf5, 0xea, 0xb8, 0x71, 0x05, 0x4e, 0x55,
    0xae, 0x1b, 0x9e, 0x04, 0xd0, 0x8e, 0x08, 0xf0, 0x64, 0x28, 0xe3, 0x0a, 0x79, 0x5c, 0x52, 0x5c};

/* Unkeyed 32-byte BLAKE2s state before any block; in = the KAT input. */
static void kat_blake2s_init(struct zinc_blake2s_state *s, uint8_t in[KAT_MAX])
{
	uint8_t key[32], nonce[12], ad[13];

	kat_inputs(key, nonce, ad, in);
	memset(s, 0, sizeof(*s));
	memcpy(s->h, zinc_blake2s_iv, sizeof(zinc_blake2s_iv));
	s->h[0] ^= 0x01010000 | 32;
}

/* BLAKE2s-256 of 320 bytes: four blocks in one call, then the last one. */
static bool kat_blake2s(zinc_blake2s_compress_fn fn)
{
	uint8_t in[KAT_MAX];
	struct zinc_blake2s_state s;

	kat_blake2s_init(&s, in);
	fn(&s, in, 4, 64);
	s.f[0] = ~0u;
	fn(&s, in + 256, 1, 64);
	/* Little-endian host: h is the digest byte order. */
	return memcmp(s.h, kat_blake2s_digest, 32) == 0;
}

/* The same 320 bytes through the one-call entry (four blocks, then the
 * final one, in one call); then a call with no whole block, checked
 * against the portable streaming entry. */
static bool kat_blake2s_final(zinc_blake2s_final_fn fn)
{
	uint8_t in[KAT_MAX];
	struct zinc_blake2s_state s, r;

	kat_blake2s_init(&s, in);
	fn(&s, in, 4, in + 256, 64);
	if (memcmp(s.h, kat_blake2s_digest, 32) != 0 || s.t[0] != 320 || s.f[0] != ~0u)
		return false;
	r = s;
	fn(&s, in, 0, in + 7, 13);
	zinc_blake2s_compress_generic(&r, in + 7, 1, 13);
	return memcmp(&s, &r, 48) == 0;
}

#if defined(__SIZEOF_INT128__)
/* Poly1305 of 2100 bytes through the streaming-state entry: 131 full
 * blocks (the vector code runs) and the padded last one (hibit 0). The
 * tag is finished here, independently of zinc/poly1305.c. */
static bool kat_poly1305(zinc_poly1305_blocks_fn fn)
{
	static const uint8_t want[16] = {0xfe, 0xf8, 0x12, 0x8e, 0x03, 0x48, 0x21, 0x37,
					 0x71, 0xb6, 0x63, 0x88, 0x6d, 0x01, 0x1a, 0x47};
	const uint64_t m44 = 0xfffffffffffULL;
	uint8_t key[32], nonce[12], ad[13], in[KAT_MAX], last[16] = {0}, mac[16];
	struct zinc_poly1305_ctx ctx;
	uint64_t t0, t1, w0, w1, w2, g0, g1, g2, mask;
	unsigned __int128 t;

	kat_inputs(key, nonce, ad, in);
	memset(&ctx, 0, sizeof(ctx));
	memcpy(&t0, key, 8);
	memcpy(&t1, key + 8, 8);
	t0 &= 0x0ffffffc0fffffffULL;
	t1 &= 0x0ffffffc0ffffffcULL;
	ctx.r[0] = t0 & m44;
	ctx.r[1] = ((t0 >> 44) | (t1 << 20)) & m44;
	ctx.r[2] = t1 >> 24;
	fn(&ctx, in, KAT_MAX / 16, 1ULL << 40);
	memcpy(last, in + KAT_MAX / 16 * 16, KAT_MAX % 16);
	last[KAT_MAX % 16] = 1;
	fn(&ctx, last, 1, 0);
	/* h (44-bit limbs) to radix 2^64, reduce mod 2^130 - 5, add s. */
	t = (unsigned __int128)ctx.h[0] + ((unsigned __int128)ctx.h[1] << 44);
	w0 = (uint64_t)t;
	t = (t >> 64) + ((unsigned __int128)ctx.h[2] << 24);
	w1 = (uint64_t)t;
	w2 = (uint64_t)(t >> 64);
	t = (unsigned __int128)w0 + (w2 >> 2) * 5;
	w0 = (uint64_t)t;
	t = (unsigned __int128)w1 + (uint64_t)(t >> 64);
	w1 = (uint64_t)t;
	w2 = (w2 & 3) + (uint64_t)(t >> 64);
	t = (unsigned __int128)w0 + 5;
	g0 = (uint64_t)t;
	t = (unsigned __int128)w1 + (uint64_t)(t >> 64);
	g1 = (uint64_t)t;
	g2 = w2 + (uint64_t)(t >> 64);
	mask = 0 - (g2 >> 2);
	w0 = (w0 & ~mask) | (g0 & mask);
	w1 = (w1 & ~mask) | (g1 & mask);
	memcpy(&t0, key + 16, 8);
	memcpy(&t1, key + 24, 8);
	t = (unsigned __int128)w0 + t0;
	w0 = (uint64_t)t;
	w1 = w1 + t1 + (uint64_t)(t >> 64);
	memcpy(mac, &w0, 8);
	memcpy(mac + 8, &w1, 8);
	return memcmp(mac, want, 16) == 0;
}

#else
/* Only the portable entries exist without a 128-bit type: never called. */
static bool kat_poly1305(zinc_poly1305_blocks_fn fn)
{
	return !fn;
}
#endif

/* RFC 7748 section 5.2, first vector. */
static bool kat_x25519(zinc_x25519_fn fn)
{
	static const uint8_t scalar[32] = {
	    0xa5, 0x46, 0xe3, 0x6b, 0xf0, 0x52, 0x7c, 0x9d, 0x3b, 0x16, 0x15,
	    0x4b, 0x82, 0x46, 0x5e, 0xdd, 0x62, 0x14, 0x4c, 0x0a, 0xc1, 0xfc,
	    0x5a, 0x18, 0x50, 0x6a, 0x22, 0x44, 0xba, 0x44, 0x9a, 0xc4,
	};
	static const uint8_t point[32] = {
	    0xe6, 0xdb, 0x68, 0x67, 0x58, 0x30, 0x30, 0xdb, 0x35, 0x94, 0xc1,
	    0xa4, 0x24, 0xb1, 0x5f, 0x7c, 0x72, 0x66, 0x24, 0xec, 0x26, 0xb3,
	    0x35, 0x3b, 0x10, 0xa9, 0x03, 0xa6, 0xd0, 0xab, 0x1c, 0x4c,
	};
	static const uint8_t want[32] = {
	    0xc3, 0xda, 0x55, 0x37, 0x9d, 0xe9, 0xc6, 0x90, 0x8e, 0x94, 0xea,
	    0x4d, 0xf2, 0x8d, 0x08, 0x4f, 0x32, 0xec, 0xcf, 0x03, 0x49, 0x1c,
	    0x71, 0xf7, 0x54, 0xb4, 0x07, 0x55, 0x77, 0xa2, 0x85, 0x52,
	};
	uint8_t e[32], out[32];

	memcpy(e, scalar, 32);
	e[0] &= 248;
	e[31] = (uint8_t)((e[31] & 127) | 64);
	fn(out, e, point);
	return memcmp(out, want, 32) == 0;
}

/* RFC 7748 section 6.1: Alice's public key. */
static bool kat_x25519_base(zinc_x25519_base_fn fn)
{
	static const uint8_t secret[32] = {
	    0x77, 0x07, 0x6d, 0x0a, 0x73, 0x18, 0xa5, 0x7d, 0x3c, 0x16, 0xc1,
	    0x72, 0x51, 0xb2, 0x66, 0x45, 0xdf, 0x4c, 0x2f, 0x87, 0xeb, 0xc0,
	    0x99, 0x2a, 0xb1, 0x77, 0xfb, 0xa5, 0x1d, 0xb9, 0x2c, 0x2a,
	};
	static const uint8_t want[32] = {
	    0x85, 0x20, 0xf0, 0x09, 0x89, 0x30, 0xa7, 0x54, 0x74, 0x8b, 0x7d,
	    0xdc, 0xb4, 0x3e, 0xf7, 0x5a, 0x0d, 0xbf, 0x3a, 0x0d, 0x26, 0x38,
	    0x1a, 0xf4, 0xeb, 0xa4, 0xa9, 0x8e, 0xaa, 0x9b, 0x4e, 0x6a,
	};
	uint8_t e[32], out[32];

	memcpy(e, secret, 32);
	e[0] &= 248;
	e[31] = (uint8_t)((e[31] & 127) | 64);
	fn(out, e);
	return memcmp(out, want, 32) == 0;
}

static uint8_t nibble(char c)
{
	return (uint8_t)(c <= '9' ? c - '0' : c - 'a' + 10);
}

/* Eight lanes (or twice four): Alice's and Bob's secrets of RFC 7748 section 6.1 against
 * each other's public key and the base point, so every lane's answer is
 * known and neighbouring lanes differ. */
static bool kat_x25519_x8(zinc_x25519_x8_fn fn, unsigned lanes)
{
	static const char *const hex[4] = {
	    "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a", /* a */
	    "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb", /* b */
	    "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a", /* aB */
	    "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f", /* bB */
	};
	static const uint8_t shared[32] = {
	    0x4a, 0x5d, 0x9d, 0x5b, 0xa4, 0xce, 0x2d, 0xe1, 0x72, 0x8e, 0x3b,
	    0xf4, 0x80, 0x35, 0x0f, 0x25, 0xe0, 0x7e, 0x21, 0xc9, 0x47, 0xd1,
	    0x9e, 0x33, 0x76, 0xf0, 0x9b, 0x3c, 0x1e, 0x16, 0x17, 0x42,
	};
	uint8_t v[4][32], e[8][32], pt[8][32], out[8][32];
	bool ok = true;

	for (int k = 0; k < 4; k++)
		for (int i = 0; i < 32; i++)
			v[k][i] = (uint8_t)(nibble(hex[k][2 * i]) << 4 | nibble(hex[k][2 * i + 1]));
	for (int l = 0; l < 8; l++) {
		memcpy(e[l], v[l & 1], 32);
		e[l][0] &= 248;
		e[l][31] = (uint8_t)((e[l][31] & 127) | 64);
		memset(pt[l], 0, 32);
		pt[l][0] = 9;
		if (l & 2) /* the other's public key */
			memcpy(pt[l], v[3 - (l & 1)], 32);
	}
	for (unsigned o = 0; o < 8; o += lanes)
		fn(out + o, e + o, pt + o);
	for (int l = 0; l < 8; l++)
		ok &= memcmp(out[l], l & 2 ? shared : v[2 + (l & 1)], 32) == 0;
	return ok;
}

/* force_fail (ZINC_SELFTEST_FAIL=1) makes every accelerated known answer
 * fail, to prove the fallback to the portable code works. */
static bool passes(bool ok, bool force_fail)
{
	return ok && !force_fail;
}

void zinc_selftest(struct zinc_impl *t, bool force_fail)
{
	if (t->chacha20 != zinc_chacha20_generic &&
	    !passes(kat_chacha20(t->chacha20), force_fail)) {
		t->chacha20 = zinc_chacha20_generic;
		t->chacha20_name = "generic (self-test failed)";
		t->selftest_failures++;
	}
	if (t->aead_seal != zinc_aead_seal_generic &&
	    !passes(kat_aead(t->aead_seal, t->aead_open), force_fail)) {
		t->aead_seal = zinc_aead_seal_generic;
		t->aead_open = zinc_aead_open_generic;
		t->aead_name = "generic (self-test failed)";
		t->selftest_failures++;
	}
	if ((t->blake2s_compress != zinc_blake2s_compress_generic ||
	     t->blake2s_final != zinc_blake2s_compress_final_generic) &&
	    !passes(kat_blake2s(t->blake2s_compress) && kat_blake2s_final(t->blake2s_final),
		    force_fail)) {
		t->blake2s_compress = zinc_blake2s_compress_generic;
		t->blake2s_final = zinc_blake2s_compress_final_generic;
		t->blake2s_name = "generic (self-test failed)";
		t->selftest_failures++;
	}
	if (t->poly1305_blocks != zinc_poly1305_blocks_generic &&
	    !passes(kat_poly1305(t->poly1305_blocks), force_fail)) {
		t->poly1305_blocks = zinc_poly1305_blocks_generic;
		t->poly1305_name = "generic (self-test failed)";
		t->selftest_failures++;
	}
	if (t->x25519 != zinc_x25519_generic && !passes(kat_x25519(t->x25519), force_fail)) {
		t->x25519 = zinc_x25519_generic;
		t->x25519_name = "generic (self-test failed)";
		t->selftest_failures++;
	}
	if (t->x25519_x8 && !passes(kat_x25519_x8(t->x25519_x8, t->x25519_lanes), force_fail)) {
		t->x25519_x8 = NULL;
		t->x25519_batch_name = "loop (self-test failed)";
		t->selftest_failures++;
	}
	if (t->x25519_base != zinc_x25519_base_generic &&
	    !passes(kat_x25519_base(t->x25519_base), force_fail)) {
		t->x25519_base = zinc_x25519_base_generic;
		t->x25519_base_name = "generic (self-test failed)";
		t->selftest_failures++;
	}
}
