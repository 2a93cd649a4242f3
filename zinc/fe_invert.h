/* Internal: the addition chain of 1 / z = z^(p - 2) = z^(2^255 - 21) in
 * GF(2^255 - 19), 254 squarings and 11 multiplications, written once for
 * every representation of the field (curve25519.c, arm64/, x86/ and the
 * x86 lane kernels). The caller gives its SQ_N(r, a, n) (r = a^(2^n),
 * n >= 1) and MUL(r, a, b), both allowing r to alias an input, and its
 * four temporaries t0..t3 as the two take them; it wipes them after. The
 * exponent is public, so the chain is. A macro rather than a function:
 * the element types differ, and each caller keeps its own inlining. */
#ifndef ZINC_FE_INVERT_H
#define ZINC_FE_INVERT_H

#define FE_INVERT_CHAIN(SQ_N, MUL, out, z, t0, t1, t2, t3)                                         \
	do {                                                                                       \
		SQ_N(t0, z, 1);	   /* 2 */                                                         \
		SQ_N(t1, t0, 2);   /* 8 */                                                         \
		MUL(t1, t1, z);	   /* 9 */                                                         \
		MUL(t0, t0, t1);   /* 11 */                                                        \
		SQ_N(t2, t0, 1);   /* 22 */                                                        \
		MUL(t1, t1, t2);   /* 2^5 - 1 */                                                   \
		SQ_N(t2, t1, 5);   /* 2^10 - 2^5 */                                                \
		MUL(t1, t2, t1);   /* 2^10 - 1 */                                                  \
		SQ_N(t2, t1, 10);  /* 2^20 - 2^10 */                                               \
		MUL(t2, t2, t1);   /* 2^20 - 1 */                                                  \
		SQ_N(t3, t2, 20);  /* 2^40 - 2^20 */                                               \
		MUL(t2, t3, t2);   /* 2^40 - 1 */                                                  \
		SQ_N(t2, t2, 10);  /* 2^50 - 2^10 */                                               \
		MUL(t1, t2, t1);   /* 2^50 - 1 */                                                  \
		SQ_N(t2, t1, 50);  /* 2^100 - 2^50 */                                              \
		MUL(t2, t2, t1);   /* 2^100 - 1 */                                                 \
		SQ_N(t3, t2, 100); /* 2^200 - 2^100 */                                             \
		MUL(t2, t3, t2);   /* 2^200 - 1 */                                                 \
		SQ_N(t2, t2, 50);  /* 2^250 - 2^50 */                                              \
		MUL(t1, t2, t1);   /* 2^250 - 1 */                                                 \
		SQ_N(t1, t1, 5);   /* 2^255 - 2^5 */                                               \
		MUL(out, t1, t0);  /* 2^255 - 21 */                                                \
	} while (0)

#endif
