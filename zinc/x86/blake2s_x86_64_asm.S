// SPDX-License-Identifier: MIT
/*
 * BLAKE2s compression for x86-64 in integer registers (baseline x86-64, no
 * BMI2 or vector instructions): the entries zinc_blake2s_compress_x86_64
 * (streaming) and zinc_blake2s_compress_final_x86_64 (one-shot: whole
 * blocks and the final block in one call) that zinc/cpu.c dispatches
 * (prototypes in zinc/cpu.h). See doc/zinc-x86.md.
 *
 * One block is a single dependency chain: each G layer is 12 one-cycle
 * operations long (a += b, d ^= a, d >>>= 16, c += d, b ^= c, b >>>= 12,
 * twice), 20 layers, so at best 240 core cycles per block. What this code
 * does to get close to that:
 *  - a += m is issued right before a += b, off the chain (m is ready at once);
 *  - the 16 state words and the block pointer do not fit in the 15 usable
 *    registers, so two c words (v10, v11) live at fixed rsp offsets.
 *    Zen 2..5 rename rsp-relative memory operands, so the add to and xor
 *    from those slots cost no more latency than registers (measured on
 *    Zen 5: a store and reload adds 0 cycles to a chain);
 *  - the four G chains of a layer are issued one step apart. A chain does a
 *    rotate every third step and Zen 5 executes only three rotates per
 *    cycle, so four chains in lock step would keep losing a cycle to the
 *    fourth rotate; skewed, at most two rotate in the same cycle;
 *  - the new h stays in v0..v7 for the next block (no reload of h).
 * Constant time: the only branches are on nblocks and on whether a final
 * block was passed (public); every address is public.
 *
 * Under MemorySanitizer (or with -DZINC_BLAKE2S_NO_ASM) this file is empty
 * and blake2s_x86_64.c provides the entry in C, since MSan cannot see what
 * assembly writes.
 */
#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#define ZINC_BLAKE2S_NO_ASM 1
#endif
#endif

#if defined(__x86_64__) && !defined(ZINC_BLAKE2S_NO_ASM)

#define V0 %eax
#define V1 %ebx
#define V2 %ecx
#define V3 %edx
#define V4 %ebp
#define V5 %edi
#define V6 %r8d
#define V7 %r9d
#define V8 %r10d
#define V9 %r11d
#define V10 0(%rsp)
#define V11 4(%rsp)
#define V12 %r12d
#define V13 %r13d
#define V14 %r14d
#define V15 %r15d
#define MSG %rsi
#define S_STATE 8(%rsp)
#define S_NBLOCKS 16(%rsp)
#define S_INC 24(%rsp)
#define S_LAST 32(%rsp)
#define S_LASTINC 40(%rsp)
#define FRAME 48

/* Step s (0..11) of one G on (a, b, c, d) with message words x and y;
 * any other s emits nothing. */
.macro STEP s, a, b, c, d, x, y
.if (\s) == 0
	addl	4*\x(MSG), \a
	addl	\b, \a
.elseif (\s) == 1
	xorl	\a, \d
.elseif (\s) == 2
	rorl	$16, \d
.elseif (\s) == 3
	addl	\d, \c
.elseif (\s) == 4
	xorl	\c, \b
.elseif (\s) == 5
	rorl	$12, \b
.elseif (\s) == 6
	addl	4*\y(MSG), \a
	addl	\b, \a
.elseif (\s) == 7
	xorl	\a, \d
.elseif (\s) == 8
	rorl	$8, \d
.elseif (\s) == 9
	addl	\d, \c
.elseif (\s) == 10
	xorl	\c, \b
.elseif (\s) == 11
	rorl	$7, \b
.endif
.endm

/* Four independent G, chain k issued k steps behind chain 0. */
.macro G4 a0,b0,c0,d0, a1,b1,c1,d1, a2,b2,c2,d2, a3,b3,c3,d3, x0,y0,x1,y1,x2,y2,x3,y3
.irp t, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14
	STEP \t, \a0, \b0, \c0, \d0, \x0, \y0
	STEP \t-1, \a1, \b1, \c1, \d1, \x1, \y1
	STEP \t-2, \a2, \b2, \c2, \d2, \x2, \y2
	STEP \t-3, \a3, \b3, \c3, \d3, \x3, \y3
.endr
.endm

/* One round: columns, then diagonals; s0..s15 is the round's sigma row. */
.macro ROUND s0,s1,s2,s3,s4,s5,s6,s7,s8,s9,s10,s11,s12,s13,s14,s15
	G4 V0,V4,V8,V12, V1,V5,V9,V13, V2,V6,V10,V14, V3,V7,V11,V15, \
	   \s0,\s1, \s2,\s3, \s4,\s5, \s6,\s7
	G4 V0,V5,V10,V15, V1,V6,V11,V12, V2,V7,V8,V13, V3,V4,V9,V14, \
	   \s8,\s9, \s10,\s11, \s12,\s13, \s14,\s15
.endm

