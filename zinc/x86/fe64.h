/* Internal: GF(2^255 - 19) with four 64-bit limbs for CPUs with BMI2 and
 * ADX, shared by the ladder (curve25519_adx.c) and the fixed-base comb
 * (curve25519_base.c). MULX multiplies without touching flags, so ADCX
 * (carry flag) and ADOX (overflow flag) can run two independent carry
 * chains through one row of the schoolbook product. Field elements are kept
 * below 2^256 and are only fully reduced at the end; 2^256 = 38 (mod p)
 * folds the high half back. Constant time: no branch or index depends on
 * secret data. */
#ifndef ZINC_X86_FE64_H
#define ZINC_X86_FE64_H

#include <stdint.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../fe_invert.h"

typedef uint64_t fe[4];
typedef unsigned __int128 u128;

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* The inline assembly below is laid out one instruction per line. Field
 * elements are named by an offset and a base register: word i of (O, B)
 * is O+8i(B), so one macro serves a pointer per element (fe_mul) and a
 * whole ladder state behind one pointer (curve25519_adx.c). */
// clang-format off
#define W(O, B, i) O "+" #i "(" B ")"
#define LOAD4(AO, AB, r0, r1, r2, r3)                                                              \
	"movq " W(AO, AB, 0) ", " r0 "\n\t"                                                        \
	"movq " W(AO, AB, 8) ", " r1 "\n\t"                                                        \
	"movq " W(AO, AB, 16) ", " r2 "\n\t"                                                       \
	"movq " W(AO, AB, 24) ", " r3 "\n\t"
#define STORE4(RO, RB, r0, r1, r2, r3)                                                             \
	"movq " r0 ", " W(RO, RB, 0) "\n\t"                                                        \
	"movq " r1 ", " W(RO, RB, 8) "\n\t"                                                        \
	"movq " r2 ", " W(RO, RB, 16) "\n\t"                                                       \
	"movq " r3 ", " W(RO, RB, 24) "\n\t"

/* One row i >= 1 of the product: t[i..i+3] sit in w0..w3 and w4 becomes
 * t[i+4]; low halves ride the CF chain (ADCX), high halves the OF chain
 * (ADOX). xor clears both flags; ZSET (mov $0) puts 0 in register Z
 * without touching them, or is empty where Z holds 0 all along. */
#define ROW(ai, BO, BB, w0, w1, w2, w3, w4, ZSET, Z)                                               \
	"movq " ai ", %%rdx\n\t"                                                                   \
	"xorl %%eax, %%eax\n\t"                                                                    \
	"mulxq " W(BO, BB, 0) ", %%rax, %%rcx\n\t"                                                 \
	"adcxq %%rax, " w0 "\n\t"                                                                  \
	"adoxq %%rcx, " w1 "\n\t"                                                                  \
	"mulxq " W(BO, BB, 8) ", %%rax, %%rcx\n\t"                                                 \
	"adcxq %%rax, " w1 "\n\t"                                                                  \
	"adoxq %%rcx, " w2 "\n\t"                                                                  \
	"mulxq " W(BO, BB, 16) ", %%rax, %%rcx\n\t"                                                \
	"adcxq %%rax, " w2 "\n\t"                                                                  \
	"adoxq %%rcx, " w3 "\n\t"                                                                  \
	"mulxq " W(BO, BB, 24) ", %%rax, " w4 "\n\t"                                               \
	"adcxq %%rax, " w3 "\n\t"                                                                  \
	ZSET                                                                                       \
	"adoxq " Z ", " w4 "\n\t"                                                                  \
	"adcxq " Z ", " w4 "\n\t"

