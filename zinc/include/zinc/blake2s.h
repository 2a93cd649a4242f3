/* BLAKE2s (RFC 7693): outputs 1..32 bytes, keys 0..32 bytes; HMAC-BLAKE2s. */
#ifndef ZINC_BLAKE2S_H
#define ZINC_BLAKE2S_H

#include <stddef.h>
#include <stdint.h>

enum {
	ZINC_BLAKE2S_BLOCK_SIZE = 64,
	ZINC_BLAKE2S_HASH_SIZE = 32,
	ZINC_BLAKE2S_KEY_SIZE = 32,
};

struct zinc_blake2s_state {
	uint32_t h[8];
	uint32_t t[2];
	uint32_t f[2];
	uint8_t buf[64];
	size_t buflen;
	size_t outlen;
};

void zinc_blake2s_init(struct zinc_blake2s_state *state, size_t outlen);
void zinc_blake2s_init_key(struct zinc_blake2s_state *state, size_t outlen, const uint8_t *key,
			   size_t keylen);
void zinc_blake2s_update(struct zinc_blake2s_state *state, const uint8_t *in, size_t inlen);
/* Writes state->outlen bytes and wipes the state. */
void zinc_blake2s_final(struct zinc_blake2s_state *state, uint8_t *out);

/* One call: key may be NULL when keylen is 0. */
void zinc_blake2s(uint8_t *out, const uint8_t *in, const uint8_t *key, size_t outlen, size_t inlen,
		  size_t keylen);

/* HMAC (RFC 2104) over BLAKE2s-256, block size 64, output 32 bytes. */
void zinc_blake2s_hmac(uint8_t out[32], const uint8_t *in, const uint8_t *key, size_t inlen,
		       size_t keylen);

#endif
