// SPDX-License-Identifier: MIT
/* X25519 with four 64-bit limbs for CPUs with BMI2 and ADX: a Montgomery
 * ladder on the field of fe64.h. Constant time: the ladder's only
 * secret-dependent operation is a masked conditional swap. */
#if defined(__x86_64__)
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"
#include "fe64.h"

void zinc_x25519_bmi2_adx(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32])
{
	fe x1, x2, z2, x3, z3, a, aa, b, bb, c, d, da, cb, e;
	uint64_t swap = 0;

	memcpy(x1, point, 32);
	x1[3] &= 0x7fffffffffffffffULL; /* RFC 7748: ignore the top bit of u */
	memset(x2, 0, sizeof(fe));
	x2[0] = 1;
	memset(z2, 0, sizeof(fe));
	memcpy(x3, x1, sizeof(fe));
	memset(z3, 0, sizeof(fe));
	z3[0] = 1;

	for (int t = 254; t >= 0; t--) {
		const uint64_t k_t = (scalar[t >> 3] >> (t & 7)) & 1;

		swap ^= k_t;
		fe_cswap(x2, x3, swap);
		fe_cswap(z2, z3, swap);
		swap = k_t;

		/* independent operations side by side, so that the CPU
		 * overlaps their carry chains */
		fe_addsub(a, b, x2, z2);
		fe_addsub(c, d, x3, z3);
		fe_sq(aa, a);
		fe_sq(bb, b);
		fe_mul(da, d, a);
		fe_mul(cb, c, b);
		fe_sub(e, aa, bb);
		fe_addsub(x3, z3, da, cb);
		fe_mul_a24_add(z2, e, aa);
		fe_sq(x3, x3);
		fe_sq(z3, z3);
		fe_mul(x2, aa, bb);
		fe_mul(z2, z2, e);
		fe_mul(z3, z3, x1);
	}
	fe_cswap(x2, x3, swap);
	fe_cswap(z2, z3, swap);

	fe_invert(z2, z2);
	fe_mul(x2, x2, z2);
	fe_tobytes(out, x2);

	zinc_memzero(x1, sizeof(fe));
	zinc_memzero(x2, sizeof(fe));
	zinc_memzero(z2, sizeof(fe));
	zinc_memzero(x3, sizeof(fe));
	zinc_memzero(z3, sizeof(fe));
	zinc_memzero(a, sizeof(fe));
	zinc_memzero(aa, sizeof(fe));
	zinc_memzero(b, sizeof(fe));
	zinc_memzero(bb, sizeof(fe));
	zinc_memzero(c, sizeof(fe));
	zinc_memzero(d, sizeof(fe));
	zinc_memzero(da, sizeof(fe));
	zinc_memzero(cb, sizeof(fe));
	zinc_memzero(e, sizeof(fe));
	zinc_memzero(&swap, sizeof(swap));
}
#endif