/* The 512-bit product (AO, AB) * (BO, BB) into r8..r15. */
#define MUL512(AO, AB, BO, BB, ZSET, Z)                                                            \
	"movq " W(AO, AB, 0) ", %%rdx\n\t"                                                         \
	"mulxq " W(BO, BB, 0) ", %%r8, %%r9\n\t"                                                   \
	"mulxq " W(BO, BB, 8) ", %%rax, %%r10\n\t"                                                 \
	"addq %%rax, %%r9\n\t"                                                                     \
	"mulxq " W(BO, BB, 16) ", %%rax, %%r11\n\t"                                                \
	"adcq %%rax, %%r10\n\t"                                                                    \
	"mulxq " W(BO, BB, 24) ", %%rax, %%r12\n\t"                                                \
	"adcq %%rax, %%r11\n\t"                                                                    \
	"adcq $0, %%r12\n\t"                                                                       \
	ROW(W(AO, AB, 8), BO, BB, "%%r9", "%%r10", "%%r11", "%%r12", "%%r13", ZSET, Z)             \
	ROW(W(AO, AB, 16), BO, BB, "%%r10", "%%r11", "%%r12", "%%r13", "%%r14", ZSET, Z)           \
	ROW(W(AO, AB, 24), BO, BB, "%%r11", "%%r12", "%%r13", "%%r14", "%%r15", ZSET, Z)

/* The 512-bit square of a0..a3 (memory or registers; a0 may be r8) into
 * r8..r14 and T7: six cross products, doubled (CF chain, T7 takes the bit
 * shifted out) while the four squares a_i^2 at 2^(128 i) are added (OF
 * chain). TMP is a scratch register; SQR512_MEM squares (AO, AB). */
#define SQR512(A0, A1, A2, A3, T7, TMP)                                                            \
	"movq " A0 ", %%rdx\n\t"                                                                   \
	"mulxq " A1 ", %%r9, %%r10\n\t"                                                            \
	"mulxq " A2 ", %%rax, %%r11\n\t"                                                           \
	"addq %%rax, %%r10\n\t"                                                                    \
	"mulxq " A3 ", %%rax, %%r12\n\t"                                                           \
	"adcq %%rax, %%r11\n\t"                                                                    \
	"adcq $0, %%r12\n\t"                                                                       \
	"xorq " T7 ", " T7 "\n\t"                                                                  \
	"movq " A1 ", %%rdx\n\t"                                                                   \
	"mulxq " A2 ", %%rax, " TMP "\n\t"                                                         \
	"adcxq %%rax, %%r11\n\t"                                                                   \
	"adoxq " TMP ", %%r12\n\t"                                                                 \
	"mulxq " A3 ", %%rax, %%r13\n\t"                                                           \
	"adcxq %%rax, %%r12\n\t"                                                                   \
	"adoxq " T7 ", %%r13\n\t"                                                                  \
	"movq " A2 ", %%rdx\n\t"                                                                   \
	"mulxq " A3 ", %%rax, %%r14\n\t"                                                           \
	"adcxq %%rax, %%r13\n\t"                                                                   \
	"adcxq " T7 ", %%r14\n\t"                                                                  \
	"movq " A0 ", %%rdx\n\t"                                                                   \
	"mulxq %%rdx, %%r8, %%rax\n\t"                                                             \
	"adcxq %%r9, %%r9\n\t"                                                                     \
	"adoxq %%rax, %%r9\n\t"                                                                    \
	"movq " A1 ", %%rdx\n\t"                                                                   \
	"mulxq %%rdx, %%rax, %%rdx\n\t"                                                            \
	"adcxq %%r10, %%r10\n\t"                                                                   \
	"adoxq %%rax, %%r10\n\t"                                                                   \
	"adcxq %%r11, %%r11\n\t"                                                                   \
	"adoxq %%rdx, %%r11\n\t"                                                                   \
	"movq " A2 ", %%rdx\n\t"                                                                   \
	"mulxq %%rdx, %%rax, %%rdx\n\t"                                                            \
	"adcxq %%r12, %%r12\n\t"                                                                   \
	"adoxq %%rax, %%r12\n\t"                                                                   \
	"adcxq %%r13, %%r13\n\t"                                                                   \
	"adoxq %%rdx, %%r13\n\t"                                                                   \
	"movq " A3 ", %%rdx\n\t"                                                                   \
	"mulxq %%rdx, %%rax, %%rdx\n\t"                                                            \
	"adcxq %%r14, %%r14\n\t"                                                                   \
	"adoxq %%rax, %%r14\n\t"                                                                   \
	"adcxq " T7 ", " T7 "\n\t"                                                                 \
	"adoxq %%rdx, " T7 "\n\t"
