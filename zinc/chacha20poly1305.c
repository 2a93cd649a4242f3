// SPDX-License-Identifier: MIT
/* ChaCha20-Poly1305 (RFC 8439 section 2.8) with the 96-bit nonce, and the
 * WireGuard (0^4 || le64) and XChaCha20 (HChaCha20 subkey) nonce forms.
 *
 * Decrypt computes and checks the tag before any plaintext is produced and
 * never branches on the check inside the library: the keystream XOR is
 * masked with the (constant-time) verdict, so a forged message yields only
 * zeros in dst. */
#include <stdint.h>
#include <string.h>

#include <zinc/chacha20.h>
#include <zinc/chacha20poly1305.h>
#include <zinc/memzero.h>
#include <zinc/poly1305.h>

#include "cpu.h"

static const uint8_t pad0[16];

static inline void store_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Poly1305 key from keystream block 0 of (key, nonce). */
static void poly_init(struct zinc_poly1305_ctx *poly, const uint8_t key[32],
		      const uint8_t nonce[12])
{
	uint8_t block0[64] = {0};

	zinc_chacha20(block0, block0, sizeof(block0), key, nonce, 0);
	zinc_poly1305_init(poly, block0);
	zinc_memzero(block0, sizeof(block0));
}

/* tag = Poly1305(ad || pad16 || ct || pad16 || le64(ad_len) || le64(ct_len)) */
static void aead_tag(uint8_t tag[16], const uint8_t *ct, size_t ct_len, const uint8_t *ad,
		     size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	struct zinc_poly1305_ctx poly;
	uint8_t lens[16];

	poly_init(&poly, key, nonce);
	zinc_poly1305_update(&poly, ad, ad_len);
	zinc_poly1305_update(&poly, pad0, (16 - ad_len) & 15);
	zinc_poly1305_update(&poly, ct, ct_len);
	zinc_poly1305_update(&poly, pad0, (16 - ct_len) & 15);
	store_le64(lens, (uint64_t)ad_len);
	store_le64(lens + 8, (uint64_t)ct_len);
	zinc_poly1305_update(&poly, lens, sizeof(lens));
	zinc_poly1305_final(&poly, tag);
}

/* Portable entries of zinc/cpu.h (96-bit nonce). */
void zinc_aead_seal_generic(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			    size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	zinc_chacha20(dst, src, src_len, key, nonce, 1);
	aead_tag(dst + src_len, dst, src_len, ad, ad_len, key, nonce);
}

/* dst = (src XOR keystream) AND mask, through a stack buffer so that dst
 * only ever receives the masked result. */
static void chacha20_masked(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t key[32],
			    const uint8_t nonce[12], uint8_t mask)
{
	const uint64_t mask64 = mask * 0x0101010101010101ULL;
	uint8_t pt[512];
	uint32_t counter = 1;

	while (len) {
		size_t n = len < sizeof(pt) ? len : sizeof(pt);
		size_t i = 0;

		zinc_chacha20(pt, src, n, key, nonce, counter);
		for (; i + 8 <= n; i += 8) {
			uint64_t w;

			memcpy(&w, pt + i, 8);
			w &= mask64;
			memcpy(dst + i, &w, 8);
		}
		for (; i < n; i++)
			dst[i] = pt[i] & mask;
		counter += (uint32_t)(sizeof(pt) / ZINC_CHACHA20_BLOCK_SIZE);
		dst += n;
		src += n;
		len -= n;
	}
	zinc_memzero(pt, sizeof(pt));
}

bool zinc_aead_open_generic(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			    size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	uint8_t tag[16];
	size_t ct_len;
	uint8_t mask;
	bool ok;

	if (src_len < ZINC_CHACHA20POLY1305_AUTHTAG_SIZE)
		return false;
	ct_len = src_len - ZINC_CHACHA20POLY1305_AUTHTAG_SIZE;
	aead_tag(tag, src, ct_len, ad, ad_len, key, nonce);
	ok = zinc_memeq(tag, src + ct_len, sizeof(tag));
	mask = (uint8_t)(0u - (uint8_t)ok);
	/* Hide that mask is 0 or 0xff so the compiler cannot turn the AND
	 * into a branch on the verdict. */
	__asm__("" : "+r"(mask));
	chacha20_masked(dst, src, ct_len, key, nonce, mask);
	zinc_memzero(tag, sizeof(tag));
	return ok;
}

/* The dispatch points: the entries zinc_impl() chose for this CPU. */
static void aead_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			 size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	zinc_impl()->aead_seal(dst, src, src_len, ad, ad_len, key, nonce);
}

static bool aead_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			 size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	return zinc_impl()->aead_open(dst, src, src_len, ad, ad_len, key, nonce);
}

static void wg_nonce(uint8_t out[12], uint64_t nonce)
{
	memset(out, 0, 4);
	store_le64(out + 4, nonce);
}

/* HChaCha20 subkey and the 96-bit nonce 0^4 || nonce[16..24]. */
static void xchacha_derive(uint8_t subkey[32], uint8_t n12[12], const uint8_t nonce[24],
			   const uint8_t key[32])
{
	zinc_hchacha20(subkey, nonce, key);
	memset(n12, 0, 4);
	memcpy(n12 + 4, nonce + 16, 8);
}

void zinc_chacha20poly1305_ietf_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
					const uint8_t *ad, size_t ad_len, const uint8_t nonce[12],
					const uint8_t key[32])
{
	aead_encrypt(dst, src, src_len, ad, ad_len, key, nonce);
}

bool zinc_chacha20poly1305_ietf_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
					const uint8_t *ad, size_t ad_len, const uint8_t nonce[12],
					const uint8_t key[32])
{
	return aead_decrypt(dst, src, src_len, ad, ad_len, key, nonce);
}

void zinc_chacha20poly1305_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				   const uint8_t *ad, size_t ad_len, uint64_t nonce,
				   const uint8_t key[32])
{
	uint8_t n12[12];

	wg_nonce(n12, nonce);
	aead_encrypt(dst, src, src_len, ad, ad_len, key, n12);
}

bool zinc_chacha20poly1305_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				   const uint8_t *ad, size_t ad_len, uint64_t nonce,
				   const uint8_t key[32])
{
	uint8_t n12[12];

	wg_nonce(n12, nonce);
	return aead_decrypt(dst, src, src_len, ad, ad_len, key, n12);
}

void zinc_xchacha20poly1305_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				    const uint8_t *ad, size_t ad_len, const uint8_t nonce[24],
				    const uint8_t key[32])
{
	uint8_t subkey[32], n12[12];

	xchacha_derive(subkey, n12, nonce, key);
	aead_encrypt(dst, src, src_len, ad, ad_len, subkey, n12);
	zinc_memzero(subkey, sizeof(subkey));
}

bool zinc_xchacha20poly1305_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				    const uint8_t *ad, size_t ad_len, const uint8_t nonce[24],
				    const uint8_t key[32])
{
	uint8_t subkey[32], n12[12];
	bool ok;

	xchacha_derive(subkey, n12, nonce, key);
	ok = aead_decrypt(dst, src, src_len, ad, ad_len, subkey, n12);
	zinc_memzero(subkey, sizeof(subkey));
	return ok;
}
