/* Differential tests of Zinc's ChaCha20, Poly1305 and both AEADs against
 * libsodium and OpenSSL EVP on seeded random inputs: every length 0..300 and
 * random lengths up to 4096, random AD, in place and out of place, unaligned
 * pointers, and random single-bit flips of ciphertext, tag or AD that must
 * make decryption fail with dst zeroed. */
#include <stdbool.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <sodium.h>

#include <zinc/chacha20.h>
#include <zinc/chacha20poly1305.h>
#include <zinc/poly1305.h>

#include "test.h"

#define MAXLEN 4096
#define MAXAD 300
#define SLACK 64 /* room for misalignment and the tag */

static uint64_t seed = 0x5eed0201;
static uint8_t key[32], nonce[24], n12[12];
static uint8_t msg_buf[MAXLEN + SLACK], ad_buf[MAXAD + SLACK];
static uint8_t zinc_buf[MAXLEN + SLACK], ref_buf[MAXLEN + SLACK], tmp_buf[MAXLEN + SLACK];

static size_t rand_below(size_t n)
{
	return n ? (size_t)(test_rand64(&seed) % n) : 0;
}

static size_t pick_len(int iter)
{
	if (iter <= 300)
		return (size_t)iter;
	return rand_below(MAXLEN + 1);
}

static size_t pick_ad_len(void)
{
	switch (rand_below(4)) {
	case 0:
		return 0;
	case 1:
		return rand_below(MAXAD + 1);
	default:
		return rand_below(33);
	}
}

static bool all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

/* OpenSSL EVP ChaCha20-Poly1305 (96-bit nonce): out = ct || tag. */
static bool evp_seal(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *ad, size_t ad_len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n = 0, m = 0;
	bool ok = c && EVP_EncryptInit_ex(c, EVP_chacha20_poly1305(), NULL, key, n12) == 1 &&
		  (ad_len == 0 || EVP_EncryptUpdate(c, NULL, &n, ad, (int)ad_len) == 1) &&
		  EVP_EncryptUpdate(c, out, &n, in, (int)len) == 1 &&
		  EVP_EncryptFinal_ex(c, out + n, &m) == 1 &&
		  EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, out + len) == 1;
	EVP_CIPHER_CTX_free(c);
	return ok && (size_t)(n + m) == len;
}

static bool evp_open(uint8_t *out, const uint8_t *in, size_t in_len, const uint8_t *ad,
		     size_t ad_len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	size_t len = in_len - 16;
	uint8_t tag[16];
	int n = 0, m = 0;

	memcpy(tag, in + len, 16);
	bool ok = c && EVP_DecryptInit_ex(c, EVP_chacha20_poly1305(), NULL, key, n12) == 1 &&
		  EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, 16, tag) == 1 &&
		  (ad_len == 0 || EVP_DecryptUpdate(c, NULL, &n, ad, (int)ad_len) == 1) &&
		  EVP_DecryptUpdate(c, out, &n, in, (int)len) == 1 &&
		  EVP_DecryptFinal_ex(c, out + n, &m) > 0;
	EVP_CIPHER_CTX_free(c);
	return ok;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

enum api { IETF, WG64, XCHACHA, NAPI };

static void z_seal(enum api a, uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
		   size_t ad_len)
{
	if (a == IETF)
		zinc_chacha20poly1305_ietf_encrypt(dst, src, len, ad, ad_len, n12, key);
	else if (a == WG64)
		zinc_chacha20poly1305_encrypt(dst, src, len, ad, ad_len, le64(n12 + 4), key);
	else
		zinc_xchacha20poly1305_encrypt(dst, src, len, ad, ad_len, nonce, key);
}

static bool z_open(enum api a, uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
		   size_t ad_len)
{
	if (a == IETF)
		return zinc_chacha20poly1305_ietf_decrypt(dst, src, len, ad, ad_len, n12, key);
	if (a == WG64)
		return zinc_chacha20poly1305_decrypt(dst, src, len, ad, ad_len, le64(n12 + 4), key);
	return zinc_xchacha20poly1305_decrypt(dst, src, len, ad, ad_len, nonce, key);
}

/* libsodium reference: out = ct || tag. */
static void s_seal(enum api a, uint8_t *out, const uint8_t *in, size_t len, const uint8_t *ad,
		   size_t ad_len)
{
	unsigned long long clen;

	if (a == XCHACHA)
		crypto_aead_xchacha20poly1305_ietf_encrypt(out, &clen, in, len, ad, ad_len, NULL,
							   nonce, key);
	else
		crypto_aead_chacha20poly1305_ietf_encrypt(out, &clen, in, len, ad, ad_len, NULL,
							  n12, key);
}

static bool s_open(enum api a, uint8_t *out, const uint8_t *in, size_t in_len, const uint8_t *ad,
		   size_t ad_len)
{
	unsigned long long mlen;

	if (a == XCHACHA)
		return crypto_aead_xchacha20poly1305_ietf_decrypt(out, &mlen, NULL, in, in_len, ad,
								  ad_len, nonce, key) == 0;
	return crypto_aead_chacha20poly1305_ietf_decrypt(out, &mlen, NULL, in, in_len, ad, ad_len,
							 n12, key) == 0;
}