/* void zinc_blake2s_compress_x86_64(struct zinc_blake2s_state *state (rdi),
 *	const uint8_t *block (rsi), size_t nblocks (rdx), uint32_t inc (ecx));
 * void zinc_blake2s_compress_final_x86_64(struct zinc_blake2s_state *state,
 *	const uint8_t *block, size_t nblocks, const uint8_t *last (rcx),
 *	uint32_t lastinc (r8d)): nblocks blocks with inc 64, then last as the
 *	final block (f[0] = ~0, counter += lastinc) in the same call, so h stays
 *	in registers and the call and the h reload are paid once.
 * state: h[8] at 0, t[2] at 32, f[2] at 40 (zinc/include/zinc/blake2s.h). */
	.text
	.globl	zinc_blake2s_compress_x86_64
	.type	zinc_blake2s_compress_x86_64, @function
	.globl	zinc_blake2s_compress_final_x86_64
	.type	zinc_blake2s_compress_final_x86_64, @function
	.p2align 5
zinc_blake2s_compress_x86_64:
	.cfi_startproc
	testq	%rdx, %rdx
	jz	.Lb2s_ret
	movl	%ecx, %r9d		/* inc */
	xorl	%ecx, %ecx		/* no final block */
	jmp	.Lb2s_entry
zinc_blake2s_compress_final_x86_64:
	movl	$64, %r9d
.Lb2s_entry:
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -24
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r12, -32
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r13, -40
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r14, -48
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r15, -56
	subq	$FRAME, %rsp
	.cfi_adjust_cfa_offset FRAME
	movq	%rdi, S_STATE
	movq	%rdx, S_NBLOCKS
	movl	%r9d, S_INC
	movq	%rcx, S_LAST
	movl	%r8d, S_LASTINC
	movl	0(%rdi), V0
	movl	4(%rdi), V1
	movl	8(%rdi), V2
	movl	12(%rdi), V3
	movl	16(%rdi), V4
	movl	28(%rdi), V7
	movl	24(%rdi), V6
	movl	20(%rdi), V5		/* V5 is %edi: last */
	cmpq	$0, S_NBLOCKS
	je	.Lb2s_last
	.p2align 4
.Lb2s_block:
	/* t += inc as one 64-bit counter; v12..v15 = IV ^ (t, f). */
	movq	S_STATE, %r15
	movl	S_INC, %r13d
	movq	32(%r15), %r12
	addq	%r13, %r12
	movq	%r12, 32(%r15)
	movq	%r12, %r13
	shrq	$32, %r13
	xorl	$0x510e527f, V12
	xorl	$0x9b05688c, V13
	movl	40(%r15), V14
	xorl	$0x1f83d9ab, V14
	movl	44(%r15), V15		/* V15 is %r15d: last */
	xorl	$0x5be0cd19, V15
	movl	$0x6a09e667, V8
	movl	$0xbb67ae85, V9
	movl	$0x3c6ef372, V10
	movl	$0xa54ff53a, V11
	ROUND 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	ROUND 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3
	ROUND 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4
	ROUND 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8
	ROUND 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13
	ROUND 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9
	ROUND 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11
	ROUND 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10
	ROUND 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5
	ROUND 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0
	/* h ^= v[i] ^ v[i + 8], kept in v0..v7 for the next block. v4..v7
	 * finish last, so they are xored last. */
	xorl	V8, V0
	movq	S_STATE, %r10
	xorl	0(%r10), V0
	movl	V0, 0(%r10)
	xorl	V9, V1
	xorl	4(%r10), V1
	movl	V1, 4(%r10)
	xorl	V10, V2
	xorl	8(%r10), V2
	movl	V2, 8(%r10)
	xorl	V11, V3
	xorl	12(%r10), V3
	movl	V3, 12(%r10)
	xorl	16(%r10), V12
	xorl	V12, V4
	movl	V4, 16(%r10)
	xorl	20(%r10), V13
	xorl	V13, V5
	movl	V5, 20(%r10)
	xorl	24(%r10), V14
	xorl	V14, V6
	movl	V6, 24(%r10)
	xorl	28(%r10), V15
	xorl	V15, V7
	movl	V7, 28(%r10)
	addq	$64, MSG
	decq	S_NBLOCKS
	jnz	.Lb2s_block
.Lb2s_last:
	/* A pending final block (a public length decides): one more pass. */
	movq	S_LAST, %r10
	testq	%r10, %r10
	jz	.Lb2s_done
	movq	%r10, MSG
	movq	$0, S_LAST
	movl	S_LASTINC, %r11d
	movl	%r11d, S_INC
	movq	S_STATE, %r10
	movl	$0xffffffff, 40(%r10)
	movq	$1, S_NBLOCKS
	jmp	.Lb2s_block
.Lb2s_done:
	/* The stack slots held state words (key-derived for a keyed hash). */
	movq	$0, 0(%rsp)
	addq	$FRAME, %rsp
	.cfi_adjust_cfa_offset -FRAME
	popq	%r15
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r15
	popq	%r14
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r14
	popq	%r13
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r13
	popq	%r12
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r12
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
.Lb2s_ret:
	ret
	.cfi_endproc
	.size	zinc_blake2s_compress_x86_64, .-zinc_blake2s_compress_x86_64
	.size	zinc_blake2s_compress_final_x86_64, .-zinc_blake2s_compress_final_x86_64

#endif

	.section .note.GNU-stack, "", @progbits
