// SPDX-License-Identifier: MIT
/*
 * BLAKE2s (RFC 7693) and HMAC-BLAKE2s (RFC 2104).
 *
 * The compression function works on nblocks consecutive 64-byte blocks, each
 * advancing the byte counter by inc. zinc_blake2s_compress_generic is the
 * portable entry of zinc/cpu.h; the entry zinc_impl() chose is called by
 * blake2s_compress() (streaming). zinc_blake2s() (one call) uses the
 * blake2s_final entry: whole blocks and the final block in one call.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <zinc/blake2s.h>
#include <zinc/memzero.h>

#include "blake2s_constants.h"
#include "cpu.h"

static inline uint32_t ror32(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void blake2s_increment_counter(struct zinc_blake2s_state *state, uint32_t inc)
{
	state->t[0] += inc;
	state->t[1] += (state->t[0] < inc);
}

#define G(r, i, a, b, c, d)                                                                        \
	do {                                                                                       \
		a += b + m[zinc_blake2s_sigma[r][2 * (i)]];                                        \
		d = ror32(d ^ a, 16);                                                              \
		c += d;                                                                            \
		b = ror32(b ^ c, 12);                                                              \
		a += b + m[zinc_blake2s_sigma[r][2 * (i) + 1]];                                    \
		d = ror32(d ^ a, 8);                                                               \
		c += d;                                                                            \
		b = ror32(b ^ c, 7);                                                               \
	} while (0)

#define ROUND(r)                                                                                   \
	do {                                                                                       \
		G(r, 0, v[0], v[4], v[8], v[12]);                                                  \
		G(r, 1, v[1], v[5], v[9], v[13]);                                                  \
		G(r, 2, v[2], v[6], v[10], v[14]);                                                 \
		G(r, 3, v[3], v[7], v[11], v[15]);                                                 \
		G(r, 4, v[0], v[5], v[10], v[15]);                                                 \
		G(r, 5, v[1], v[6], v[11], v[12]);                                                 \
		G(r, 6, v[2], v[7], v[8], v[13]);                                                  \
		G(r, 7, v[3], v[4], v[9], v[14]);                                                  \
	} while (0)

void zinc_blake2s_compress_generic(struct zinc_blake2s_state *state, const uint8_t *block,
				   size_t nblocks, uint32_t inc)
{
	uint32_t m[16];
	uint32_t v[16];
	int i;

	while (nblocks--) {
		blake2s_increment_counter(state, inc);
		for (i = 0; i < 16; i++)
			m[i] = get_le32(block + 4 * i);
		memcpy(v, state->h, 32);
		memcpy(v + 8, zinc_blake2s_iv, 32);
		v[12] ^= state->t[0];
		v[13] ^= state->t[1];
		v[14] ^= state->f[0];
		v[15] ^= state->f[1];
		ROUND(0);
		ROUND(1);
		ROUND(2);
		ROUND(3);
		ROUND(4);
		ROUND(5);
		ROUND(6);
		ROUND(7);
		ROUND(8);
		ROUND(9);
		for (i = 0; i < 8; i++)
			state->h[i] ^= v[i] ^ v[i + 8];
		block += ZINC_BLAKE2S_BLOCK_SIZE;
	}
	zinc_memzero(m, sizeof(m));
	zinc_memzero(v, sizeof(v));
}

#undef ROUND
#undef G

void zinc_blake2s_compress_final_generic(struct zinc_blake2s_state *state, const uint8_t *block,
					 size_t nblocks, const uint8_t *last, uint32_t lastinc)
{
	zinc_blake2s_compress_generic(state, block, nblocks, ZINC_BLAKE2S_BLOCK_SIZE);
	state->f[0] = 0xFFFFFFFFUL;
	zinc_blake2s_compress_generic(state, last, 1, lastinc);
}

/* The streaming dispatch point: the entry zinc_impl() chose for this CPU. */
static inline void blake2s_compress(struct zinc_blake2s_state *state, const uint8_t *block,
				    size_t nblocks, uint32_t inc)
{
	zinc_impl()->blake2s_compress(state, block, nblocks, inc);
}

/* Sizes are fixed by the caller's protocol; a bad one is a programming error
 * that would otherwise produce a silently wrong digest. */
