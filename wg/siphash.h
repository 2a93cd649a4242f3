/* SipHash-2-4: a keyed 64-bit PRF for hash tables an attacker can feed. */
#ifndef WG_SIPHASH_H
#define WG_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

enum { WG_SIPHASH_KEY_LEN = 16 };

uint64_t wg_siphash24(const uint8_t key[WG_SIPHASH_KEY_LEN], const void *data, size_t len);

#endif
