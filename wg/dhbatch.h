/* Independent X25519 operations computed in one call (the handshake
 * worker's batch: doc/engine.md). Internal. */
#ifndef WG_DHBATCH_H
#define WG_DHBATCH_H

#include <stddef.h>
#include <stdint.h>

#include "wg/wg.h"

/* The most operations one handshake job needs in one step. */
enum { WG_DH_PER_JOB = 3 };

/* point = this (the address, not only the value): the public key of
 * secret, on zinc's fixed-base path */
extern const uint8_t wg_dh_basepoint[WG_PUBLIC_KEY_LEN];

/* out[i] = X25519(secret[i], point[i]) for i < n, the variable-base ones
 * in zinc_curve25519_batch's lanes; an all-zero out[i] for a low-order
 * point (callers check for zero, as Noise requires). */
void wg_dh_batch(size_t n, uint8_t *const out[], const uint8_t *const secret[],
		 const uint8_t *const point[]);

#endif