static void blake2s_check_sizes(size_t outlen, size_t keylen)
{
	if (!outlen || outlen > ZINC_BLAKE2S_HASH_SIZE || keylen > ZINC_BLAKE2S_KEY_SIZE)
		abort();
}

static void blake2s_init_param(struct zinc_blake2s_state *state, uint32_t param)
{
	memset(state, 0, sizeof(*state));
	memcpy(state->h, zinc_blake2s_iv, sizeof(state->h));
	state->h[0] ^= param;
}

void zinc_blake2s_init(struct zinc_blake2s_state *state, size_t outlen)
{
	blake2s_check_sizes(outlen, 0);
	/* Parameter block word 0: digest length, key length 0, fanout 1, depth 1. */
	blake2s_init_param(state, 0x01010000UL | (uint32_t)outlen);
	state->outlen = outlen;
}

void zinc_blake2s_init_key(struct zinc_blake2s_state *state, size_t outlen, const uint8_t *key,
			   size_t keylen)
{
	uint8_t block[ZINC_BLAKE2S_BLOCK_SIZE] = {0};

	blake2s_check_sizes(outlen, keylen);
	blake2s_init_param(state, 0x01010000UL | (uint32_t)keylen << 8 | (uint32_t)outlen);
	state->outlen = outlen;
	if (keylen) {
		/* The zero-padded key is the first block; it may also be the last. */
		memcpy(block, key, keylen);
		zinc_blake2s_update(state, block, ZINC_BLAKE2S_BLOCK_SIZE);
		zinc_memzero(block, sizeof(block));
	}
}

void zinc_blake2s_update(struct zinc_blake2s_state *state, const uint8_t *in, size_t inlen)
{
	const size_t fill = ZINC_BLAKE2S_BLOCK_SIZE - state->buflen;

	if (!inlen)
		return;
	/* The last block must be compressed by final() with the final flag,
	 * so a full block is only compressed once more input follows it. An
	 * empty buffer needs no filling: whole blocks go straight from in. */
	if (state->buflen && inlen > fill) {
		memcpy(state->buf + state->buflen, in, fill);
		blake2s_compress(state, state->buf, 1, ZINC_BLAKE2S_BLOCK_SIZE);
		state->buflen = 0;
		in += fill;
		inlen -= fill;
	}
	if (inlen > ZINC_BLAKE2S_BLOCK_SIZE) {
		const size_t nblocks = (inlen - 1) / ZINC_BLAKE2S_BLOCK_SIZE;

		blake2s_compress(state, in, nblocks, ZINC_BLAKE2S_BLOCK_SIZE);
		in += nblocks * ZINC_BLAKE2S_BLOCK_SIZE;
		inlen -= nblocks * ZINC_BLAKE2S_BLOCK_SIZE;
	}
	memcpy(state->buf + state->buflen, in, inlen);
	state->buflen += inlen;
}

void zinc_blake2s_final(struct zinc_blake2s_state *state, uint8_t *out)
{
	uint8_t full[ZINC_BLAKE2S_HASH_SIZE];
	int i;

	state->f[0] = 0xFFFFFFFFUL;
	memset(state->buf + state->buflen, 0, ZINC_BLAKE2S_BLOCK_SIZE - state->buflen);
	blake2s_compress(state, state->buf, 1, (uint32_t)state->buflen);
	for (i = 0; i < 8; i++)
		put_le32(full + 4 * i, state->h[i]);
	memcpy(out, full, state->outlen);
	zinc_memzero(full, sizeof(full));
	zinc_memzero(state, sizeof(*state));
}

/* One call without the streaming buffer: the key block (if any) is
 * compressed first; then the whole blocks straight from in and the final
 * block go through one kernel call (blake2s_final), so h stays in registers.
 * Only a partial last block is copied, zero-padded, into state.buf, and
 * only h, t, f and buf (what held secrets) are wiped. Every branch is on a
 * length, never on key or data. */
