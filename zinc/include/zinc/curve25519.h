/* X25519 (RFC 7748). Secrets are clamped inside. */
#ifndef ZINC_CURVE25519_H
#define ZINC_CURVE25519_H

#include <stdbool.h>
#include <stdint.h>

enum { ZINC_CURVE25519_KEY_SIZE = 32 };

/* out = X25519(secret, basepoint); false when out is all zero (low order). */
bool zinc_curve25519(uint8_t out[32], const uint8_t secret[32], const uint8_t basepoint[32]);
bool zinc_curve25519_generate_public(uint8_t pub[32], const uint8_t secret[32]);
/* 32 random bytes, clamped. Blocks never; aborts if the RNG fails (see
 * zinc_get_random_bytes for a non-failing-check variant). */
void zinc_curve25519_generate_secret(uint8_t secret[32]);
void zinc_curve25519_clamp_secret(uint8_t secret[32]);

#endif
