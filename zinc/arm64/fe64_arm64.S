// SPDX-License-Identifier: MIT
/* GF(2^255 - 19) in four 64-bit limbs for zinc/arm64/curve25519_arm64.c:
 * values are kept below 2^256 (not fully reduced) and 2^256 = 38 (mod p)
 * folds the high half back. mul/umulh and add/sub with carry chains, no
 * branch and no load or store address that depends on a value.
 *   zinc_fe64_mul(r, a, b)   r = a * b
 *   zinc_fe64_add(r, a, b)   r = a + b
 *   zinc_fe64_sub(r, a, b)   r = a - b
 *   zinc_fe64_mul_small(r, a, k)   r = a * k, k below 2^32 */
#if defined(__aarch64__)
#define A0 x3
#define A1 x4
#define A2 x5
#define A3 x6
#define B0 x7
#define B1 x8
#define B2 x9
#define B3 x10
#define T0 x11
#define T1 x12
#define T2 x13
#define T3 x14
#define T4 x15
#define T5 x16
#define T6 x17
#define T7 x19
#define L0 x20
#define L1 x21
#define L2 x22
#define L3 x23
#define C38 x24

	.text

/* t[i..i+4] += ai * b, t[i+4] new */
.macro ROW ai, ti, ti1, ti2, ti3, ti4
	mul	L0, \ai, B0
	mul	L1, \ai, B1
	mul	L2, \ai, B2
	mul	L3, \ai, B3
	adds	\ti, \ti, L0
	adcs	\ti1, \ti1, L1
	adcs	\ti2, \ti2, L2
	adcs	\ti3, \ti3, L3
	cset	\ti4, cs
	umulh	L0, \ai, B0
	umulh	L1, \ai, B1
	umulh	L2, \ai, B2
	umulh	L3, \ai, B3
	adds	\ti1, \ti1, L0
	adcs	\ti2, \ti2, L1
	adcs	\ti3, \ti3, L2
	adc	\ti4, \ti4, L3
.endm

/* T0..T3 += 2^256 * T4 (T4 small) folded as 38 * T4, twice at most; c38
 * holds 38 (a parameter: the preprocessor fills the body in once) */
.macro FOLD_TOP c38
	mul	T4, T4, \c38
	adds	T0, T0, T4
	adcs	T1, T1, xzr
	adcs	T2, T2, xzr
	adcs	T3, T3, xzr
	csel	T4, \c38, xzr, cs
	add	T0, T0, T4
	stp	T0, T1, [x0]
	stp	T2, T3, [x0, #16]
.endm

	.globl	zinc_fe64_mul
	.hidden	zinc_fe64_mul
	.type	zinc_fe64_mul, %function
zinc_fe64_mul:
	stp	x19, x20, [sp, #-48]!
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	ldp	A0, A1, [x1]
	ldp	A2, A3, [x1, #16]
	ldp	B0, B1, [x2]
	ldp	B2, B3, [x2, #16]
	mul	T0, A0, B0
	mul	T1, A0, B1
	mul	T2, A0, B2
	mul	T3, A0, B3
	umulh	L0, A0, B0
	umulh	L1, A0, B1
	umulh	L2, A0, B2
	umulh	T4, A0, B3
	adds	T1, T1, L0
	adcs	T2, T2, L1
	adcs	T3, T3, L2
	adc	T4, T4, xzr
	ROW	A1, T1, T2, T3, T4, T5
	ROW	A2, T2, T3, T4, T5, T6
	ROW	A3, T3, T4, T5, T6, T7
	/* t0..t3 + 38 * t4..t7 */
	mov	C38, #38
	umulh	A0, T4, C38
	umulh	A1, T5, C38
	umulh	A2, T6, C38
	umulh	A3, T7, C38
	mul	L0, T4, C38
	mul	L1, T5, C38
	mul	L2, T6, C38
	mul	L3, T7, C38
	adds	T0, T0, L0
	adcs	T1, T1, L1
	adcs	T2, T2, L2
	adcs	T3, T3, L3
	cset	T4, cs
	adds	T1, T1, A0
	adcs	T2, T2, A1
	adcs	T3, T3, A2
	adc	T4, T4, A3
	FOLD_TOP C38
	ldp	x23, x24, [sp, #32]
	ldp	x21, x22, [sp, #16]
	ldp	x19, x20, [sp], #48
	ret
	.size	zinc_fe64_mul, . - zinc_fe64_mul

/* x2 holds k; the callee-saved registers are not touched here */
#undef C38
#define C38 x9
	.globl	zinc_fe64_mul_small
	.hidden	zinc_fe64_mul_small
	.type	zinc_fe64_mul_small, %function
zinc_fe64_mul_small:
	ldp	A0, A1, [x1]
	ldp	A2, A3, [x1, #16]
	mul	T0, A0, x2
	mul	T1, A1, x2
	mul	T2, A2, x2
	mul	T3, A3, x2
	umulh	A0, A0, x2
	umulh	A1, A1, x2
	umulh	A2, A2, x2
	umulh	T4, A3, x2
	adds	T1, T1, A0
	adcs	T2, T2, A1
	adcs	T3, T3, A2
	adc	T4, T4, xzr
	mov	C38, #38
	FOLD_TOP C38
	ret
	.size	zinc_fe64_mul_small, . - zinc_fe64_mul_small

	.globl	zinc_fe64_add
	.hidden	zinc_fe64_add
	.type	zinc_fe64_add, %function
zinc_fe64_add:
	ldp	A0, A1, [x1]
	ldp	A2, A3, [x1, #16]
	ldp	B0, B1, [x2]
	ldp	x11, x12, [x2, #16]
	adds	A0, A0, B0
	adcs	A1, A1, B1
	adcs	A2, A2, x11
	adcs	A3, A3, x12
	mov	C38, #38
	csel	x13, C38, xzr, cs
	adds	A0, A0, x13
	adcs	A1, A1, xzr
	adcs	A2, A2, xzr
	adcs	A3, A3, xzr
	csel	x13, C38, xzr, cs
	add	A0, A0, x13
	stp	A0, A1, [x0]
	stp	A2, A3, [x0, #16]
	ret
	.size	zinc_fe64_add, . - zinc_fe64_add

/* a - b + 2^256 on a borrow, which is 38 too much: take 38 off (twice at
 * most) */
	.globl	zinc_fe64_sub
	.hidden	zinc_fe64_sub
	.type	zinc_fe64_sub, %function
zinc_fe64_sub:
	ldp	A0, A1, [x1]
	ldp	A2, A3, [x1, #16]
	ldp	B0, B1, [x2]
	ldp	x11, x12, [x2, #16]
	subs	A0, A0, B0
	sbcs	A1, A1, B1
	sbcs	A2, A2, x11
	sbcs	A3, A3, x12
	mov	C38, #38
	csel	x13, C38, xzr, cc
	subs	A0, A0, x13
	sbcs	A1, A1, xzr
	sbcs	A2, A2, xzr
	sbcs	A3, A3, xzr
	csel	x13, C38, xzr, cc
	sub	A0, A0, x13
	stp	A0, A1, [x0]
	stp	A2, A3, [x0, #16]
	ret
	.size	zinc_fe64_sub, . - zinc_fe64_sub
#endif
	.section .note.GNU-stack, "", %progbits
