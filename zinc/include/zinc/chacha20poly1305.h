/* ChaCha20-Poly1305 AEAD (RFC 8439) with WireGuard's 64-bit nonce
 * (96-bit nonce = 0^4 || le64(nonce)), and XChaCha20-Poly1305.
 * dst may equal src. Encrypt writes src_len + 16 bytes. Decrypt takes
 * src_len including the 16-byte tag, writes src_len - 16 bytes, verifies the
 * tag in constant time before releasing plaintext, and on failure zeroes dst
 * (src_len - 16 bytes) and returns false. */
#ifndef ZINC_CHACHA20POLY1305_H
#define ZINC_CHACHA20POLY1305_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	ZINC_CHACHA20POLY1305_KEY_SIZE = 32,
	ZINC_CHACHA20POLY1305_AUTHTAG_SIZE = 16,
	ZINC_XCHACHA20POLY1305_NONCE_SIZE = 24,
};

void zinc_chacha20poly1305_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				   const uint8_t *ad, size_t ad_len, uint64_t nonce,
				   const uint8_t key[32]);
bool zinc_chacha20poly1305_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				   const uint8_t *ad, size_t ad_len, uint64_t nonce,
				   const uint8_t key[32]);

void zinc_xchacha20poly1305_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				    const uint8_t *ad, size_t ad_len, const uint8_t nonce[24],
				    const uint8_t key[32]);
bool zinc_xchacha20poly1305_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				    const uint8_t *ad, size_t ad_len, const uint8_t nonce[24],
				    const uint8_t key[32]);

/* The same AEAD with the full 96-bit RFC 8439 nonce (for protocols and test
 * vectors whose nonce does not start with four zero bytes). */
void zinc_chacha20poly1305_ietf_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
					const uint8_t *ad, size_t ad_len, const uint8_t nonce[12],
					const uint8_t key[32]);
bool zinc_chacha20poly1305_ietf_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
					const uint8_t *ad, size_t ad_len, const uint8_t nonce[12],
					const uint8_t key[32]);

#endif
