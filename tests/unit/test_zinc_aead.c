/* ChaCha20-Poly1305 and XChaCha20-Poly1305 known answers: RFC 8439 2.8.2 and
 * A.5, draft-irtf-cfrg-xchacha-03 A.3.1, and every Wycheproof case. Valid
 * cases must encrypt to ct||tag and decrypt (out of place and in place);
 * invalid ones must fail to decrypt and leave dst zeroed. Wycheproof
 * ChaCha20 nonces go through the 96-bit API; those starting with 0^4 also
 * through WireGuard's 64-bit one. InvalidNonceSize cases cannot be expressed
 * by the fixed-size APIs: they count as rejected after asserting the size. */
#include <stdbool.h>
#include <stdint.h>

#include <zinc/chacha20poly1305.h>

#include "rfc_chacha_vectors.h"
#include "test.h"
#include "wycheproof_chachapoly.h"

enum aead_api { API_IETF, API_WG64, API_XCHACHA };

static int n_valid, n_invalid, n_wg64, n_nonce_size;

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static void seal(enum aead_api api, uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
		 size_t ad_len, const uint8_t *nonce, const uint8_t *key)
{
	if (api == API_IETF)
		zinc_chacha20poly1305_ietf_encrypt(dst, src, len, ad, ad_len, nonce, key);
	else if (api == API_WG64)
		zinc_chacha20poly1305_encrypt(dst, src, len, ad, ad_len, le64(nonce + 4), key);
	else
		zinc_xchacha20poly1305_encrypt(dst, src, len, ad, ad_len, nonce, key);
}