#define SQR512_MEM(AO, AB)                                                                         \
	SQR512(W(AO, AB, 0), W(AO, AB, 8), W(AO, AB, 16), W(AO, AB, 24), "%%r15", "%%rcx")

/* r8..r14, T7 reduced into r8..r11 (REDUCE_STORE: r8..r15, and stored at
 * (RO, RB)): 38 * (r12, r13, r14, T7) into r8..r11 (TMP a scratch)
 * (2^256 = 38), then the word above and bit 255 times 19 (2^255 = 19)
 * in one carry chain that cannot carry out: the result is below
 * 2^255 + 2^11. K38 puts 38 in rdx; ZSET and Z as in ROW. */
#define REDUCE(K38, ZSET, Z, T7, TMP)                                                              \
	K38                                                                                        \
	"xorl %%eax, %%eax\n\t"                                                                    \
	"mulxq %%r12, %%rax, " TMP "\n\t"                                                          \
	"adcxq %%rax, %%r8\n\t"                                                                    \
	"adoxq " TMP ", %%r9\n\t"                                                                  \
	"mulxq %%r13, %%rax, " TMP "\n\t"                                                          \
	"adcxq %%rax, %%r9\n\t"                                                                    \
	"adoxq " TMP ", %%r10\n\t"                                                                 \
	"mulxq %%r14, %%rax, " TMP "\n\t"                                                          \
	"adcxq %%rax, %%r10\n\t"                                                                   \
	"adoxq " TMP ", %%r11\n\t"                                                                 \
	"mulxq " T7 ", %%rax, %%r12\n\t"                                                           \
	"adcxq %%rax, %%r11\n\t"                                                                   \
	ZSET                                                                                       \
	"adoxq " Z ", %%r12\n\t"                                                                   \
	"adcxq " Z ", %%r12\n\t"                                                                   \
	"addq %%r11, %%r11\n\t"                                                                    \
	"adcq %%r12, %%r12\n\t"                                                                    \
	"shrq $1, %%r11\n\t"                                                                       \
	"imulq $19, %%r12, %%r12\n\t"                                                              \
	"addq %%r12, %%r8\n\t"                                                                     \
	"adcq $0, %%r9\n\t"                                                                        \
	"adcq $0, %%r10\n\t"                                                                       \
	"adcq $0, %%r11\n\t"
#define REDUCE_STORE(RO, RB, K38, ZSET, Z)                                                         \
	REDUCE(K38, ZSET, Z, "%%r15", "%%rcx") STORE4(RO, RB, "%%r8", "%%r9", "%%r10", "%%r11")

/* Without spare registers: 38 and 0 from immediates. */
#define K38_IMM "movl $38, %%edx\n\t"
#define ZSET_RAX "movl $0, %%eax\n\t"
#define ZSET_R13 "movl $0, %%r13d\n\t"

/* r = a * b mod 2^255 - 19. r may alias a or b: r is written last. */
static ALWAYS_INLINE void fe_mul(fe r, const fe a, const fe b)
{
	__asm__ __volatile__(
		MUL512("0", "%[a]", "0", "%[b]", ZSET_RAX, "%%rax")
		REDUCE_STORE("0", "%[r]", K38_IMM, ZSET_R13, "%%r13")
		:
		: [r] "r"(r), [a] "r"(a), [b] "r"(b)
		: "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",
		  "memory");
}

