// SPDX-License-Identifier: MIT
/* ChaCha20 (RFC 8439), HChaCha20 and XChaCha20 (draft-irtf-cfrg-xchacha).
 * Portable C. chacha20_crypt() is the single point where an architecture
 * implementation (zinc/cpu.h) is dispatched; the generic code stays the
 * reference and is always built. */
#include <stdint.h>
#include <string.h>

#include <zinc/chacha20.h>
#include <zinc/memzero.h>

#include "cpu.h"

/* "expand 32-byte k" as four little-endian words. */
#define CHACHA_C0 0x61707865u
#define CHACHA_C1 0x3320646eu
#define CHACHA_C2 0x79622d32u
#define CHACHA_C3 0x6b206574u

static inline uint32_t rotl32(uint32_t v, int n)
{
	return (v << n) | (v >> (32 - n));
}

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline void store_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

#define QUARTER_ROUND(x, a, b, c, d)                                                               \
	do {                                                                                       \
		x[a] += x[b];                                                                      \
		x[d] = rotl32(x[d] ^ x[a], 16);                                                    \
		x[c] += x[d];                                                                      \
		x[b] = rotl32(x[b] ^ x[c], 12);                                                    \
		x[a] += x[b];                                                                      \
		x[d] = rotl32(x[d] ^ x[a], 8);                                                     \
		x[c] += x[d];                                                                      \
		x[b] = rotl32(x[b] ^ x[c], 7);                                                     \
	} while (0)

/* The 20 rounds (10 column + diagonal double rounds), in place. */
static void chacha20_permute(uint32_t x[16])
{
	for (int i = 0; i < 10; i++) {
		QUARTER_ROUND(x, 0, 4, 8, 12);
		QUARTER_ROUND(x, 1, 5, 9, 13);
		QUARTER_ROUND(x, 2, 6, 10, 14);
		QUARTER_ROUND(x, 3, 7, 11, 15);
		QUARTER_ROUND(x, 0, 5, 10, 15);
		QUARTER_ROUND(x, 1, 6, 11, 12);
		QUARTER_ROUND(x, 2, 7, 8, 13);
		QUARTER_ROUND(x, 3, 4, 9, 14);
	}
}

/* One 64-byte keystream block for state, then state[12]++ (32-bit wrap,
 * as RFC 8439 specifies the counter). x is scratch the caller wipes. */
static void chacha20_block_generic(uint32_t state[16], uint8_t out[64], uint32_t x[16])
{
	memcpy(x, state, 16 * sizeof(uint32_t));
	chacha20_permute(x);
	for (int i = 0; i < 16; i++)
		store_le32(out + 4 * i, x[i] + state[i]);
	state[12]++;
}

/* The portable entry of zinc/cpu.h: dst = src XOR keystream; any alignment,
 * dst == src allowed; state[12] advances by the blocks used. */
void zinc_chacha20_generic(uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len)
{
	uint32_t x[16];
	uint8_t ks[64];

	/* Whole blocks: XOR word by word, no keystream buffer. */
	while (len >= 64) {
		memcpy(x, state, sizeof(x));
		chacha20_permute(x);
		for (int i = 0; i < 16; i++)
			store_le32(dst + 4 * i, load_le32(src + 4 * i) ^ (x[i] + state[i]));
		state[12]++;
		dst += 64;
		src += 64;
		len -= 64;
	}
	if (len) {
		chacha20_block_generic(state, ks, x);
		for (size_t i = 0; i < len; i++)
			dst[i] = src[i] ^ ks[i];
		zinc_memzero(ks, sizeof(ks));
	}
	zinc_memzero(x, sizeof(x));
}

/* The one dispatch point: the entry zinc_impl() chose for this CPU
 * (zinc_chacha20_generic on the generic path or without SIMD). */
static void chacha20_crypt(uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len)
{
	zinc_impl()->chacha20(state, dst, src, len);
}

void zinc_chacha20_state(uint32_t state[16], const uint8_t key[32], const uint8_t nonce[12],
			 uint32_t counter)
{
	state[0] = CHACHA_C0;
	state[1] = CHACHA_C1;
	state[2] = CHACHA_C2;
	state[3] = CHACHA_C3;
	for (int i = 0; i < 8; i++)
		state[4 + i] = load_le32(key + 4 * i);
	state[12] = counter;
	for (int i = 0; i < 3; i++)
		state[13 + i] = load_le32(nonce + 4 * i);
}

void zinc_chacha20(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t key[32],
		   const uint8_t nonce[12], uint32_t counter)
{
	uint32_t state[16];

	zinc_chacha20_state(state, key, nonce, counter);
	chacha20_crypt(state, dst, src, len);
	zinc_memzero(state, sizeof(state));
}

void zinc_hchacha20(uint8_t out[32], const uint8_t nonce[16], const uint8_t key[32])
{
	uint32_t x[16];

	/* words 12..15: the 16-byte nonce */
	zinc_chacha20_state(x, key, nonce + 4, load_le32(nonce));
	chacha20_permute(x);
	/* No feed-forward: the first and last rows are the subkey. */
	for (int i = 0; i < 4; i++) {
		store_le32(out + 4 * i, x[i]);
		store_le32(out + 16 + 4 * i, x[12 + i]);
	}
	zinc_memzero(x, sizeof(x));
}

void zinc_xchacha20(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t key[32],
		    const uint8_t nonce[24], uint32_t counter)
{
	uint8_t subkey[32];
	uint8_t n12[12] = {0};

	zinc_hchacha20(subkey, nonce, key);
	memcpy(n12 + 4, nonce + 16, 8);
	zinc_chacha20(dst, src, len, subkey, n12, counter);
	zinc_memzero(subkey, sizeof(subkey));
}
