// SPDX-License-Identifier: MIT
/* Every x86-64 kernel against libsodium (the independent reference) and
 * against Zinc's portable entries: every length 0..2048, unaligned buffers,
 * in place, random large inputs, carry-edge Poly1305 inputs. Kernels the CPU
 * lacks are reported and not run. */
#include <openssl/evp.h>
#include <sodium.h>
#include <cpuid.h>
#include <stdbool.h>

#include "test.h"
#include "../../zinc/cpu.h"
#include "../../zinc/x86/poly1305_x86.h"

#include <zinc/zinc.h>

static uint64_t seed = 0x5eed1234abcdULL;

struct chacha_path {
	const char *name;
	const char *feature;
	zinc_chacha20_fn fn;
};

struct aead_path {
	const char *name;
	const char *feature;
	zinc_aead_seal_fn seal;
	zinc_aead_open_fn open;
};

/* ADX is not a __builtin_cpu_supports name in clang 14: read CPUID leaf 7
 * (EBX bit 8 BMI2, 19 ADX) directly. */
static bool cpu_bmi2_adx(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return (b & (1u << 8)) && (b & (1u << 19));
}

static bool cpu_has(const char *f)
{
	if (!f)
		return true;
	if (!strcmp(f, "ssse3"))
		return __builtin_cpu_supports("ssse3");
	if (!strcmp(f, "avx2"))
		return __builtin_cpu_supports("avx2");
	if (!strcmp(f, "avx512"))
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
		       __builtin_cpu_supports("avx512bw");
	if (!strcmp(f, "avx512ifma"))
		return cpu_has("avx512") && __builtin_cpu_supports("avx512ifma");
	if (!strcmp(f, "bmi2+adx"))
		return cpu_bmi2_adx();
	return false;
}

static void state_from(uint32_t st[16], const uint8_t key[32], const uint8_t nonce[12],
		       uint32_t ctr)
{
	st[0] = 0x61707865;
	st[1] = 0x3320646e;
	st[2] = 0x79622d32;
	st[3] = 0x6b206574;
	memcpy(st + 4, key, 32);
	st[12] = ctr;
	memcpy(st + 13, nonce, 12);
}

/* One length at the given misalignments, out of place and in place. */
static void chacha_one(const struct chacha_path *p, size_t len, size_t soff, size_t doff)
{
	static uint8_t src[70000 + 64], dst[70000 + 128], ref[70000 + 64], gen[70000 + 64];
	uint8_t key[32], nonce[12];
	uint32_t st[16], ctr = (uint32_t)(test_rand64(&seed) & 0xffff);
	uint32_t want_ctr = ctr + (uint32_t)((len + 63) / 64);

	test_randbytes(&seed, key, 32);
	test_randbytes(&seed, nonce, 12);
	test_randbytes(&seed, src + soff, len);
	crypto_stream_chacha20_ietf_xor_ic(ref, src + soff, len, nonce, ctr, key);

	/* Masked tails must not touch a byte past len. */
	memset(dst + doff + len, 0x5a, 64);
	state_from(st, key, nonce, ctr);
	p->fn(st, dst + doff, src + soff, len);
	CHECK_MEM(dst + doff, ref, len, p->name);
	CHECK(st[12] == want_ctr);
	for (size_t i = 0; i < 64; i++)
		CHECK(dst[doff + len + i] == 0x5a);

	state_from(st, key, nonce, ctr);
	zinc_chacha20_generic(st, gen, src + soff, len);
	CHECK_MEM(gen, ref, len, "generic chacha20 vs libsodium");

	memcpy(dst + doff, src + soff, len);
	state_from(st, key, nonce, ctr);
	p->fn(st, dst + doff, dst + doff, len);
	CHECK_MEM(dst + doff, ref, len, "in place");
}

static void test_chacha(const struct chacha_path *p)
{
	for (size_t len = 0; len <= 2048; len++)
		chacha_one(p, len, len % 7, (len * 3) % 5);
	for (int i = 0; i < 40; i++)
		chacha_one(p, (size_t)(test_rand64(&seed) % 70000), i & 3, (i >> 2) & 7);
}