/* r = a^2. */
static ALWAYS_INLINE void fe_sq(fe r, const fe a)
{
	__asm__ __volatile__(
		SQR512_MEM("0", "%[a]")
		REDUCE_STORE("0", "%[r]", K38_IMM, ZSET_R13, "%%r13")
		:
		: [r] "r"(r), [a] "r"(a)
		: "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",
		  "memory");
}

/* The carry (borrow) out of r0..r3 is worth 38 (2^256 = 38): added
 * (subtracted) back, then once more, since that can carry again
 * (FOLD4). FOLD_ONCE stops after the first: enough when both inputs are
 * below 2^255 + 2^11, as REDUCE leaves them: a sum that carried is then
 * below 2^12, and a difference that borrowed at least 2^255 - 2^11. */
#define FOLD_ONCE(op, opc, r0, r1, r2, r3)                                                         \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	op " %%rax, " r0 "\n\t"                                                                    \
	opc " $0, " r1 "\n\t"                                                                      \
	opc " $0, " r2 "\n\t"                                                                      \
	opc " $0, " r3 "\n\t"
#define FOLD4(op, opc, r0, r1, r2, r3)                                                             \
	FOLD_ONCE(op, opc, r0, r1, r2, r3)                                                         \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	op " %%rax, " r0 "\n\t"

/* r8..r11 (op)= b, word by word through the carry: add/adc or sub/sbb. */
#define ADDSUB4(op, opc, BO, BB)                                                                   \
	op " " W(BO, BB, 0) ", %%r8\n\t"                                                           \
	opc " " W(BO, BB, 8) ", %%r9\n\t"                                                          \
	opc " " W(BO, BB, 16) ", %%r10\n\t"                                                        \
	opc " " W(BO, BB, 24) ", %%r11\n\t"

/* r = a + b, folded below 2^256 by F (FOLD4 or FOLD_ONCE); r = a - b the
 * same way. */
#define ADD(AO, AB, BO, BB, RO, RB, F)                                                             \
	LOAD4(AO, AB, "%%r8", "%%r9", "%%r10", "%%r11")                                            \
	ADDSUB4("addq", "adcq", BO, BB)                                                            \
	F("addq", "adcq", "%%r8", "%%r9", "%%r10", "%%r11")                                        \
	STORE4(RO, RB, "%%r8", "%%r9", "%%r10", "%%r11")
#define SUB(AO, AB, BO, BB, RO, RB, F)                                                             \
	LOAD4(AO, AB, "%%r8", "%%r9", "%%r10", "%%r11")                                            \
	ADDSUB4("subq", "sbbq", BO, BB)                                                            \
	F("subq", "sbbq", "%%r8", "%%r9", "%%r10", "%%r11")                                        \
	STORE4(RO, RB, "%%r8", "%%r9", "%%r10", "%%r11")

/* s = a + b, d = a - b from one load of a and b (the ladder needs both),
 * stored last (s and d may alias a or b); s is left in r12..r15, d in
 * r8..r11. */
#define ADDSUB(AO, AB, BO, BB, SO, SB, DO, DB, F)                                                  \
	LOAD4(AO, AB, "%%r8", "%%r9", "%%r10", "%%r11")                                            \
	"movq %%r8, %%r12\n\t"                                                                     \
	"movq %%r9, %%r13\n\t"                                                                     \
	"movq %%r10, %%r14\n\t"                                                                    \
	"movq %%r11, %%r15\n\t"                                                                    \
	ADDSUB4("subq", "sbbq", BO, BB)                                                            \
	F("subq", "sbbq", "%%r8", "%%r9", "%%r10", "%%r11")                                        \
	"addq " W(BO, BB, 0) ", %%r12\n\t"                                                         \
	"adcq " W(BO, BB, 8) ", %%r13\n\t"                                                         \
	"adcq " W(BO, BB, 16) ", %%r14\n\t"                                                        \
	"adcq " W(BO, BB, 24) ", %%r15\n\t"                                                        \
	F("addq", "adcq", "%%r12", "%%r13", "%%r14", "%%r15")                                      \
	STORE4(DO, DB, "%%r8", "%%r9", "%%r10", "%%r11")                                           \
	STORE4(SO, SB, "%%r12", "%%r13", "%%r14", "%%r15")

