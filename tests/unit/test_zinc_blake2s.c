// SPDX-License-Identifier: MIT
/* BLAKE2s and HMAC-BLAKE2s: official KATs (JSON and text), Python hashlib
 * digests for every output/key length, and seeded random differential tests
 * against OpenSSL (BLAKE2S-256, BLAKE2SMAC, HMAC), one-shot and streaming. */
#include <stdbool.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

#include <zinc/blake2s.h>

#include "blake2s_vectors.h"
#include "test.h"

static uint64_t seed = 0x2b1a4e5c0ffee123ULL;

/* Feeds in to update() in random chunks, including empty ones. */
static void stream_hash(uint8_t *out, const uint8_t *in, size_t inlen, const uint8_t *key,
			size_t keylen, size_t outlen)
{
	struct zinc_blake2s_state st;
	size_t off = 0;

	if (keylen)
		zinc_blake2s_init_key(&st, outlen, key, keylen);
	else
		zinc_blake2s_init(&st, outlen);
	while (off < inlen) {
		size_t left = inlen - off, n;

		switch (test_rand64(&seed) % 4) {
		case 0:
			n = 0;
			break;
		case 1:
			n = test_rand64(&seed) % 3;
			break;
		case 2:
			n = 64 * (test_rand64(&seed) % 3);
			break;
		default:
			n = test_rand64(&seed) % (left + 1);
			break;
		}
		if (n > left)
			n = left;
		zinc_blake2s_update(&st, in + off, n);
		off += n;
	}
	if (test_rand64(&seed) & 1)
		zinc_blake2s_update(&st, in + off, 0);
	zinc_blake2s_final(&st, out);
}

static void check_kats(const struct blake2s_kat *k, size_t n, const char *what)
{
	uint8_t out[32];

	for (size_t i = 0; i < n; i++) {
		const uint8_t *in = (const uint8_t *)k[i].in;
		const uint8_t *key = (const uint8_t *)k[i].key;

		memset(out, 0xaa, sizeof(out));
		zinc_blake2s(out, in, k[i].keylen ? key : NULL, k[i].outlen, k[i].inlen,
			     k[i].keylen);
		CHECK_MEM(out, k[i].out, k[i].outlen, what);
		for (int rep = 0; rep < 3; rep++) {
			memset(out, 0x55, sizeof(out));
			stream_hash(out, in, k[i].inlen, key, k[i].keylen, k[i].outlen);
			CHECK_MEM(out, k[i].out, k[i].outlen, what);
		}
		/* Nothing beyond outlen is written. */
		if (k[i].outlen < 32)
			CHECK(out[k[i].outlen] == 0x55);
	}
}

static void test_kats(void)
{
	const size_t nj = sizeof(blake2s_kat_json) / sizeof(blake2s_kat_json[0]);
	const size_t nt = sizeof(blake2s_kat_txt) / sizeof(blake2s_kat_txt[0]);
	const size_t ns = sizeof(blake2s_sized_ref) / sizeof(blake2s_sized_ref[0]);
	size_t keyed = 0;

	CHECK(nj == 512);
	CHECK(nt == 256);
	CHECK(ns == 32 * 33);
	for (size_t i = 0; i < nj; i++)
		keyed += blake2s_kat_json[i].keylen == 32;
	CHECK(keyed == 256);
	check_kats(blake2s_kat_json, nj, "blake2s-kat.json");
	check_kats(blake2s_kat_txt, nt, "blake2s-kat.txt");
	check_kats(blake2s_sized_ref, ns, "hashlib blake2s outlen/keylen");
}

/* OpenSSL reference; false when OpenSSL has no way to compute this case
 * (3.0's BLAKE2S-256 digest has a fixed 32-byte output). */
static bool ossl_blake2s(uint8_t *out, const uint8_t *in, size_t inlen, const uint8_t *key,
			 size_t keylen, size_t outlen)
{
	if (!keylen) {
		unsigned int len = 0;

		if (outlen != 32)
			return false;
		CHECK(EVP_Digest(in, inlen, out, &len, EVP_blake2s256(), NULL) == 1);
		CHECK(len == 32);
		return true;
	}

	EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2SMAC", NULL);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	size_t sz = outlen, got = 0;
	OSSL_PARAM params[] = {
	    OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &sz),
	    OSSL_PARAM_construct_end(),
	};
	bool ok = ctx && EVP_MAC_init(ctx, key, keylen, params) == 1 &&
		  EVP_MAC_update(ctx, in, inlen) == 1 && EVP_MAC_final(ctx, out, &got, 32) == 1 &&
		  got == outlen;

	CHECK(ok);
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return true;
}

