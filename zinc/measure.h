/* Internal: the measured choice. On a CPU with more than one path for a
 * primitive, zinc_impl() times each path briefly on the size WireGuard uses
 * (1420-byte AEAD, ChaCha20 and Poly1305, a 148-byte BLAKE2s, one X25519
 * and one public key)
 * and keeps the fastest; the default stays unless another path is clearly
 * faster (ZINC_MEASURE_MARGIN_PCT), so noise cannot flip it. The default
 * is the path the CPU flags name, but for BLAKE2s the portable code: the
 * kept path is then never slower than the portable one. */
#ifndef ZINC_MEASURE_H
#define ZINC_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "cpu.h"

enum zinc_prim {
	ZINC_PRIM_CHACHA20,
	ZINC_PRIM_AEAD,
	ZINC_PRIM_POLY1305,
	ZINC_PRIM_BLAKE2S,
	ZINC_PRIM_X25519,
	ZINC_PRIM_X25519_BASE,
	ZINC_PRIM_COUNT,
};

/* Another path must be this many percent cheaper to replace the default. */
#define ZINC_MEASURE_MARGIN_PCT 6
/* Timed rounds per path (the cheapest round counts: noise only adds). */
#define ZINC_MEASURE_ROUNDS 5
#define ZINC_MEASURE_CANDIDATES ZINC_LEVEL_COUNT

/* The index to keep among n costs: dflt unless one costs clearly less. */
size_t zinc_measure_pick(const uint64_t *cost, size_t n, size_t dflt);

/* Chooses, per primitive, among the tables cand[0..n-1] (one per path
 * level, the last the CPU-flag pick) and copies each winner's entries
 * into t; why[] (size why_len) says what was timed. */
void zinc_measure(struct zinc_impl *t, const struct zinc_impl *cand, size_t n, char *why,
		  size_t why_len);

#endif
