/* ChaCha20 stream cipher (RFC 8439) and HChaCha20 (draft-irtf-cfrg-xchacha). */
#ifndef ZINC_CHACHA20_H
#define ZINC_CHACHA20_H

#include <stddef.h>
#include <stdint.h>

enum {
	ZINC_CHACHA20_KEY_SIZE = 32,
	ZINC_CHACHA20_NONCE_SIZE = 12,
	ZINC_CHACHA20_BLOCK_SIZE = 64,
	ZINC_HCHACHA20_NONCE_SIZE = 16,
	ZINC_XCHACHA20_NONCE_SIZE = 24,
};

/* dst = src XOR keystream(key, nonce, counter...). RFC 8439 layout: 32-bit
 * block counter, 96-bit nonce. dst == src is allowed. */
void zinc_chacha20(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t key[32],
		   const uint8_t nonce[12], uint32_t counter);

/* HChaCha20: derives a 256-bit subkey from a key and a 128-bit nonce. */
void zinc_hchacha20(uint8_t out[32], const uint8_t nonce[16], const uint8_t key[32]);

/* XChaCha20 stream: HChaCha20 subkey from nonce[0..16], then ChaCha20 with
 * nonce 0^4 || nonce[16..24]. */
void zinc_xchacha20(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t key[32],
		    const uint8_t nonce[24], uint32_t counter);

#endif
