// SPDX-License-Identifier: MIT
/* X25519: every Wycheproof case, RFC 7748 sections 5.2 and 6.1 (including the
 * 1000-iteration value), low-order points, and seeded random differential
 * tests against libsodium and OpenSSL. */
#include <stdbool.h>

#include <openssl/evp.h>
#include <sodium.h>

#include <zinc/curve25519.h>
#include <zinc/random.h>

#include "test.h"
#include "x25519_vectors.h"

static uint64_t seed = 0x7748774877487748ULL;

static void unhex32(uint8_t out[32], const char *hex)
{
	CHECK(test_unhex(out, 32, hex) == 32);
}

static void test_wycheproof(void)
{
	const size_t n = sizeof(x25519_wycheproof) / sizeof(x25519_wycheproof[0]);
	size_t zero_cases = 0, valid = 0;
	uint8_t out[32];

	CHECK(n == 518);
	for (size_t i = 0; i < n; i++) {
		const struct x25519_case *c = &x25519_wycheproof[i];
		bool ok;

		memset(out, 0xaa, 32);
		ok = zinc_curve25519(out, (const uint8_t *)c->priv, (const uint8_t *)c->pub);
		CHECK_MEM(out, c->shared, 32, "wycheproof shared secret");
		if (c->zero_shared) {
			/* Acceptable in Wycheproof; WireGuard must reject it. */
			CHECK(!c->valid);
			CHECK(!ok);
			zero_cases++;
		} else {
			CHECK(ok);
		}
		valid += c->valid;
		/* the public key of every Wycheproof secret, by the fixed-base
		 * path, equals the variable-base one on u = 9 */
		uint8_t pub[32], ref[32];
		static const uint8_t nine[32] = {9};

		CHECK(zinc_curve25519_generate_public(pub, (const uint8_t *)c->priv));
		CHECK(zinc_curve25519(ref, (const uint8_t *)c->priv, nine));
		CHECK_MEM(pub, ref, 32, "wycheproof secret: public key");
		if (memcmp(out, c->shared, 32) != 0 || ok == (bool)c->zero_shared)
			fprintf(stderr, "wycheproof tcId %d failed\n", c->tc_id);
	}
	CHECK(zero_cases == 31);
	CHECK(valid == 264);
}