/* Seal and open one message; checks both against libsodium and tamper. */
static void aead_one(const struct aead_path *p, size_t len, size_t ad_len, size_t off)
{
	static uint8_t pt[70000 + 64], ct[70000 + 128], ref[70000 + 64], out[70000 + 128];
	static uint8_t gen[70000 + 64];
	uint8_t key[32], nonce[12], ad[64];
	unsigned long long rlen;

	test_randbytes(&seed, key, 32);
	test_randbytes(&seed, nonce, 12);
	test_randbytes(&seed, ad, ad_len);
	test_randbytes(&seed, pt + off, len);
	crypto_aead_chacha20poly1305_ietf_encrypt(ref, &rlen, pt + off, len, ad, ad_len, NULL,
						  nonce, key);

	memset(ct + off + len + 16, 0x5a, 32);
	p->seal(ct + off, pt + off, len, ad, ad_len, key, nonce);
	CHECK_MEM(ct + off, ref, len + 16, p->name);
	CHECK(ct[off + len + 16] == 0x5a && ct[off + len + 47] == 0x5a);
	zinc_aead_seal_generic(gen, pt + off, len, ad, ad_len, key, nonce);
	CHECK_MEM(gen, ref, len + 16, "generic seal vs libsodium");

	memset(out, 0xaa, len + 64);
	CHECK(p->open(out + (off ^ 1), ref, len + 16, ad, ad_len, key, nonce));
	CHECK_MEM(out + (off ^ 1), pt + off, len, "open");
	CHECK(out[(off ^ 1) + len] == 0xaa && out[(off ^ 1) + len + 47] == 0xaa);

	/* In place both ways. */
	memcpy(out + off, pt + off, len);
	p->seal(out + off, out + off, len, ad, ad_len, key, nonce);
	CHECK_MEM(out + off, ref, len + 16, "seal in place");
	CHECK(p->open(out + off, out + off, len + 16, ad, ad_len, key, nonce));
	CHECK_MEM(out + off, pt + off, len, "open in place");

	/* A flipped bit anywhere (ciphertext, tag, ad) fails and zeroes dst. */
	if (len + 16 > 0) {
		size_t bit = (size_t)(test_rand64(&seed) % ((len + 16) * 8));
		static const uint8_t zero[70000];

		memcpy(ct, ref, len + 16);
		ct[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		memset(out, 0xaa, len);
		CHECK(!p->open(out, ct, len + 16, ad, ad_len, key, nonce));
		CHECK_MEM(out, zero, len, "forged open zeroes dst");
		memcpy(out, ct, len + 16);
		CHECK(!p->open(out, out, len + 16, ad, ad_len, key, nonce));
		CHECK_MEM(out, zero, len, "forged open in place zeroes dst");
		if (ad_len) {
			ad[0] ^= 1;
			CHECK(!p->open(out, ref, len + 16, ad, ad_len, key, nonce));
		}
	}
	CHECK(!p->open(out, ref, 15, ad, ad_len, key, nonce));
}

static void test_aead(const struct aead_path *p)
{
	for (size_t len = 0; len <= 2048; len++)
		aead_one(p, len, len % 37, len % 5);
	for (int i = 0; i < 40; i++)
		aead_one(p, (size_t)(test_rand64(&seed) % 70000), (size_t)(test_rand64(&seed) % 64),
			 i & 3);
}

/* Poly1305 directly, on the inputs that stress carries: all-ones data,
 * the largest clamped r, and random data; scalar, then the vector code
 * (group = blocks per vector step) split the way the AEAD splits it. */
struct vpoly {
	const char *name;
	void (*blocks)(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks);
	void (*finish)(struct poly1305_x86 *p);
	size_t group;
};

static void poly_one(const uint8_t key[32], const uint8_t *m, size_t nblocks, const struct vpoly *v)
{
	struct poly1305_x86 p;
	uint8_t mac[16], ref[16];
	size_t done = 0;

	crypto_onetimeauth_poly1305(ref, m, nblocks * 16, key);
	poly64_init(&p, key);
	if (v) {
		/* A scalar prefix (the AEAD's ad), then two vector calls. */
		size_t pre = nblocks % v->group, half, rest;

		poly64_blocks(&p, m, pre);
		done = pre;
		half = (nblocks - pre) / 2 / v->group * v->group;
		v->blocks(&p, m + 16 * done, half);
		done += half;
		rest = (nblocks - done) / v->group * v->group;
		v->blocks(&p, m + 16 * done, rest);
		done += rest;
		v->finish(&p);
	}
	poly64_blocks(&p, m + 16 * done, nblocks - done);
	poly64_final(&p, mac);
	CHECK_MEM(mac, ref, 16, v ? v->name : "poly1305 scalar64");
}

static void test_poly(const struct vpoly *v)
{
	static uint8_t m[16 * 600];
	uint8_t key[32];

	for (int kind = 0; kind < 4; kind++) {
		for (size_t nb = 0; nb <= 600; nb += (nb < 80 ? 1 : 37)) {
			memset(key, kind & 1 ? 0xff : 0, 32);
			if (!(kind & 1))
				test_randbytes(&seed, key, 32);
			if (kind & 2)
				memset(m, 0xff, sizeof(m));
			else
				test_randbytes(&seed, m, sizeof(m));
			poly_one(key, m, nb, v);
		}
	}
}

/* The streaming-state Poly1305 entries (zinc/poly1305.c's 44-bit limbs):
 * full blocks and the padded last block through the entry, the tag through
 * zinc_poly1305_final, against libsodium. */
static void test_poly_stream(const char *name, zinc_poly1305_blocks_fn fn)
{
	static uint8_t m[70000 + 8];
	uint8_t key[32], mac[16], ref[16], last[16];

	for (size_t i = 0; i < 2049 + 40; i++) {
		size_t len = i <= 2048 ? i : (size_t)(test_rand64(&seed) % 70000);
		size_t off = i % 5, full = len / 16;
		struct zinc_poly1305_ctx ctx;
		int edge = i % 7 == 0;

		test_randbytes(&seed, key, 32);
		if (edge)
			memset(key, 0xff, 16);
		test_randbytes(&seed, m + off, len);
		if (edge)
			memset(m + off, 0xff, len);
		crypto_onetimeauth_poly1305(ref, m + off, len, key);
		zinc_poly1305_init(&ctx, key);
		fn(&ctx, m + off, full, 1ULL << 40);
		if (len % 16) {
			memset(last, 0, 16);
			memcpy(last, m + off + 16 * full, len % 16);
			last[len % 16] = 1;
			fn(&ctx, last, 1, 0);
		}
		zinc_poly1305_final(&ctx, mac);
		CHECK_MEM(mac, ref, 16, name);
	}
}

/* BLAKE2s-256 driven through one compress function, the way blake2s.c
 * does: all full blocks but the last in one call, then the final block. */
static void b2_hash(zinc_blake2s_compress_fn fn, uint8_t out[32], const uint8_t *in, size_t len)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	struct zinc_blake2s_state s;
	uint8_t last[64] = {0};
	size_t full = len ? (len - 1) / 64 : 0;

	memset(&s, 0, sizeof(s));
	memcpy(s.h, iv, sizeof(iv));
	s.h[0] ^= 0x01010000 | 32;
	if (full)
		fn(&s, in, full, 64);
	memcpy(last, in + 64 * full, len - 64 * full);
	s.f[0] = ~0u;
	fn(&s, last, 1, (uint32_t)(len - 64 * full));
	memcpy(out, s.h, 32);
}

