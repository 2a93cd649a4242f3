// SPDX-License-Identifier: MIT
/* The C twin of blake2s_x86_64_asm.S: the same entries,
 * zinc_blake2s_compress_x86_64 and zinc_blake2s_compress_final_x86_64,
 * for builds where the assembly is left out (MemorySanitizer, which cannot see what assembly
 * writes). Plain C without inline asm, so MSan tracks secret data through it; speed is not the
 * point here (on Zen 5 the assembly takes ~255-260 core cycles per block, this code with inline-asm
 * message adds took ~285; see doc/zinc-x86.md). */
#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#define ZINC_BLAKE2S_NO_ASM 1
#endif
#endif

#if defined(__x86_64__) && defined(ZINC_BLAKE2S_NO_ASM)
#include "../blake2s_constants.h"
#include "../cpu.h"

static inline uint32_t ror32(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t word(const uint8_t *block, int k)
{
	const uint8_t *p = block + 4 * k;

	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

/* a += m before a += b: m is ready at once, b last. */
#define ADD_WORD(a, k) (a += word(block, (k)))

#define G(r, i, a, b, c, d)                                                                        \
	do {                                                                                       \
		ADD_WORD(a, zinc_blake2s_sigma[r][2 * (i)]);                                       \
		a += b;                                                                            \
		d = ror32(d ^ a, 16);                                                              \
		c += d;                                                                            \
		b = ror32(b ^ c, 12);                                                              \
		ADD_WORD(a, zinc_blake2s_sigma[r][2 * (i) + 1]);                                   \
		a += b;                                                                            \
		d = ror32(d ^ a, 8);                                                               \
		c += d;                                                                            \
		b = ror32(b ^ c, 7);                                                               \
	} while (0)

#define ROUND(r)                                                                                   \
	do {                                                                                       \
		G(r, 0, v0, v4, v8, v12);                                                          \
		G(r, 1, v1, v5, v9, v13);                                                          \
		G(r, 2, v2, v6, v10, v14);                                                         \
		G(r, 3, v3, v7, v11, v15);                                                         \
		G(r, 4, v0, v5, v10, v15);                                                         \
		G(r, 5, v1, v6, v11, v12);                                                         \
		G(r, 6, v2, v7, v8, v13);                                                          \
		G(r, 7, v3, v4, v9, v14);                                                          \
	} while (0)

void zinc_blake2s_compress_x86_64(struct zinc_blake2s_state *state, const uint8_t *block,
				  size_t nblocks, uint32_t inc)
{
	uint32_t *h = state->h;

	while (nblocks--) {
		uint32_t v0 = h[0], v1 = h[1], v2 = h[2], v3 = h[3];
		uint32_t v4 = h[4], v5 = h[5], v6 = h[6], v7 = h[7];
		uint32_t v8 = 0x6a09e667, v9 = 0xbb67ae85, v10 = 0x3c6ef372, v11 = 0xa54ff53a;
		uint32_t v12, v13, v14, v15;

		state->t[0] += inc;
		state->t[1] += (state->t[0] < inc);
		v12 = 0x510e527f ^ state->t[0];
		v13 = 0x9b05688c ^ state->t[1];
		v14 = 0x1f83d9ab ^ state->f[0];
		v15 = 0x5be0cd19 ^ state->f[1];
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
		h[0] ^= v0 ^ v8;
		h[1] ^= v1 ^ v9;
		h[2] ^= v2 ^ v10;
		h[3] ^= v3 ^ v11;
		h[4] ^= v4 ^ v12;
		h[5] ^= v5 ^ v13;
		h[6] ^= v6 ^ v14;
		h[7] ^= v7 ^ v15;
		block += 64;
	}
}

void zinc_blake2s_compress_final_x86_64(struct zinc_blake2s_state *state, const uint8_t *block,
					size_t nblocks, const uint8_t *last, uint32_t lastinc)
{
	zinc_blake2s_compress_x86_64(state, block, nblocks, 64);
	state->f[0] = 0xFFFFFFFFUL;
	zinc_blake2s_compress_x86_64(state, last, 1, lastinc);
}
#endif