static bool open_(enum aead_api api, uint8_t *dst, const uint8_t *src, size_t len,
		  const uint8_t *ad, size_t ad_len, const uint8_t *nonce, const uint8_t *key)
{
	if (api == API_IETF)
		return zinc_chacha20poly1305_ietf_decrypt(dst, src, len, ad, ad_len, nonce, key);
	if (api == API_WG64)
		return zinc_chacha20poly1305_decrypt(dst, src, len, ad, ad_len, le64(nonce + 4),
						     key);
	return zinc_xchacha20poly1305_decrypt(dst, src, len, ad, ad_len, nonce, key);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

/* One case through one API. ct_len == msg_len; the sealed form is ct||tag. */
static void run_case(enum aead_api api, const char *what, bool valid, const uint8_t *key,
		     const uint8_t *nonce, const uint8_t *ad, size_t ad_len, const uint8_t *msg,
		     size_t msg_len, const uint8_t *ct, const uint8_t *tag, size_t tag_len)
{
	static uint8_t sealed[70000], out[70000], buf[70000];
	size_t sealed_len = msg_len + tag_len;

	CHECK(sealed_len <= sizeof(sealed));
	if (sealed_len > sizeof(sealed))
		return;
	memcpy(sealed, ct, msg_len);
	memcpy(sealed + msg_len, tag, tag_len);

	/* Encrypting the message reproduces ct||tag exactly when the case is valid. */
	seal(api, out, msg, msg_len, ad, ad_len, nonce, key);
	if (valid)
		CHECK_MEM(out, sealed, sealed_len, what);
	else
		CHECK(tag_len != 16 || memcmp(out, sealed, sealed_len) != 0);

	memset(out, 0xa5, sealed_len);
	bool ok = open_(api, out, sealed, sealed_len, ad, ad_len, nonce, key);
	CHECK(ok == valid);
	if (ok != valid)
		fprintf(stderr, "  case: %s (api %d)\n", what, (int)api);
	if (valid)
		CHECK_MEM(out, msg, msg_len, what);
	else if (sealed_len >= 16)
		CHECK(all_zero(out, sealed_len - 16));
	/* Bytes past the plaintext are never written. */
	if (sealed_len >= 16)
		CHECK(out[sealed_len - 16] == 0xa5);

	/* In place. */
	memcpy(buf, sealed, sealed_len);
	ok = open_(api, buf, buf, sealed_len, ad, ad_len, nonce, key);
	CHECK(ok == valid);
	if (valid)
		CHECK_MEM(buf, msg, msg_len, what);
	else if (sealed_len >= 16)
		CHECK(all_zero(buf, sealed_len - 16));
	if (valid)
		n_valid++;
	else
		n_invalid++;
}

static void test_rfc(void)
{
	for (size_t i = 0; i < rfc_aead_chacha20_poly1305_count; i++) {
		const struct rfc_aead_chacha20_poly1305 *v = &rfc_aead_chacha20_poly1305[i];

		run_case(API_IETF, v->ref, true, v->key, v->nonce, v->aad, v->aad_len, v->plaintext,
			 v->plaintext_len, v->ciphertext, v->tag, v->tag_len);
		if (all_zero(v->nonce, 4)) {
			run_case(API_WG64, v->ref, true, v->key, v->nonce, v->aad, v->aad_len,
				 v->plaintext, v->plaintext_len, v->ciphertext, v->tag, v->tag_len);
			n_wg64++;
		}
	}
	for (size_t i = 0; i < rfc_aead_xchacha20_poly1305_count; i++) {
		const struct rfc_aead_xchacha20_poly1305 *v = &rfc_aead_xchacha20_poly1305[i];

		run_case(API_XCHACHA, v->ref, true, v->key, v->nonce, v->aad, v->aad_len,
			 v->plaintext, v->plaintext_len, v->ciphertext, v->tag, v->tag_len);
	}
	CHECK(rfc_aead_chacha20_poly1305_count == 2 && rfc_aead_xchacha20_poly1305_count == 1);
}

static void test_wycheproof(const struct wp_aead *set, size_t count, size_t nonce_size,
			    enum aead_api api)
{
	for (size_t i = 0; i < count; i++) {
		const struct wp_aead *v = &set[i];
		char what[160];

		snprintf(what, sizeof(what), "wycheproof tc %d: %s", v->tc_id, v->comment);
		CHECK(v->key_len == 32 && v->ct_len == v->msg_len);
		if (v->nonce_len != nonce_size) {
			/* Not expressible by a fixed-size nonce API: rejected. */
			CHECK(!v->valid && v->invalid_nonce_size);
			n_nonce_size++;
			continue;
		}
		CHECK(!v->invalid_nonce_size);
		run_case(api, what, v->valid, v->key, v->nonce, v->ad, v->ad_len, v->msg,
			 v->msg_len, v->ct, v->tag, v->tag_len);
		if (api == API_IETF && all_zero(v->nonce, 4)) {
			run_case(API_WG64, what, v->valid, v->key, v->nonce, v->ad, v->ad_len,
				 v->msg, v->msg_len, v->ct, v->tag, v->tag_len);
			n_wg64++;
		}
	}
}

/* Inputs shorter than the tag are rejected without touching dst. */
static void test_short_input(void)
{
	uint8_t key[32] = {1}, nonce[24] = {2}, src[16] = {0}, dst[16];

	for (size_t len = 0; len < 16; len++) {
		memset(dst, 0x77, sizeof(dst));
		CHECK(!zinc_chacha20poly1305_decrypt(dst, src, len, NULL, 0, 0, key));
		CHECK(!zinc_chacha20poly1305_ietf_decrypt(dst, src, len, NULL, 0, nonce, key));
		CHECK(!zinc_xchacha20poly1305_decrypt(dst, src, len, NULL, 0, nonce, key));
		CHECK(dst[0] == 0x77 && dst[15] == 0x77);
	}
}

int main(void)
{
	test_rfc();
	test_wycheproof(wp_chachapoly, wp_chachapoly_count, 12, API_IETF);
	test_wycheproof(wp_xchachapoly, wp_xchachapoly_count, 24, API_XCHACHA);
	test_short_input();
	printf("runs: %d valid, %d invalid, %d via 64-bit nonce API, %d nonce-size rejects\n",
	       n_valid, n_invalid, n_wg64, n_nonce_size);
	/* Every case was run: Wycheproof 256+246 valid and 60+60 ModifiedTag, RFC
	 * 3, and 11 (10 Wycheproof + RFC A.5) again through the 64-bit API. */
	CHECK(n_nonce_size == 9 + 9);
	CHECK(n_wg64 == 11);
	CHECK(n_valid == 516 && n_invalid == 120);
	return test_finish("test_zinc_aead");
}
