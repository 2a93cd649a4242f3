/* BLAKE2s compression with the 4x4 state as four row vectors: one G step
 * runs on all four columns (then all four diagonals, after rotating rows
 * 2..4) at once. Message words are gathered per round from the sigma
 * schedule with scalar loads straight from the block, off the critical
 * path, which is cheaper than shuffling them into place.
 * Included by zinc/x86/blake2s_*.c after they define B2_TARGET, B2_NAME,
 * B2_FINAL_NAME and B2_ROT(x, n) (rotate each 32-bit lane right by n). */
#include <immintrin.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../blake2s_constants.h"
#include "../cpu.h"

/* Message words straight from the block (little-endian host). */
#define B2_W(r, k) ((int)b2_load32(block + 4 * zinc_blake2s_sigma[r][k]))
#define B2_GATHER(r, i, j, k, l) _mm_setr_epi32(B2_W(r, i), B2_W(r, j), B2_W(r, k), B2_W(r, l))

/* a += m early (m is ready long before b), so only "+ b" sits on the chain
 * of dependent instructions that bounds BLAKE2s; the empty asm keeps the
 * compiler from reassociating the sum back. MemorySanitizer would report
 * its secret operand (asm is not instrumented) and stop the dispatched
 * path's check, so that build goes without it. */
#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#define B2_NO_BARRIER 1
#endif
#endif
#ifdef B2_NO_BARRIER
#define B2_BARRIER(x) ((void)0)
#else
#define B2_BARRIER(x) __asm__("" : "+x"(x))
#endif
#define B2_HALF_G(r1, r2, r3, r4, msg, ra, rb)                                                     \
	do {                                                                                       \
		__m128i t_ = _mm_add_epi32(r1, msg);                                               \
		B2_BARRIER(t_);                                                                    \
		r1 = _mm_add_epi32(t_, r2);                                                        \
		r4 = B2_ROT(_mm_xor_si128(r4, r1), ra);                                            \
		r3 = _mm_add_epi32(r3, r4);                                                        \
		r2 = B2_ROT(_mm_xor_si128(r2, r3), rb);                                            \
	} while (0)

/* Columns, then diagonals. Row 2 ends each half-round on the critical path,
 * so rows 1, 3 and 4 are the ones rotated into diagonal position (their
 * shuffles overlap with row 2's work); the diagonal message lanes follow:
 * lane j serves G4 + (j + 3) % 4. */
#define B2_ROUND(r)                                                                                \
	do {                                                                                       \
		B2_HALF_G(r1, r2, r3, r4, B2_GATHER(r, 0, 2, 4, 6), 16, 12);                       \
		B2_HALF_G(r1, r2, r3, r4, B2_GATHER(r, 1, 3, 5, 7), 8, 7);                         \
		r1 = _mm_shuffle_epi32(r1, _MM_SHUFFLE(2, 1, 0, 3));                               \
		r3 = _mm_shuffle_epi32(r3, _MM_SHUFFLE(0, 3, 2, 1));                               \
		r4 = _mm_shuffle_epi32(r4, _MM_SHUFFLE(1, 0, 3, 2));                               \
		B2_HALF_G(r1, r2, r3, r4, B2_GATHER(r, 14, 8, 10, 12), 16, 12);                    \
		B2_HALF_G(r1, r2, r3, r4, B2_GATHER(r, 15, 9, 11, 13), 8, 7);                      \
		r1 = _mm_shuffle_epi32(r1, _MM_SHUFFLE(0, 3, 2, 1));                               \
		r3 = _mm_shuffle_epi32(r3, _MM_SHUFFLE(2, 1, 0, 3));                               \
		r4 = _mm_shuffle_epi32(r4, _MM_SHUFFLE(1, 0, 3, 2));                               \
	} while (0)

static inline uint32_t b2_load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

B2_TARGET void B2_NAME(struct zinc_blake2s_state *state, const uint8_t *block, size_t nblocks,
		       uint32_t inc)
{
	const __m128i iv0 =
	    _mm_setr_epi32(0x6a09e667, (int)0xbb67ae85, 0x3c6ef372, (int)0xa54ff53a);
	const __m128i iv1 = _mm_setr_epi32(0x510e527f, (int)0x9b05688c, 0x1f83d9ab, 0x5be0cd19);
	__m128i h0 = _mm_loadu_si128((const __m128i *)(const void *)state->h);
	__m128i h1 = _mm_loadu_si128((const __m128i *)(const void *)(state->h + 4));

	while (nblocks--) {
		__m128i r1, r2, r3, r4;

		state->t[0] += inc;
		state->t[1] += (state->t[0] < inc);
		r1 = h0;
		r2 = h1;
		r3 = iv0;
		r4 = _mm_xor_si128(iv1, _mm_setr_epi32((int)state->t[0], (int)state->t[1],
						       (int)state->f[0], (int)state->f[1]));
		B2_ROUND(0);
		B2_ROUND(1);
		B2_ROUND(2);
		B2_ROUND(3);
		B2_ROUND(4);
		B2_ROUND(5);
		B2_ROUND(6);
		B2_ROUND(7);
		B2_ROUND(8);
		B2_ROUND(9);
		h0 = _mm_xor_si128(h0, _mm_xor_si128(r1, r3));
		h1 = _mm_xor_si128(h1, _mm_xor_si128(r2, r4));
		block += 64;
	}
	_mm_storeu_si128((__m128i *)(void *)state->h, h0);
	_mm_storeu_si128((__m128i *)(void *)(state->h + 4), h1);
}

/* The blake2s_final entry of the dispatch table (cpu.h): whole blocks, then
 * the last one flagged final. */
B2_TARGET void B2_FINAL_NAME(struct zinc_blake2s_state *state, const uint8_t *block, size_t nblocks,
			     const uint8_t *last, uint32_t lastinc)
{
	B2_NAME(state, block, nblocks, 64);
	state->f[0] = 0xFFFFFFFFUL;
	B2_NAME(state, last, 1, lastinc);
}