static void test_random_vs_openssl(void)
{
	static uint8_t in[4200];
	uint8_t key[32], a[32], b[32], c[32];
	int compared = 0;

	for (int i = 0; i < 4000; i++) {
		const size_t outlen = 1 + test_rand64(&seed) % 32;
		const size_t keylen = (i % 4 == 0) ? 0 : test_rand64(&seed) % 33;
		const size_t inlen =
		    (i % 50 == 0) ? 4096 + test_rand64(&seed) % 100 : test_rand64(&seed) % 700;

		test_randbytes(&seed, in, inlen);
		test_randbytes(&seed, key, keylen);
		/* Cover the common case: 32-byte unkeyed digests, keyed MACs. */
		const size_t ol = (i % 4 == 0) ? 32 : outlen;

		zinc_blake2s(a, in, key, ol, inlen, keylen);
		stream_hash(b, in, inlen, key, keylen, ol);
		CHECK_MEM(a, b, ol, "one-shot vs streaming");
		if (ossl_blake2s(c, in, inlen, key, keylen, ol)) {
			CHECK_MEM(a, c, ol, "zinc vs OpenSSL blake2s");
			compared++;
		}
	}
	CHECK(compared >= 3900);
}

static void test_hmac_vs_openssl(void)
{
	static uint8_t in[2100], key[300];
	uint8_t a[32], b[32];
	unsigned int len;

	for (int i = 0; i < 3000; i++) {
		static const size_t edge[] = {0, 1, 31, 32, 33, 63, 64, 65, 128, 257};
		const size_t keylen = (i < 100) ? edge[i % 10] : test_rand64(&seed) % 300;
		const size_t inlen =
		    (i % 40 == 0) ? 2000 + test_rand64(&seed) % 100 : test_rand64(&seed) % 300;

		test_randbytes(&seed, in, inlen);
		test_randbytes(&seed, key, keylen);
		zinc_blake2s_hmac(a, in, key, inlen, keylen);
		len = 0;
		CHECK(HMAC(EVP_blake2s256(), key, (int)keylen, in, inlen, b, &len) != NULL);
		CHECK(len == 32);
		CHECK_MEM(a, b, 32, "hmac-blake2s vs OpenSSL HMAC");
	}

	/* out may alias the key or the message. */
	test_randbytes(&seed, key, 32);
	test_randbytes(&seed, in, 32);
	zinc_blake2s_hmac(a, in, key, 32, 32);
	memcpy(b, key, 32);
	zinc_blake2s_hmac(b, in, b, 32, 32);
	CHECK_MEM(a, b, 32, "hmac out aliases key");
	memcpy(b, in, 32);
	zinc_blake2s_hmac(b, b, key, 32, 32);
	CHECK_MEM(a, b, 32, "hmac out aliases input");
}

static void test_streaming_shapes(void)
{
	static uint8_t in[1000];
	uint8_t key[32], a[32], b[32];
	struct zinc_blake2s_state st;
	static const uint8_t zero[sizeof(st)];

	test_randbytes(&seed, in, sizeof(in));
	test_randbytes(&seed, key, sizeof(key));
	for (size_t len = 0; len <= 300; len++) {
		zinc_blake2s(a, in, key, 32, len, 32);
		/* One byte at a time. */
		zinc_blake2s_init_key(&st, 32, key, 32);
		for (size_t j = 0; j < len; j++)
			zinc_blake2s_update(&st, in + j, 1);
		zinc_blake2s_final(&st, b);
		CHECK_MEM(a, b, 32, "byte-at-a-time");
		/* final() wipes the whole state. */
		CHECK(memcmp(&st, zero, sizeof(st)) == 0);
		/* Whole blocks then the rest. */
		zinc_blake2s_init_key(&st, 32, key, 32);
		zinc_blake2s_update(&st, in, len & ~(size_t)63);
		zinc_blake2s_update(&st, in + (len & ~(size_t)63), len & 63);
		zinc_blake2s_final(&st, b);
		CHECK_MEM(a, b, 32, "blocks then tail");
	}
	/* Different keys, lengths and inputs give different digests. */
	zinc_blake2s(a, in, NULL, 32, 64, 0);
	zinc_blake2s(b, in, NULL, 32, 65, 0);
	CHECK(memcmp(a, b, 32) != 0);
	zinc_blake2s(b, in, key, 32, 64, 1);
	CHECK(memcmp(a, b, 32) != 0);
	zinc_blake2s(b, in, NULL, 16, 64, 0);
	CHECK(memcmp(a, b, 16) != 0);
}

int main(void)
{
	test_kats();
	test_random_vs_openssl();
	test_hmac_vs_openssl();
	test_streaming_shapes();
	return test_finish("test_zinc_blake2s");
}