static int n_cases, n_flips;

static void aead_case(enum api a, size_t len)
{
	size_t ad_len = pick_ad_len();
	uint8_t *msg = msg_buf + rand_below(16);
	uint8_t *ad = ad_buf + rand_below(16);
	uint8_t *z = zinc_buf + rand_below(16);
	uint8_t *r = ref_buf + rand_below(16);
	uint8_t *t = tmp_buf + rand_below(16);
	bool ok;

	test_randbytes(&seed, key, sizeof(key));
	test_randbytes(&seed, nonce, sizeof(nonce));
	if (a == WG64)
		memset(nonce, 0, 4); /* the 64-bit API's nonce is 0^4 || le64 */
	memcpy(n12, nonce, 12);
	test_randbytes(&seed, msg, len);
	test_randbytes(&seed, ad, ad_len);

	/* Out of place vs libsodium (and OpenSSL for the 96-bit forms). */
	z_seal(a, z, msg, len, ad, ad_len);
	s_seal(a, r, msg, len, ad, ad_len);
	CHECK_MEM(z, r, len + 16, "seal vs libsodium");
	if (a != XCHACHA) {
		CHECK(evp_seal(t, msg, len, ad, ad_len));
		CHECK_MEM(z, t, len + 16, "seal vs OpenSSL");
	}

	/* In place. */
	memcpy(t, msg, len);
	z_seal(a, t, t, len, ad, ad_len);
	CHECK_MEM(t, r, len + 16, "in-place seal");

	/* Open the reference output, out of place then in place. */
	memset(z, 0xcc, len + 16);
	CHECK(z_open(a, z, r, len + 16, ad, ad_len));
	CHECK_MEM(z, msg, len, "open");
	CHECK(z[len] == 0xcc);
	CHECK(z_open(a, t, t, len + 16, ad, ad_len));
	CHECK_MEM(t, msg, len, "in-place open");

	/* One flipped bit anywhere in ct || tag || ad must be rejected. */
	size_t span = len + 16 + ad_len;
	size_t bit = rand_below(span * 8);
	bool in_ad = bit / 8 >= len + 16;
	uint8_t *flip = in_ad ? ad + (bit / 8 - len - 16) : r + bit / 8;

	*flip ^= (uint8_t)(1u << (bit % 8));
	memset(z, 0xcc, len + 16);
	ok = z_open(a, z, r, len + 16, ad, ad_len);
	CHECK(!ok);
	CHECK(all_zero(z, len));
	CHECK(!s_open(a, t, r, len + 16, ad, ad_len));
	if (a != XCHACHA)
		CHECK(!evp_open(t, r, len + 16, ad, ad_len));
	memcpy(t, r, len + 16);
	CHECK(!z_open(a, t, t, len + 16, ad, ad_len));
	CHECK(all_zero(t, len));
	*flip ^= (uint8_t)(1u << (bit % 8));
	n_flips++;

	/* Restored, OpenSSL agrees it opens to the message too. */
	if (a != XCHACHA) {
		CHECK(evp_open(t, r, len + 16, ad, ad_len));
		CHECK_MEM(t, msg, len, "OpenSSL open of zinc output");
	}
	n_cases++;
}

static void test_aeads(void)
{
	for (int iter = 0; iter < 2500; iter++) {
		size_t len = pick_len(iter);

		for (int a = 0; a < NAPI; a++)
			aead_case((enum api)a, len);
	}
}

static void test_chacha20(void)
{
	for (int iter = 0; iter < 1000; iter++) {
		size_t len = pick_len(iter);
		uint8_t *msg = msg_buf + rand_below(16);
		uint8_t *z = zinc_buf + rand_below(16);
		uint8_t *r = ref_buf + rand_below(16);
		uint32_t ic = (uint32_t)rand_below(1u << 30);

		test_randbytes(&seed, key, sizeof(key));
		test_randbytes(&seed, n12, sizeof(n12));
		test_randbytes(&seed, msg, len);
		zinc_chacha20(z, msg, len, key, n12, ic);
		crypto_stream_chacha20_ietf_xor_ic(r, msg, len, n12, ic, key);
		CHECK_MEM(z, r, len, "chacha20 vs libsodium");
		memcpy(z, msg, len);
		zinc_chacha20(z, z, len, key, n12, ic);
		CHECK_MEM(z, r, len, "chacha20 in place");
	}
}

static void test_poly1305(void)
{
	for (int iter = 0; iter < 1000; iter++) {
		size_t len = pick_len(iter);
		uint8_t *msg = msg_buf + rand_below(16);
		uint8_t z[16], r[16];

		test_randbytes(&seed, key, sizeof(key));
		test_randbytes(&seed, msg, len);
		zinc_poly1305(z, msg, len, key);
		crypto_onetimeauth_poly1305(r, msg, len, key);
		CHECK_MEM(z, r, 16, "poly1305 vs libsodium");
	}
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	test_chacha20();
	test_poly1305();
	test_aeads();
	printf("aead cases: %d (each with one bit flip: %d)\n", n_cases, n_flips);
	CHECK(n_cases == 2500 * NAPI);
	return test_finish("test_zinc_aead_diff");
}