static void test_rfc7748(void)
{
	static const struct {
		const char *k, *u, *out;
	} v52[] = {
	    {"a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
	     "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
	     "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
	    {"4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
	     "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
	     "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"},
	};
	uint8_t k[32], u[32], want[32], out[32];
	uint8_t a[32], b[32], a_pub[32], b_pub[32], want_a[32], want_b[32], shared[32];

	for (size_t i = 0; i < 2; i++) {
		unhex32(k, v52[i].k);
		unhex32(u, v52[i].u);
		unhex32(want, v52[i].out);
		CHECK(zinc_curve25519(out, k, u));
		CHECK_MEM(out, want, 32, "RFC 7748 5.2");
	}

	/* Iterated: k, u = X25519(k, u), k starting from the base point. */
	memset(k, 0, 32);
	k[0] = 9;
	memcpy(u, k, 32);
	for (int i = 1; i <= 1000; i++) {
		CHECK(zinc_curve25519(out, k, u));
		memcpy(u, k, 32);
		memcpy(k, out, 32);
		if (i == 1) {
			unhex32(want,
				"422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079");
			CHECK_MEM(k, want, 32, "RFC 7748 5.2 after 1 iteration");
		}
	}
	unhex32(want, "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51");
	CHECK_MEM(k, want, 32, "RFC 7748 5.2 after 1000 iterations");

	/* Section 6.1 Diffie-Hellman. */
	unhex32(a, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
	unhex32(want_a, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
	unhex32(b, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
	unhex32(want_b, "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
	unhex32(want, "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
	CHECK(zinc_curve25519_generate_public(a_pub, a));
	CHECK_MEM(a_pub, want_a, 32, "RFC 7748 6.1 Alice public");
	CHECK(zinc_curve25519_generate_public(b_pub, b));
	CHECK_MEM(b_pub, want_b, 32, "RFC 7748 6.1 Bob public");
	CHECK(zinc_curve25519(shared, a, b_pub));
	CHECK_MEM(shared, want, 32, "RFC 7748 6.1 shared (Alice)");
	CHECK(zinc_curve25519(shared, b, a_pub));
	CHECK_MEM(shared, want, 32, "RFC 7748 6.1 shared (Bob)");
}

static void test_low_order(void)
{
	/* u = 0, 1, p - 1, p, p + 1 and the two points of order 8 (and their
	 * encodings with bit 255 set, which must be ignored). */
	static const char *const pts[] = {
	    "0000000000000000000000000000000000000000000000000000000000000000",
	    "0100000000000000000000000000000000000000000000000000000000000000",
	    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
	    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
	    "0000000000000000000000000000000000000000000000000000000000000080",
	    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",
	    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f11d7",
	};
	static const uint8_t zero[32];
	uint8_t k[32], u[32], out[32];

	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		unhex32(u, pts[i]);
		for (int j = 0; j < 20; j++) {
			test_randbytes(&seed, k, 32);
			memset(out, 0xaa, 32);
			CHECK(!zinc_curve25519(out, k, u));
			CHECK_MEM(out, zero, 32, "low-order point gives zero");
		}
	}
}

static void test_random_vs_libs(void)
{
	EVP_PKEY_CTX *ctx;
	EVP_PKEY *priv, *peer;
	uint8_t k[32], u[32], a[32], b[32], c[32], pub[32];
	size_t len;
	int i;

	for (i = 0; i < 3000; i++) {
		test_randbytes(&seed, k, 32);
		test_randbytes(&seed, u, 32);
		if (i % 7 == 0)
			u[31] |= 0x80; /* must be masked off */

		CHECK(zinc_curve25519(a, k, u));
		CHECK(crypto_scalarmult(b, k, u) == 0);
		CHECK_MEM(a, b, 32, "zinc vs libsodium crypto_scalarmult");

		priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, k, 32);
		peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, u, 32);
		ctx = priv ? EVP_PKEY_CTX_new(priv, NULL) : NULL;
		len = 32;
		CHECK(ctx && EVP_PKEY_derive_init(ctx) == 1 &&
		      EVP_PKEY_derive_set_peer(ctx, peer) == 1 &&
		      EVP_PKEY_derive(ctx, c, &len) == 1 && len == 32);
		CHECK_MEM(a, c, 32, "zinc vs OpenSSL X25519");
		EVP_PKEY_CTX_free(ctx);
		EVP_PKEY_free(priv);
		EVP_PKEY_free(peer);

		if (i % 3 == 0) {
			CHECK(zinc_curve25519_generate_public(pub, k));
			CHECK(crypto_scalarmult_base(b, k) == 0);
			CHECK_MEM(pub, b, 32, "generate_public vs crypto_scalarmult_base");
		}
	}

	/* Outputs are canonical: never >= p, top bit clear. */
	for (i = 0; i < 200; i++) {
		test_randbytes(&seed, k, 32);
		test_randbytes(&seed, u, 32);
		CHECK(zinc_curve25519(a, k, u));
		CHECK((a[31] & 0x80) == 0);
	}
}

static void test_aliasing_and_clamp(void)
{
	uint8_t k[32], u[32], a[32], b[32], kc[32];

	test_randbytes(&seed, k, 32);
	test_randbytes(&seed, u, 32);
	CHECK(zinc_curve25519(a, k, u));

	/* Clamping happens inside: pre-clamped and raw secrets agree. */
	memcpy(kc, k, 32);
	zinc_curve25519_clamp_secret(kc);
	CHECK(kc[0] % 8 == 0 && (kc[31] & 0xc0) == 0x40);
	CHECK(zinc_curve25519(b, kc, u));
	CHECK_MEM(a, b, 32, "clamped secret");

	/* out may alias the secret or the point; the secret is not modified. */
	memcpy(b, k, 32);
	CHECK(zinc_curve25519(b, b, u));
	CHECK_MEM(a, b, 32, "out aliases secret");
	memcpy(b, u, 32);
	CHECK(zinc_curve25519(b, k, b));
	CHECK_MEM(a, b, 32, "out aliases point");
	memcpy(b, k, 32);
	CHECK(zinc_curve25519(a, k, u));
	CHECK_MEM(k, b, 32, "secret untouched");
}

static void test_generate_secret(void)
{
	uint8_t s1[32], s2[32], p1[32], p2[32], sh1[32], sh2[32];

	CHECK(zinc_rng_is_initialized());
	zinc_curve25519_generate_secret(s1);
	zinc_curve25519_generate_secret(s2);
	CHECK(memcmp(s1, s2, 32) != 0);
	CHECK(s1[0] % 8 == 0 && (s1[31] & 0xc0) == 0x40);
	CHECK(s2[0] % 8 == 0 && (s2[31] & 0xc0) == 0x40);
	CHECK(zinc_curve25519_generate_public(p1, s1));
	CHECK(zinc_curve25519_generate_public(p2, s2));
	CHECK(zinc_curve25519(sh1, s1, p2));
	CHECK(zinc_curve25519(sh2, s2, p1));
	CHECK_MEM(sh1, sh2, 32, "generated key pairs agree");
}

/* Batches of every size around the eight (IFMA) and four (AVX2) lanes equal the single calls
 * and libsodium, with low-order points (zero output, verdict false) in
 * some lanes, the Wycheproof cases in one batch, and out aliasing point. */
static void batch_check(size_t n, uint8_t (*k)[32], uint8_t (*u)[32])
{
	uint8_t out[40][32], one[32], ref[32];
	uint8_t *po[40];
	const uint8_t *pk[40], *pu[40];
	bool ok[40];
	size_t good = 0;

	for (size_t i = 0; i < n; i++) {
		po[i] = out[i];
		pk[i] = k[i];
		pu[i] = u[i];
	}
	CHECK(zinc_curve25519_batch(n, po, pk, pu, ok) <= n);
	for (size_t i = 0; i < n; i++) {
		const bool v = zinc_curve25519(one, k[i], u[i]);

		good += v;
		CHECK(ok[i] == v);
		CHECK_MEM(out[i], one, 32, "batch vs single");
		if (crypto_scalarmult(ref, k[i], u[i]) != 0)
			memset(ref, 0, 32);
		CHECK_MEM(out[i], ref, 32, "batch vs libsodium");
	}
	CHECK(zinc_curve25519_batch(n, po, pk, pu, NULL) == good);
	/* out aliasing the points: the same answers */
	for (size_t i = 0; i < n; i++)
		po[i] = u[i];
	zinc_curve25519_batch(n, po, pk, pu, ok);
	for (size_t i = 0; i < n; i++)
		CHECK_MEM(u[i], out[i], 32, "batch out aliases point");
}

static void test_batch(void)
{
	static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 23, 40};
	const size_t nw = sizeof(x25519_wycheproof) / sizeof(x25519_wycheproof[0]);
	uint8_t k[40][32], u[40][32];

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		test_randbytes(&seed, (uint8_t *)k, sizeof(k));
		test_randbytes(&seed, (uint8_t *)u, sizeof(u));
		for (size_t i = 0; i < sizes[s]; i += 3)
			memset(u[i], 0, 32); /* low order */
		batch_check(sizes[s], k, u);
	}
	for (size_t w = 0; w < nw; w += 40) {
		const size_t n = nw - w < 40 ? nw - w : 40;

		for (size_t i = 0; i < n; i++) {
			memcpy(k[i], x25519_wycheproof[w + i].priv, 32);
			memcpy(u[i], x25519_wycheproof[w + i].pub, 32);
		}
		batch_check(n, k, u);
	}
}

int main(void)
{
	if (sodium_init() < 0) {
		fprintf(stderr, "sodium_init failed\n");
		return 1;
	}
	test_wycheproof();
	test_rfc7748();
	test_low_order();
	test_random_vs_libs();
	test_aliasing_and_clamp();
	test_generate_secret();
	test_batch();
	return test_finish("test_zinc_curve25519");
}
