// SPDX-License-Identifier: MIT
/* X25519 with four 64-bit limbs for CPUs with BMI2 and ADX: a Montgomery
 * ladder on the field of fe64.h. Constant time: the ladder's only
 * secret-dependent operation is a masked conditional swap. */
#if defined(__x86_64__)
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"
#include "fe64.h"

/* The ladder's state and a step's temporaries (wiped once, at the end);
 * the assembly names the offsets of x2 .. sb (0, 32, .., 288). */
struct ladder {
	fe x2, z2, x3, z3;
	fe a, b, c, d, sa, sb, aa, bb, da, cb, e;
};

// clang-format off
/* S = X + Z and D = X - Z at offsets of %[s] (r8..r11 hold S, r12..r15
 * D); the folds are fe_addsub's. */
#define ADDSUB(X, Z, S, D)                                                                         \
	"movq " X "+0(%[s]), %%r8\n\t"                                                             \
	"movq " X "+8(%[s]), %%r9\n\t"                                                             \
	"movq " X "+16(%[s]), %%r10\n\t"                                                           \
	"movq " X "+24(%[s]), %%r11\n\t"                                                           \
	"movq %%r8, %%r12\n\t"                                                                     \
	"movq %%r9, %%r13\n\t"                                                                     \
	"movq %%r10, %%r14\n\t"                                                                    \
	"movq %%r11, %%r15\n\t"                                                                    \
	"addq " Z "+0(%[s]), %%r8\n\t"                                                             \
	"adcq " Z "+8(%[s]), %%r9\n\t"                                                             \
	"adcq " Z "+16(%[s]), %%r10\n\t"                                                           \
	"adcq " Z "+24(%[s]), %%r11\n\t"                                                           \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	"addq %%rax, %%r8\n\t"                                                                     \
	"adcq $0, %%r9\n\t"                                                                        \
	"adcq $0, %%r10\n\t"                                                                       \
	"adcq $0, %%r11\n\t"                                                                       \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	"addq %%rax, %%r8\n\t"                                                                     \
	"subq " Z "+0(%[s]), %%r12\n\t"                                                            \
	"sbbq " Z "+8(%[s]), %%r13\n\t"                                                            \
	"sbbq " Z "+16(%[s]), %%r14\n\t"                                                           \
	"sbbq " Z "+24(%[s]), %%r15\n\t"                                                           \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	"subq %%rax, %%r12\n\t"                                                                    \
	"sbbq $0, %%r13\n\t"                                                                       \
	"sbbq $0, %%r14\n\t"                                                                       \
	"sbbq $0, %%r15\n\t"                                                                       \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	"subq %%rax, %%r12\n\t"                                                                    \
	"movq %%r8, " S "+0(%[s])\n\t"                                                             \
	"movq %%r9, " S "+8(%[s])\n\t"                                                             \
	"movq %%r10, " S "+16(%[s])\n\t"                                                           \
	"movq %%r11, " S "+24(%[s])\n\t"                                                           \
	"movq %%r12, " D "+0(%[s])\n\t"                                                            \
	"movq %%r13, " D "+8(%[s])\n\t"                                                            \
	"movq %%r14, " D "+16(%[s])\n\t"                                                           \
	"movq %%r15, " D "+24(%[s])\n\t"

/* Word o of the selection: reg (the second choice, in a register) kept
 * where the inverted mask nm is 0, the word at F where it is all ones. */
#define SELECT(F, R, o, reg)                                                                       \
	"movq " F "+" o "(%[s]), %%rax\n\t"                                                        \
	"xorq " reg ", %%rax\n\t"                                                                  \
	"andq %[nm], %%rax\n\t"                                                                    \
	"xorq %%rax, " reg "\n\t"                                                                  \
	"movq " reg ", " R "+" o "(%[s])\n\t"
#define SELECT4(F, R, r0, r1, r2, r3)                                                              \
	SELECT(F, R, "0", r0) SELECT(F, R, "8", r1) SELECT(F, R, "16", r2) SELECT(F, R, "24", r3)

/* a, b = x2 +- z2, c, d = x3 +- z3, then sa = swap ? c : a and
 * sb = swap ? d : b from c and d still in registers. */
static ALWAYS_INLINE void sums_select(struct ladder *s, uint64_t swap)
{
	const uint64_t nm = swap - 1;

	__asm__ __volatile__(
		ADDSUB("0", "32", "128", "160")
		ADDSUB("64", "96", "192", "224")
		SELECT4("128", "256", "%%r8", "%%r9", "%%r10", "%%r11")
		SELECT4("160", "288", "%%r12", "%%r13", "%%r14", "%%r15")
		:
		: [s] "r"(s), [nm] "r"(nm)
		: "rax", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc", "memory");
}
// clang-format on

/* One step. The conditional swap of (x2, z2) with (x3, z3) only matters
 * for the point doubled: the sum's x3 = (DA + CB)^2 and z3 = x1 (DA - CB)^2
 * are the same either way (swapping swaps DA and CB). So a, b, c, d and
 * the sum come from the unswapped state, and only the doubling's inputs
 * are selected under the mask: 8 words instead of a 16-word swap.
 * Independent operations sit side by side, critical path first, so that
 * the CPU overlaps their carry chains. */
static ALWAYS_INLINE void ladder_step(struct ladder *s, const fe x1, uint64_t swap)
{
	sums_select(s, swap);
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
