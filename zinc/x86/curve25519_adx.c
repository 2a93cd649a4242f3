// SPDX-License-Identifier: MIT
/* X25519 with four 64-bit limbs for CPUs with BMI2 and ADX: a Montgomery
 * ladder on the field of fe64.h. Constant time: the ladder's only
 * secret-dependent operation is a masked conditional swap. */
#if defined(__x86_64__)
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"
#include "fe64.h"

/* The ladder's state and the sums and differences of a step, at fixed
 * offsets from one base register (the offsets the assembly names). */
struct ladder {
	fe x2, z2, x3, z3; /* 0, 32, 64, 96 */
	fe a, b, c, d;	   /* 128, 160, 192, 224 */
	fe aa, bb, da, cb, e;
};

// clang-format off
/* reg = word o of X, or of Y where the mask m is all ones. */
#define PICK(X, Y, o, reg)                                                                         \
	"movq " X "+" o "(%[s]), " reg "\n\t"                                                      \
	"movq " Y "+" o "(%[s]), %%rax\n\t"                                                        \
	"xorq " reg ", %%rax\n\t"                                                                  \
	"andq %[m], %%rax\n\t"                                                                     \
	"xorq %%rax, " reg "\n\t"
#define PICK4(X, Y, r0, r1, r2, r3)                                                                \
	PICK(X, Y, "0", r0) PICK(X, Y, "8", r1) PICK(X, Y, "16", r2) PICK(X, Y, "24", r3)

/* S = X' + Z' and D = X' - Z' where X', Z' are X, Z swapped with Y, W
 * under the mask: the conditional swap folded into the step's first
 * additions, so the swapped values are never stored (the step overwrites
 * them). The folds are fe_addsub's. D holds X' in between. */
#define SWAP_ADDSUB(X, Y, Z, W, S, D)                                                              \
	PICK4(X, Y, "%%r8", "%%r9", "%%r10", "%%r11")                                              \
	"movq %%r8, " D "+0(%[s])\n\t"                                                             \
	"movq %%r9, " D "+8(%[s])\n\t"                                                             \
	"movq %%r10, " D "+16(%[s])\n\t"                                                           \
	"movq %%r11, " D "+24(%[s])\n\t"                                                           \
	PICK4(Z, W, "%%r12", "%%r13", "%%r14", "%%r15")                                            \
	"addq %%r12, %%r8\n\t"                                                                     \
	"adcq %%r13, %%r9\n\t"                                                                     \
	"adcq %%r14, %%r10\n\t"                                                                    \
	"adcq %%r15, %%r11\n\t"                                                                    \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	"addq %%rax, %%r8\n\t"                                                                     \
	"adcq $0, %%r9\n\t"                                                                        \
	"adcq $0, %%r10\n\t"                                                                       \
	"adcq $0, %%r11\n\t"                                                                       \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	"addq %%rax, %%r8\n\t"                                                                     \
	"movq %%r8, " S "+0(%[s])\n\t"                                                             \
	"movq %%r9, " S "+8(%[s])\n\t"                                                             \
	"movq %%r10, " S "+16(%[s])\n\t"                                                           \
	"movq %%r11, " S "+24(%[s])\n\t"                                                           \
	"movq " D "+0(%[s]), %%r8\n\t"                                                             \
	"movq " D "+8(%[s]), %%r9\n\t"                                                             \
	"movq " D "+16(%[s]), %%r10\n\t"                                                           \
	"movq " D "+24(%[s]), %%r11\n\t"                                                           \
	"subq %%r12, %%r8\n\t"                                                                     \
	"sbbq %%r13, %%r9\n\t"                                                                     \
	"sbbq %%r14, %%r10\n\t"                                                                    \
	"sbbq %%r15, %%r11\n\t"                                                                    \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	"subq %%rax, %%r8\n\t"                                                                     \
	"sbbq $0, %%r9\n\t"                                                                        \
	"sbbq $0, %%r10\n\t"                                                                       \
	"sbbq $0, %%r11\n\t"                                                                       \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	"subq %%rax, %%r8\n\t"                                                                     \
	"movq %%r8, " D "+0(%[s])\n\t"                                                             \
	"movq %%r9, " D "+8(%[s])\n\t"                                                             \
	"movq %%r10, " D "+16(%[s])\n\t"                                                           \
	"movq %%r11, " D "+24(%[s])\n\t"

/* a, b = x2' +- z2' and c, d = x3' +- z3', with (x2, z2) and (x3, z3)
 * swapped where swap is 1. */
static ALWAYS_INLINE void swap_addsub(struct ladder *s, uint64_t swap)
{
	const uint64_t mask = 0 - swap;

	__asm__ __volatile__(
		SWAP_ADDSUB("0", "64", "32", "96", "128", "160")
		SWAP_ADDSUB("64", "0", "96", "32", "192", "224")
		:
		: [s] "r"(s), [m] "r"(mask)
		: "rax", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc", "memory");
}
// clang-format on

/* The rest of a step once a, b, c, d are there; independent operations
 * side by side, so that the CPU overlaps their carry chains. */
static ALWAYS_INLINE void ladder_step_rest(struct ladder *s, const fe x1)
{
	fe_mul(s->da, s->d, s->a);
	fe_mul(s->cb, s->c, s->b);
	fe_sq(s->aa, s->a);
	fe_sq(s->bb, s->b);
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

		swap_addsub(&s, swap ^ k_t);
		swap = k_t;
		ladder_step_rest(&s, x1);
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
