/* X25519 (RFC 7748). Secrets are clamped inside. */
#ifndef ZINC_CURVE25519_H
#define ZINC_CURVE25519_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { ZINC_CURVE25519_KEY_SIZE = 32 };

/* out = X25519(secret, basepoint); false when out is all zero (low order). */
bool zinc_curve25519(uint8_t out[32], const uint8_t secret[32], const uint8_t basepoint[32]);
bool zinc_curve25519_generate_public(uint8_t pub[32], const uint8_t secret[32]);
/* n independent X25519 at once: out[i] = X25519(secret[i], point[i]), the
 * same bytes as zinc_curve25519; ok[i] (ok may be NULL) is its verdict.
 * Returns how many outputs are not all zero. Buffers may be scattered
 * (arrays of pointers); out[i] may alias secret[i] or point[i]. With
 * AVX-512 IFMA eight items run at once, in constant time, at about a
 * quarter of the cost of eight single calls; elsewhere one after another. */
size_t zinc_curve25519_batch(size_t n, uint8_t *const out[], const uint8_t *const secret[],
			     const uint8_t *const point[], bool ok[]);
/* 32 random bytes, clamped. Blocks never; aborts if the RNG fails (see
 * zinc_get_random_bytes for a non-failing-check variant). */
void zinc_curve25519_generate_secret(uint8_t secret[32]);
void zinc_curve25519_clamp_secret(uint8_t secret[32]);

#endif
