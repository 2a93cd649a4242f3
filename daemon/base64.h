/* Base64 (RFC 4648, with padding): keys as wg(8) writes them, and HTTP
 * Basic credentials. */
#ifndef ZT_BASE64_H
#define ZT_BASE64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wg/wg.h>

/* A 32-byte key in base64: 43 characters and one '='. */
#define BASE64_KEY_LEN 44

/* out gets the key's text and a terminating NUL. Table lookups: for public
 * keys only. */
void base64_encode_key(char out[BASE64_KEY_LEN + 1], const uint8_t key[WG_PUBLIC_KEY_LEN]);

/* Strict: len a multiple of 4, padding only at the end, unused bits zero.
 * Returns the decoded length, or -1 if malformed or longer than cap. */
long base64_decode(const char *s, size_t len, uint8_t *out, size_t cap);

/* A 32-byte key: exactly BASE64_KEY_LEN characters ending in '='. In
 * constant time for a valid key's characters (it may be a private key). */
bool base64_decode_key(const char *s, size_t len, uint8_t key[WG_PUBLIC_KEY_LEN]);

#endif