void zinc_blake2s(uint8_t *out, const uint8_t *in, const uint8_t *key, size_t outlen, size_t inlen,
		  size_t keylen)
{
	const struct zinc_impl *impl = zinc_impl();
	/* All but the last block; the last holds 1..64 bytes (0 if inlen is 0). */
	const size_t nfull = inlen ? (inlen - 1) / ZINC_BLAKE2S_BLOCK_SIZE : 0;
	const size_t rest = inlen - nfull * ZINC_BLAKE2S_BLOCK_SIZE;
	struct zinc_blake2s_state state;
	const uint8_t *last = state.buf;

	blake2s_check_sizes(outlen, keylen);
	memcpy(state.h, zinc_blake2s_iv, sizeof(state.h));
	state.h[0] ^= 0x01010000UL | (uint32_t)keylen << 8 | (uint32_t)outlen;
	state.t[0] = state.t[1] = 0;
	state.f[0] = state.f[1] = 0;
	if (keylen) {
		/* The zero-padded key is the first block, the last one if in is empty. */
		memset(state.buf, 0, sizeof(state.buf));
		memcpy(state.buf, key, keylen);
		if (inlen)
			impl->blake2s_compress(&state, state.buf, 1, ZINC_BLAKE2S_BLOCK_SIZE);
	}
	if (rest == ZINC_BLAKE2S_BLOCK_SIZE) {
		last = in + nfull * ZINC_BLAKE2S_BLOCK_SIZE;
	} else if (rest || !keylen) {
		memset(state.buf, 0, sizeof(state.buf));
		if (rest)
			memcpy(state.buf, in + nfull * ZINC_BLAKE2S_BLOCK_SIZE, rest);
	}
	impl->blake2s_final(&state, in, nfull, last,
			    keylen && !inlen ? ZINC_BLAKE2S_BLOCK_SIZE : (uint32_t)rest);

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* h in memory is the digest byte order: two vector moves, not a
	 * (compiler-vectorised) byte shuffle per word. */
	if (outlen == ZINC_BLAKE2S_HASH_SIZE)
		memcpy(out, state.h, ZINC_BLAKE2S_HASH_SIZE);
	else
		memcpy(out, state.h, outlen);
#else
	{
		int i;

		/* buf is free now: the digest is cut to outlen there. */
		for (i = 0; i < 8; i++)
			put_le32(state.buf + 4 * i, state.h[i]);
		memcpy(out, state.buf, outlen);
	}
#endif
	zinc_memzero(&state, offsetof(struct zinc_blake2s_state, buflen));
}

void zinc_blake2s_hmac(uint8_t out[32], const uint8_t *in, const uint8_t *key, size_t inlen,
		       size_t keylen)
{
	struct zinc_blake2s_state state;
	uint8_t x_key[ZINC_BLAKE2S_BLOCK_SIZE] = {0};
	uint8_t i_hash[ZINC_BLAKE2S_HASH_SIZE];
	int i;

	/* RFC 2104: keys longer than the block are hashed first. */
	if (keylen > ZINC_BLAKE2S_BLOCK_SIZE) {
		zinc_blake2s_init(&state, ZINC_BLAKE2S_HASH_SIZE);
		zinc_blake2s_update(&state, key, keylen);
		zinc_blake2s_final(&state, x_key);
	} else if (keylen) {
		memcpy(x_key, key, keylen);
	}

	for (i = 0; i < ZINC_BLAKE2S_BLOCK_SIZE; i++)
		x_key[i] ^= 0x36;
	zinc_blake2s_init(&state, ZINC_BLAKE2S_HASH_SIZE);
	zinc_blake2s_update(&state, x_key, ZINC_BLAKE2S_BLOCK_SIZE);
	zinc_blake2s_update(&state, in, inlen);
	zinc_blake2s_final(&state, i_hash);

	/* 0x36 ^ 0x5c turns the inner pad into the outer pad. */
	for (i = 0; i < ZINC_BLAKE2S_BLOCK_SIZE; i++)
		x_key[i] ^= 0x36 ^ 0x5c;
	zinc_blake2s_init(&state, ZINC_BLAKE2S_HASH_SIZE);
	zinc_blake2s_update(&state, x_key, ZINC_BLAKE2S_BLOCK_SIZE);
	zinc_blake2s_update(&state, i_hash, ZINC_BLAKE2S_HASH_SIZE);
	zinc_blake2s_final(&state, i_hash);

	memcpy(out, i_hash, ZINC_BLAKE2S_HASH_SIZE);
	zinc_memzero(x_key, sizeof(x_key));
	zinc_memzero(i_hash, sizeof(i_hash));
}