/* r = a * 121665 + b (121665 is the curve's (A - 2) / 4; the ladder adds
 * AA at once). */
#define MUL_A24_ADD(AO, AB, BO, BB, RO, RB)                                                        \
	"movl $121665, %%edx\n\t"                                                                  \
	"mulxq " W(AO, AB, 0) ", %%r8, %%rax\n\t"                                                  \
	"mulxq " W(AO, AB, 8) ", %%r9, %%rcx\n\t"                                                  \
	"addq %%rax, %%r9\n\t"                                                                     \
	"mulxq " W(AO, AB, 16) ", %%r10, %%rax\n\t"                                                \
	"adcq %%rcx, %%r10\n\t"                                                                    \
	"mulxq " W(AO, AB, 24) ", %%r11, %%rcx\n\t"                                                \
	"adcq %%rax, %%r11\n\t"                                                                    \
	"adcq $0, %%rcx\n\t"                                                                       \
	ADDSUB4("addq", "adcq", BO, BB)                                                            \
	"adcq $0, %%rcx\n\t"                                                                       \
	"imulq $38, %%rcx, %%rcx\n\t"                                                              \
	"addq %%rcx, %%r8\n\t"                                                                     \
	"adcq $0, %%r9\n\t"                                                                        \
	"adcq $0, %%r10\n\t"                                                                       \
	"adcq $0, %%r11\n\t"                                                                       \
	"sbbq %%rax, %%rax\n\t"                                                                    \
	"andq $38, %%rax\n\t"                                                                      \
	"addq %%rax, %%r8\n\t"                                                                     \
	STORE4(RO, RB, "%%r8", "%%r9", "%%r10", "%%r11")

static ALWAYS_INLINE void fe_add(fe r, const fe a, const fe b)
{
	__asm__ __volatile__(ADD("0", "%[a]", "0", "%[b]", "0", "%[r]", FOLD4)
			     :
			     : [r] "r"(r), [a] "r"(a), [b] "r"(b)
			     : "rax", "r8", "r9", "r10", "r11", "cc", "memory");
}

static ALWAYS_INLINE void fe_addsub(fe s, fe d, const fe a, const fe b)
{
	__asm__ __volatile__(ADDSUB("0", "%[a]", "0", "%[b]", "0", "%[s]", "0", "%[d]", FOLD4)
			     :
			     : [s] "r"(s), [d] "r"(d), [a] "r"(a), [b] "r"(b)
			     : "rax", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",
			       "memory");
}

static ALWAYS_INLINE void fe_sub(fe r, const fe a, const fe b)
{
	__asm__ __volatile__(SUB("0", "%[a]", "0", "%[b]", "0", "%[r]", FOLD4)
			     :
			     : [r] "r"(r), [a] "r"(a), [b] "r"(b)
			     : "rax", "r8", "r9", "r10", "r11", "cc", "memory");
}

// clang-format on

// clang-format off
/* w = a^(2^n), n >= 1, in w's first four words: the inversion's squarings
 * one after another, each waiting for the last, so the element stays in
 * registers (a0..a3 in r8, rbx, rsi, rdi; the square's top word in rcx)
 * and no square waits for a store and a reload. Thirteen registers and
 * one pointer, to the element and, in w[4], the count (a count of its own
 * would need a register, or a stack slot that ASan may address through
 * one): frame-pointer builds have fourteen. */