static void test_blake2s(const char *name, zinc_blake2s_compress_fn fn)
{
	static uint8_t in[2048 + 40 * 1700 + 8];
	uint8_t out[32], ref[32], gen[32];
	unsigned n;

	for (size_t len = 0; len <= 2048 + 40 * 1700; len += (len < 2048 ? 1 : 1700)) {
		size_t off = len % 7;

		test_randbytes(&seed, in + off, len);
		b2_hash(fn, out, in + off, len);
		EVP_Digest(in + off, len, ref, &n, EVP_blake2s256(), NULL);
		CHECK_MEM(out, ref, 32, name);
		b2_hash(zinc_blake2s_compress_generic, gen, in + off, len);
		CHECK_MEM(gen, ref, 32, "generic blake2s vs OpenSSL");
	}
	/* The 64-bit counter carries out of t[0]. */
	struct zinc_blake2s_state a, b;
	memset(&a, 0, sizeof(a));
	a.t[0] = 0xffffffc0u;
	b = a;
	fn(&a, in, 3, 64);
	zinc_blake2s_compress_generic(&b, in, 3, 64);
	CHECK(a.t[1] == 1 && a.t[0] == 0x80);
	CHECK_MEM(a.h, b.h, 32, "blake2s counter carry");
	/* No blocks: nothing changes (the assembly returns before its loop). */
	b = a;
	fn(&a, in, 0, 64);
	CHECK_MEM(&a, &b, sizeof(a), "blake2s zero blocks");
}

