/* The one place the engine's handshake X25519 work goes through. */
#include <zinc/curve25519.h>

#include "dhbatch.h"

const uint8_t wg_dh_basepoint[WG_PUBLIC_KEY_LEN] = {9};

enum { DH_BATCH_MAX = 64 }; /* variable-base operations per zinc call */

void wg_dh_batch(size_t n, uint8_t *const out[], const uint8_t *const secret[],
		 const uint8_t *const point[])
{
	uint8_t *o[DH_BATCH_MAX] = {0};
	const uint8_t *s[DH_BATCH_MAX] = {0}, *p[DH_BATCH_MAX] = {0};
	size_t k = 0;

	/* public keys on zinc's fixed-base path (a comb over a precomputed
	 * table: a third of a ladder), the rest in lanes */
	for (size_t i = 0; i < n; i++) {
		if (point[i] == wg_dh_basepoint) {
			zinc_curve25519_generate_public(out[i], secret[i]);
			continue;
		}
		o[k] = out[i], s[k] = secret[i], p[k] = point[i];
		if (++k == DH_BATCH_MAX) {
			zinc_curve25519_batch(k, o, s, p, NULL);
			k = 0;
		}
	}
	zinc_curve25519_batch(k, o, s, p, NULL);
}
