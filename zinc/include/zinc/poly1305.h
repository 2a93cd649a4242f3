/* Poly1305 one-time authenticator (RFC 8439). */
#ifndef ZINC_POLY1305_H
#define ZINC_POLY1305_H

#include <stddef.h>
#include <stdint.h>

enum {
	ZINC_POLY1305_KEY_SIZE = 32,
	ZINC_POLY1305_MAC_SIZE = 16,
	ZINC_POLY1305_BLOCK_SIZE = 16,
};

struct zinc_poly1305_ctx {
	uint64_t r[3];	 /* clamped r, implementation-defined limbs */
	uint64_t h[3];	 /* accumulator */
	uint64_t s[2];	 /* final pad */
	uint8_t buf[16]; /* partial block */
	size_t num;	 /* bytes in buf */
};

void zinc_poly1305_init(struct zinc_poly1305_ctx *ctx, const uint8_t key[32]);
void zinc_poly1305_update(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t len);
/* Writes the tag and wipes the context. */
void zinc_poly1305_final(struct zinc_poly1305_ctx *ctx, uint8_t mac[16]);

void zinc_poly1305(uint8_t mac[16], const uint8_t *src, size_t len, const uint8_t key[32]);

#endif