/* The one-call entry (whole blocks, then the final block from its own
 * buffer, in one call) against the portable one and OpenSSL on every
 * length up to 2048 and some beyond; the whole state (h, t, f) must match. */
static void test_blake2s_final(const char *name, zinc_blake2s_final_fn fn)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	static uint8_t in[2048 + 40 * 1700 + 8];
	struct zinc_blake2s_state a, b;
	uint8_t last[64], ref[32];
	unsigned n;

	for (size_t len = 0; len <= 2048 + 40 * 1700; len += (len < 2048 ? 1 : 1700)) {
		size_t off = len % 7, full = len ? (len - 1) / 64 : 0;
		size_t rest = len - 64 * full;

		test_randbytes(&seed, in + off, len);
		memset(last, 0, sizeof(last));
		memcpy(last, in + off + 64 * full, rest);
		memset(&a, 0, sizeof(a));
		memcpy(a.h, iv, sizeof(iv));
		a.h[0] ^= 0x01010000 | 32;
		b = a;
		fn(&a, in + off, full, last, (uint32_t)rest);
		zinc_blake2s_compress_final_generic(&b, in + off, full, last, (uint32_t)rest);
		CHECK_MEM(&a, &b, 48, name);
		EVP_Digest(in + off, len, ref, &n, EVP_blake2s256(), NULL);
		CHECK_MEM(a.h, ref, 32, name);
	}
	/* Counter carry across the whole blocks and into the final one. */
	memset(&a, 0, sizeof(a));
	a.t[0] = 0xffffff80u;
	a.f[1] = 0x12345678u;
	b = a;
	fn(&a, in, 2, in + 200, 64);
	zinc_blake2s_compress_final_generic(&b, in, 2, in + 200, 64);
	CHECK(a.t[1] == 1 && a.t[0] == 0x40 && a.f[0] == ~0u);
	CHECK_MEM(&a, &b, 48, "blake2s final counter carry");
}

/* X25519 against libsodium and the portable code: random scalars and
 * points, plus points at the edges of the field (0, 1, p - 1, p, p + 1,
 * 2^255 - 1, all ones) where the reduction and top-bit rules matter. */
static void x25519_one(zinc_x25519_fn fn, const uint8_t sk[32], const uint8_t pt[32])
{
	uint8_t e[32], out[32], ref[32], gen[32];
	static const uint8_t zero[32];

	memcpy(e, sk, 32);
	e[0] &= 248;
	e[31] = (uint8_t)((e[31] & 127) | 64);
	fn(out, e, pt);
	if (crypto_scalarmult(ref, sk, pt) == 0)
		CHECK_MEM(out, ref, 32, "x25519 vs libsodium");
	else
		CHECK_MEM(out, zero, 32, "x25519 low order gives zero");
	zinc_x25519_generic(gen, e, pt);
	CHECK_MEM(out, gen, 32, "x25519 vs generic");
}

/* Public keys by the fixed-base comb against libsodium, OpenSSL and the
 * portable ladder: random secrets, then ones whose radix-16 digits sit at
 * the edges of the recoding (all 8s, all 15s, alternating, single bits). */
static void x25519_base_one(zinc_x25519_base_fn fn, const uint8_t sk[32])
{
	uint8_t e[32], out[32], ref[32], gen[32];
	EVP_PKEY *key;
	size_t len = 32;

	memcpy(e, sk, 32);
	e[0] &= 248;
	e[31] = (uint8_t)((e[31] & 127) | 64);
	fn(out, e);
	CHECK(crypto_scalarmult_base(ref, sk) == 0);
	CHECK_MEM(out, ref, 32, "x25519 base vs libsodium");
	zinc_x25519_base_generic(gen, e);
	CHECK_MEM(out, gen, 32, "x25519 base vs generic");
	key = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, sk, 32);
	CHECK(key && EVP_PKEY_get_raw_public_key(key, ref, &len) == 1 && len == 32);
	CHECK_MEM(out, ref, 32, "x25519 base vs OpenSSL");
	EVP_PKEY_free(key);
}

