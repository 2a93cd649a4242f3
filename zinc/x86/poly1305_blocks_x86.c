// SPDX-License-Identifier: MIT
/* Entries for the streaming Poly1305 API (zinc/poly1305.c keeps the state
 * in 44-bit limbs, shared by every entry so paths can never disagree on
 * it): each call converts to radix 2^64, runs the 64-bit scalar code or,
 * for long runs of full blocks, the vector code, and converts back. */
#if defined(__x86_64__)
#include <zinc/memzero.h>
#include <zinc/poly1305.h>

#include "../cpu.h"
#include "poly1305_x86.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

typedef void (*vblocks_fn)(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks);
typedef void (*vfinish_fn)(struct poly1305_x86 *p);

static ALWAYS_INLINE void blocks(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
				 uint64_t hibit, vblocks_fn vblocks, vfinish_fn vfinish,
				 size_t group, size_t vmin)
{
	struct poly1305_x86 p;

	poly64_from_ctx(&p, ctx);
	if (vblocks && hibit && nblocks >= vmin) {
		const size_t v = nblocks - nblocks % group;

		vblocks(&p, src, v);
		vfinish(&p);
		src += 16 * v;
		nblocks -= v;
	}
	poly64_blocks_hb(&p, src, nblocks, hibit ? 1 : 0);
	poly64_to_ctx(ctx, &p);
	zinc_memzero(&p.h0, 6 * sizeof(uint64_t)); /* h0..h2, r0, r1, s1 */
}

void zinc_poly1305_blocks_x86_64(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
				 uint64_t hibit)
{
	blocks(ctx, src, nblocks, hibit, NULL, NULL, 1, 0);
}

/* Vector thresholds in blocks: where the key powers and the final fold
 * have paid for themselves (measured on Zen 5). */
void zinc_poly1305_blocks_avx2(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
			       uint64_t hibit)
{
	blocks(ctx, src, nblocks, hibit, zinc_poly1305_avx2_blocks, zinc_poly1305_avx2_finish, 4,
	       32);
}

void zinc_poly1305_blocks_avx512(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
				 uint64_t hibit)
{
	blocks(ctx, src, nblocks, hibit, zinc_poly1305_avx512_blocks, zinc_poly1305_avx512_finish,
	       16, 64);
}

void zinc_poly1305_blocks_ifma(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
			       uint64_t hibit)
{
	blocks(ctx, src, nblocks, hibit, zinc_poly1305_ifma_blocks, zinc_poly1305_ifma_finish, 16,
	       32);
}
#endif
