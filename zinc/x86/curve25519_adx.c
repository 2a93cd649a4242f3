// SPDX-License-Identifier: MIT
/* X25519 with four 64-bit limbs for CPUs with BMI2 and ADX: a Montgomery
 * ladder on the field of fe64.h. Constant time: the ladder's only
 * secret-dependent operation is a masked conditional swap. */
#if defined(__x86_64__)
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"
#include "fe64.h"

/* The ladder's state and a step's temporaries (wiped once, at the end). */
struct ladder {
	fe x2, z2, x3, z3;
	fe a, b, c, d, sa, sb, aa, bb, da, cb, e;
};

/* r = f where swap is 0, g where it is 1, with a mask in 64-bit
 * registers (as fe_cswap). */
static ALWAYS_INLINE void fe_select(fe r, const fe f, const fe g, uint64_t mask)
{
	// clang-format off
	__asm__ __volatile__(
#define SELECT_WORD(o)                                                                             \
	"movq " o "(%[f]), %%rax\n\t"                                                              \
	"movq " o "(%[g]), %%rcx\n\t"                                                              \
	"xorq %%rax, %%rcx\n\t"                                                                    \
	"andq %[m], %%rcx\n\t"                                                                     \
	"xorq %%rcx, %%rax\n\t"                                                                    \
	"movq %%rax, " o "(%[r])\n\t"
	    SELECT_WORD("0") SELECT_WORD("8") SELECT_WORD("16") SELECT_WORD("24")
#undef SELECT_WORD
	    :
	    : [r] "r"(r), [f] "r"(f), [g] "r"(g), [m] "r"(mask)
	    : "rax", "rcx", "memory");
	// clang-format on
}

/* One step. The conditional swap of (x2, z2) with (x3, z3) only matters
 * for the point doubled: the sum's x3 = (DA + CB)^2 and z3 = x1 (DA - CB)^2
 * are the same either way (swapping swaps DA and CB). So a, b, c, d and
 * the sum come from the unswapped state, and only the doubling's inputs
 * are selected under the mask: 8 words instead of a 16-word swap.
 * Independent operations sit side by side, critical path first, so that
 * the CPU overlaps their carry chains. */
static ALWAYS_INLINE void ladder_step(struct ladder *s, const fe x1, uint64_t swap)
{
	const uint64_t mask = 0 - swap;

	fe_addsub(s->a, s->b, s->x2, s->z2);
	fe_addsub(s->c, s->d, s->x3, s->z3);
	fe_select(s->sa, s->a, s->c, mask);
	fe_select(s->sb, s->b, s->d, mask);
	fe_mul(s->da, s->d, s->a);
	fe_mul(s->cb, s->c, s->b);
	fe_sq(s->aa, s->sa);
	fe_sq(s->bb, s->sb);
	fe_addsub(s->x3, s->z3, s->da, s->cb);
	fe_sub(s->e, s->aa, s->bb);
	fe_sq(s->x3, s->x3);
	fe_sq(s->z3, s->z3);
	fe_mul_a24_add(s->z2, s->e, s->aa);
	fe_mul(s->x2, s->aa, s->bb);
	fe_mul(s->z3, s->z3, x1);
	fe_mul(s->z2, s->z2, s->e);
}

void zinc_x25519_bmi2_adx(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32])
{
	struct ladder s;
	fe x1;
	uint64_t swap = 0;

	memcpy(x1, point, 32);
	x1[3] &= 0x7fffffffffffffffULL; /* RFC 7748: ignore the top bit of u */
	memset(&s, 0, sizeof(s));
	s.x2[0] = 1;
	memcpy(s.x3, x1, sizeof(fe));
	s.z3[0] = 1;

	for (int t = 254; t >= 0; t--) {
		const uint64_t k_t = (scalar[t >> 3] >> (t & 7)) & 1;

		ladder_step(&s, x1, swap ^ k_t);
		swap = k_t;
	}
	fe_cswap(s.x2, s.x3, swap);
	fe_cswap(s.z2, s.z3, swap);

	fe_invert(s.z2, s.z2);
	fe_mul(s.x2, s.x2, s.z2);
	fe_tobytes(out, s.x2);

	zinc_memzero(&s, sizeof(s));
	zinc_memzero(x1, sizeof(fe));
	zinc_memzero(&swap, sizeof(swap));
}
#endif