static void test_x25519_base(zinc_x25519_base_fn fn)
{
	static const uint8_t fills[] = {0x88, 0xff, 0x00, 0x80, 0x08, 0x7f, 0xf7, 0x5a};
	uint8_t sk[32];

	for (int i = 0; i < 500; i++) {
		test_randbytes(&seed, sk, 32);
		x25519_base_one(fn, sk);
	}
	for (size_t f = 0; f < sizeof(fills); f++) {
		memset(sk, fills[f], 32);
		x25519_base_one(fn, sk);
	}
	for (int bit = 3; bit < 254; bit++) {
		memset(sk, 0, 32);
		sk[bit / 8] = (uint8_t)(1 << (bit % 8));
		x25519_base_one(fn, sk);
	}
}

/* The eight-lane IFMA and four-lane AVX2 kernels against libsodium and
 * the portable ladder: random lanes, low-order and edge points in some
 * lanes, lanes that share inputs (the padding the batch API uses). */
static void test_x25519_x8(zinc_x25519_x8_fn fn, int lanes)
{
	uint8_t e[8][32], pt[8][32], out[8][32], gen[32];

	for (int r = 0; r < 60; r++) {
		test_randbytes(&seed, (uint8_t *)e, sizeof(e));
		test_randbytes(&seed, (uint8_t *)pt, sizeof(pt));
		for (int l = 0; l < 8; l++)
			zinc_curve25519_clamp_secret(e[l]);
		if (r % 4 == 1)
			memset(pt[r % lanes], 0, 32);
		if (r % 4 == 2)
			memset(pt[(r + 3) % lanes], 0xff, 32); /* 2^256 - 1: above p */
		if (r % 4 == 3)
			memcpy(e[lanes - 3], e[0], 32), memcpy(pt[lanes - 3], pt[0], 32);
		fn(out, e, pt);
		for (int l = 0; l < lanes; l++) {
			zinc_x25519_generic(gen, e[l], pt[l]);
			CHECK_MEM(out[l], gen, 32, "x25519 x8 vs generic");
			if (crypto_scalarmult(gen, e[l], pt[l]) == 0)
				CHECK_MEM(out[l], gen, 32, "x25519 x8 vs libsodium");
		}
	}
}

static void test_x25519(zinc_x25519_fn fn)
{
	uint8_t sk[32], pt[32];

	for (int i = 0; i < 300; i++) {
		test_randbytes(&seed, sk, 32);
		test_randbytes(&seed, pt, 32);
		x25519_one(fn, sk, pt);
	}
	for (int edge = 0; edge < 8; edge++) {
		test_randbytes(&seed, sk, 32);
		memset(pt, 0, 32);
		switch (edge) {
		case 0: /* 0 */
			break;
		case 1: /* 1 */
			pt[0] = 1;
			break;
		case 2: /* p - 1 */
		case 3: /* p */
		case 4: /* p + 1 */
			memset(pt, 0xff, 32);
			pt[31] = 0x7f;
			pt[0] = (uint8_t)(0xec + (edge - 2));
			break;
		case 5: /* 2^255 - 1 */
			memset(pt, 0xff, 32);
			pt[31] = 0x7f;
			break;
		case 6: /* all ones: top bit must be ignored */
			memset(pt, 0xff, 32);
			break;
		case 7: /* 9 with the top bit set */
			pt[0] = 9;
			pt[31] = 0x80;
			break;
		}
		x25519_one(fn, sk, pt);
	}
	/* RFC 7748 section 5.2 iterated once and 1000 times. */
	uint8_t k[32] = {9}, u[32] = {9}, r[32];
	for (int i = 0; i < 1000; i++) {
		uint8_t e[32];

		memcpy(e, k, 32);
		e[0] &= 248;
		e[31] = (uint8_t)((e[31] & 127) | 64);
		fn(r, e, u);
		memcpy(u, k, 32);
		memcpy(k, r, 32);
		if (i == 0) {
			uint8_t want[32];

			test_unhex(
			    want, 32,
			    "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079");
			CHECK_MEM(k, want, 32, "x25519 iterated once");
		}
	}
	uint8_t want1000[32];
	test_unhex(want1000, 32,
		   "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51");
	CHECK_MEM(k, want1000, 32, "x25519 iterated 1000 times");
}