static ALWAYS_INLINE void fe_sq_n(uint64_t w[5], const fe a, int n)
{
	if (w != a)
		memcpy(w, a, sizeof(fe));
	w[4] = (uint64_t)n;
	__asm__ __volatile__(
		LOAD4("0", "%[w]", "%%r8", "%%rbx", "%%rsi", "%%rdi")
		"1:\n\t"
		SQR512("%%r8", "%%rbx", "%%rsi", "%%rdi", "%%rcx", "%%r13")
		REDUCE(K38_IMM, ZSET_R13, "%%r13", "%%rcx", "%%rbx")
		"movq %%r9, %%rbx\n\t"
		"movq %%r10, %%rsi\n\t"
		"movq %%r11, %%rdi\n\t"
		"decq 32(%[w])\n\t"
		"jnz 1b\n\t"
		STORE4("0", "%[w]", "%%r8", "%%rbx", "%%rsi", "%%rdi")
		:
		: [w] "r"(w)
		: "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
		  "r14", "cc", "memory");
}
// clang-format on

/* out = 1 / z; each temporary has a fifth word for fe_sq_n's count. */
static inline void fe_invert(fe out, const fe z)
{
	uint64_t t[4][5];

	FE_INVERT_CHAIN(fe_sq_n, fe_mul, out, z, t[0], t[1], t[2], t[3]);
	zinc_memzero(t, sizeof(t));
}

/* Swaps f and g when swap is 1, with masks, in 64-bit registers: the
 * field code stores limbs as 64-bit words, and a compiler-vectorised swap
 * would reload them as 128-bit words, which stalls store forwarding. */
static ALWAYS_INLINE void fe_cswap(fe f, fe g, uint64_t swap)
{
	const uint64_t mask = 0 - swap;

	__asm__ __volatile__(
#define CSWAP_WORD(o)                                                                              \
	"movq " o "(%[f]), %%rax\n\t"                                                              \
	"movq " o "(%[g]), %%rcx\n\t"                                                              \
	"movq %%rax, %%rdx\n\t"                                                                    \
	"xorq %%rcx, %%rdx\n\t"                                                                    \
	"andq %[m], %%rdx\n\t"                                                                     \
	"xorq %%rdx, %%rax\n\t"                                                                    \
	"xorq %%rdx, %%rcx\n\t"                                                                    \
	"movq %%rax, " o "(%[f])\n\t"                                                              \
	"movq %%rcx, " o "(%[g])\n\t"
	    CSWAP_WORD("0") CSWAP_WORD("8") CSWAP_WORD("16") CSWAP_WORD("24")
#undef CSWAP_WORD
	    :
	    : [f] "r"(f), [g] "r"(g), [m] "r"(mask)
	    : "rax", "rcx", "rdx", "memory");
}

/* Canonical little-endian bytes: subtract p once or twice, without branches. */
static inline void fe_tobytes(uint8_t out[32], const fe a)
{
	uint64_t v[4], w[4], top, mask;
	u128 c;

	/* Fold bit 255: v < 2^255 + 19 * 2. */
	top = a[3] >> 63;
	c = (u128)a[0] + top * 19;
	v[0] = (uint64_t)c;
	c = (u128)a[1] + (uint64_t)(c >> 64);
	v[1] = (uint64_t)c;
	c = (u128)a[2] + (uint64_t)(c >> 64);
	v[2] = (uint64_t)c;
	v[3] = (a[3] & 0x7fffffffffffffffULL) + (uint64_t)(c >> 64);
	for (int round = 0; round < 2; round++) {
		/* w = v + 19; when it reaches 2^255, v >= p and w - 2^255 = v - p. */
		c = (u128)v[0] + 19;
		w[0] = (uint64_t)c;
		c = (u128)v[1] + (uint64_t)(c >> 64);
		w[1] = (uint64_t)c;
		c = (u128)v[2] + (uint64_t)(c >> 64);
		w[2] = (uint64_t)c;
		w[3] = v[3] + (uint64_t)(c >> 64);
		mask = 0 - (w[3] >> 63);
		w[3] &= 0x7fffffffffffffffULL;
		for (int i = 0; i < 4; i++)
			v[i] = (v[i] & ~mask) | (w[i] & mask);
	}
	memcpy(out, v, 32);
	zinc_memzero(v, sizeof(v));
	zinc_memzero(w, sizeof(w));
}

#endif
