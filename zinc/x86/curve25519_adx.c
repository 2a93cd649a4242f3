// SPDX-License-Identifier: MIT
/* X25519 with four 64-bit limbs for CPUs with BMI2 and ADX: a Montgomery
 * ladder on the field of fe64.h. Constant time: the ladder's only
 * secret-dependent operation is a masked conditional swap. */
#if defined(__x86_64__)
#include <stddef.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"
#include "fe64.h"

/* The ladder's state, a step's temporaries, x1 and the step's mask (all
 * wiped once, at the end), behind one pointer: the assembly names them by
 * offset. */
struct ladder {
	fe x2, z2, x3, z3;
	fe a, b, c, d, sa, sb, aa, bb, da, cb, e;
	fe x1;
	uint64_t nm;
};

#define L_X2 "0"
#define L_Z2 "32"
#define L_X3 "64"
#define L_Z3 "96"
#define L_A "128"
#define L_B "160"
#define L_C "192"
#define L_D "224"
#define L_SA "256"
#define L_SB "288"
#define L_AA "320"
#define L_BB "352"
#define L_DA "384"
#define L_E "448"
#define L_X1 "480"
#define L_NM "512"
_Static_assert(offsetof(struct ladder, x1) == 480 && offsetof(struct ladder, nm) == 512,
	       "the step's offsets");

// clang-format off
/* Word o of the selection: reg (the second choice, in a register) kept
 * where the inverted mask nm is 0, the word at F where it is all ones. */
#define SELECT(F, R, o, reg)                                                                       \
	"movq " F "+" o "(%[s]), %%rax\n\t"                                                        \
	"xorq " reg ", %%rax\n\t"                                                                  \
	"andq " L_NM "(%[s]), %%rax\n\t"                                                           \
	"xorq %%rax, " reg "\n\t"                                                                  \
	"movq " reg ", " R "+" o "(%[s])\n\t"
#define SELECT4(F, R, r0, r1, r2, r3)                                                              \
	SELECT(F, R, "0", r0) SELECT(F, R, "8", r1) SELECT(F, R, "16", r2) SELECT(F, R, "24", r3)

/* Inside the step rbx holds 0 and rsi 38 throughout. */
#define S "%[s]"
#define MUL(A, B, R)                                                                               \
	MUL512(A, S, B, S, "", "%%rbx")                                                            \
	REDUCE_STORE(R, S, "movq %%rsi, %%rdx\n\t", "", "%%rbx")
#define SQR(A, R)                                                                                  \
	SQR512_MEM(A, S) REDUCE_STORE(R, S, "movq %%rsi, %%rdx\n\t", "", "%%rbx")

/* CB = c * b, kept in r8..r11, then x3 = DA + CB and z3 = CB - DA: z3 is
 * squared next, so its sign does not matter, and CB is never stored. */
#define CB_SUMS                                                                                    \
	MUL512(L_C, S, L_B, S, "", "%%rbx")                                                        \
	REDUCE("movq %%rsi, %%rdx\n\t", "", "%%rbx", "%%r15", "%%rcx")                             \
	LOAD4(L_DA, S, "%%r12", "%%r13", "%%r14", "%%r15")                                         \
	"addq %%r8, %%r12\n\t"                                                                     \
	"adcq %%r9, %%r13\n\t"                                                                     \
	"adcq %%r10, %%r14\n\t"                                                                    \
	"adcq %%r11, %%r15\n\t"                                                                    \
	FOLD_ONCE("addq", "adcq", "%%r12", "%%r13", "%%r14", "%%r15")                              \
	STORE4(L_X3, S, "%%r12", "%%r13", "%%r14", "%%r15")                                        \
	ADDSUB4("subq", "sbbq", L_DA, S)                                                           \
	FOLD_ONCE("subq", "sbbq", "%%r8", "%%r9", "%%r10", "%%r11")                                \
	STORE4(L_Z3, S, "%%r8", "%%r9", "%%r10", "%%r11")

/* One step, in one asm block behind one pointer, so that 0 and 38 stay in
 * registers and no pointer is reloaded. The conditional swap of (x2, z2)
 * with (x3, z3) only matters for the point doubled: the sum's
 * x3 = (DA + CB)^2 and z3 = x1 (DA - CB)^2 are the same either way
 * (swapping swaps DA and CB). So a, b, c, d and the sum come from the
 * unswapped state, and only the doubling's inputs are selected under the
 * mask (sa = swap ? c : a, sb = swap ? d : b, from c and d still in
 * registers): 8 words instead of a 16-word swap. Independent operations
 * sit side by side, critical path first, so that the CPU overlaps their
 * carry chains. The block starts on a 64-byte boundary, whatever the
 * function's place in the program (otherwise +-1% from one binary to the
 * next). */
static ALWAYS_INLINE void ladder_step(struct ladder *s)
{
	__asm__ __volatile__(
		".p2align 6\n\t"
		"xorl %%ebx, %%ebx\n\t"
		"movl $38, %%esi\n\t"
		ADDSUB(L_X2, S, L_Z2, S, L_A, S, L_B, S, FOLD_ONCE)
		ADDSUB(L_X3, S, L_Z3, S, L_C, S, L_D, S, FOLD_ONCE)
		SELECT4(L_A, L_SA, "%%r12", "%%r13", "%%r14", "%%r15")
		SELECT4(L_B, L_SB, "%%r8", "%%r9", "%%r10", "%%r11")
		MUL(L_D, L_A, L_DA)
		CB_SUMS
		SQR(L_SA, L_AA)
		SQR(L_SB, L_BB)
		SUB(L_AA, S, L_BB, S, L_E, S, FOLD_ONCE)
		SQR(L_X3, L_X3)
		SQR(L_Z3, L_Z3)
		MUL_A24_ADD(L_E, S, L_AA, S, L_Z2, S)
		MUL(L_AA, L_BB, L_X2)
		MUL(L_Z3, L_X1, L_Z3)
		MUL(L_Z2, L_E, L_Z2)
		:
		: [s] "r"(s)
		: "rax", "rbx", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
		  "r15", "cc", "memory");
}
// clang-format on

void zinc_x25519_bmi2_adx(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32])
{
	struct ladder s;
	uint64_t swap = 0;

	memset(&s, 0, sizeof(s));
	memcpy(s.x1, point, 32);
	s.x1[3] &= 0x7fffffffffffffffULL; /* RFC 7748: ignore the top bit of u */
	s.x2[0] = 1;
	memcpy(s.x3, s.x1, sizeof(fe));
	s.z3[0] = 1;

	for (int t = 254; t >= 0; t--) {
		const uint64_t k_t = (scalar[t >> 3] >> (t & 7)) & 1;

		s.nm = (swap ^ k_t) - 1;
		ladder_step(&s);
		swap = k_t;
	}
	fe_cswap(s.x2, s.x3, swap);
	fe_cswap(s.z2, s.z3, swap);

	fe_invert(s.z2, s.z2);
	fe_mul(s.x2, s.x2, s.z2);
	fe_tobytes(out, s.x2);

	zinc_memzero(&s, sizeof(s));
	zinc_memzero(&swap, sizeof(swap));
}
#endif