int main(void)
{
	const struct chacha_path chachas[] = {
	    {"chacha20 ssse3", "ssse3", zinc_chacha20_ssse3},
	    {"chacha20 avx2", "avx2", zinc_chacha20_avx2},
	    {"chacha20 avx512", "avx512", zinc_chacha20_avx512},
	};
	const struct aead_path aeads[] = {
	    {"aead ssse3", "ssse3", zinc_aead_seal_ssse3, zinc_aead_open_ssse3},
	    {"aead avx2", "avx2", zinc_aead_seal_avx2, zinc_aead_open_avx2},
	    {"aead avx512", "avx512", zinc_aead_seal_avx512, zinc_aead_open_avx512},
	    {"aead avx512-ifma", "avx512ifma", zinc_aead_seal_avx512_ifma,
	     zinc_aead_open_avx512_ifma},
	};

	if (sodium_init() < 0)
		return 1;
	const struct vpoly vp2 = {"poly1305 avx2", zinc_poly1305_avx2_blocks,
				  zinc_poly1305_avx2_finish, 4};
	const struct vpoly vp5 = {"poly1305 avx512", zinc_poly1305_avx512_blocks,
				  zinc_poly1305_avx512_finish, 16};
	test_poly(NULL);
	if (cpu_has("avx2"))
		test_poly(&vp2);
	const struct vpoly vpi = {"poly1305 ifma", zinc_poly1305_ifma_blocks,
				  zinc_poly1305_ifma_finish, 16};
	if (cpu_has("avx512"))
		test_poly(&vp5);
	if (cpu_has("avx512ifma"))
		test_poly(&vpi);
	for (size_t i = 0; i < sizeof(chachas) / sizeof(chachas[0]); i++) {
		if (!cpu_has(chachas[i].feature)) {
			printf("skip %s: CPU lacks %s\n", chachas[i].name, chachas[i].feature);
			continue;
		}
		test_chacha(&chachas[i]);
	}
	for (size_t i = 0; i < sizeof(aeads) / sizeof(aeads[0]); i++) {
		if (!cpu_has(aeads[i].feature)) {
			printf("skip %s: CPU lacks %s\n", aeads[i].name, aeads[i].feature);
			continue;
		}
		test_aead(&aeads[i]);
	}
	test_poly_stream("poly1305 stream generic", zinc_poly1305_blocks_generic);
	test_poly_stream("poly1305 stream x86_64", zinc_poly1305_blocks_x86_64);
	if (cpu_has("avx2"))
		test_poly_stream("poly1305 stream avx2", zinc_poly1305_blocks_avx2);
	if (cpu_has("avx512"))
		test_poly_stream("poly1305 stream avx512", zinc_poly1305_blocks_avx512);
	if (cpu_has("avx512ifma"))
		test_poly_stream("poly1305 stream ifma", zinc_poly1305_blocks_ifma);
	test_blake2s("blake2s x86_64", zinc_blake2s_compress_x86_64);
	test_blake2s_final("blake2s final x86_64", zinc_blake2s_compress_final_x86_64);
	test_blake2s_final("blake2s final generic", zinc_blake2s_compress_final_generic);
	if (cpu_has("ssse3")) {
		test_blake2s("blake2s ssse3", zinc_blake2s_compress_ssse3);
		test_blake2s_final("blake2s final ssse3", zinc_blake2s_compress_final_ssse3);
	}
	if (cpu_has("avx2")) {
		test_blake2s("blake2s avx", zinc_blake2s_compress_avx);
		test_blake2s_final("blake2s final avx", zinc_blake2s_compress_final_avx);
	}
	if (cpu_has("avx512")) {
		test_blake2s("blake2s avx512", zinc_blake2s_compress_avx512);
		test_blake2s_final("blake2s final avx512", zinc_blake2s_compress_final_avx512);
	}
	if (cpu_has("bmi2+adx")) {
		test_x25519(zinc_x25519_bmi2_adx);
		test_x25519_base(zinc_x25519_base_bmi2_adx);
	} else
		printf("skip x25519 bmi2-adx: CPU lacks it\n");
	if (cpu_has("avx2"))
		test_x25519_x8(zinc_x25519_x4_avx2, 4);
	else
		printf("skip x25519 avx2 x4: CPU lacks it\n");
	if (cpu_has("avx512ifma"))
		test_x25519_x8(zinc_x25519_x8_ifma, 8);
	else
		printf("skip x25519 avx512-ifma x8: CPU lacks it\n");
	return test_finish("test_zinc_x86");
}
