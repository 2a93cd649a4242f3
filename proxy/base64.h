/* Base64 decoding (RFC 4648, standard alphabet, with padding) for
 * WireGuard keys in the configuration file and for HTTP Basic credentials.
 * The daemon only encodes keys (eventlog.c, metrics_text.c); the proxy
 * mode only decodes. */
#ifndef ZT_PROXY_BASE64_H
#define ZT_PROXY_BASE64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes len characters (a multiple of 4, '=' padding only at the end,
 * no whitespace, unused bits zero) into out (cap bytes). Returns the
 * decoded length, or -1 if malformed or longer than cap. */
long base64_decode(const char *s, size_t len, uint8_t *out, size_t cap);

/* A 32-byte key: exactly 44 characters ending in '='. */
bool base64_decode_key(const char *s, size_t len, uint8_t key[32]);

#endif
