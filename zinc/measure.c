// SPDX-License-Identifier: MIT
/* The measured choice of path per primitive (measure.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <zinc/memzero.h>

#include "measure.h"

/* The sizes WireGuard uses: a full-MTU data packet, a handshake hash. */
enum { AEAD_LEN = 1420, BLAKE2S_LEN = 148 };

static const char *const prim_names[ZINC_PRIM_COUNT] = {"chacha20", "aead",   "poly1305",
							"blake2s",  "x25519", "x25519_base"};

size_t zinc_measure_pick(const uint64_t *cost, size_t n, size_t dflt)
{
	size_t best = dflt;

	for (size_t i = 0; i < n; i++)
		if (cost[i] < cost[best])
			best = i;
	/* default minus the margin, exact and without overflow */
	const uint64_t d = cost[dflt], bar = d - (d / 100 * ZINC_MEASURE_MARGIN_PCT +
						  d % 100 * ZINC_MEASURE_MARGIN_PCT / 100);

	if (cost[best] < bar)
		return best;
	return dflt;
}

static uint64_t ticks(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static const void *entry(const struct zinc_impl *t, enum zinc_prim p)
{
	switch (p) {
	case ZINC_PRIM_CHACHA20:
		return (const void *)t->chacha20;
	case ZINC_PRIM_AEAD:
		return (const void *)t->aead_seal;
	case ZINC_PRIM_POLY1305:
		return (const void *)t->poly1305_blocks;
	case ZINC_PRIM_BLAKE2S:
		return (const void *)t->blake2s_final;
	case ZINC_PRIM_X25519:
		return (const void *)t->x25519;
	default:
		return (const void *)t->x25519_base;
	}
}

static const char *name(const struct zinc_impl *t, enum zinc_prim p)
{
	const char *const n[ZINC_PRIM_COUNT] = {t->chacha20_name, t->aead_name,
						t->poly1305_name, t->blake2s_name,
						t->x25519_name,	  t->x25519_base_name};

	return n[p];
}

static void take(struct zinc_impl *t, const struct zinc_impl *src, enum zinc_prim p)
{
	switch (p) {
	case ZINC_PRIM_CHACHA20:
		t->chacha20 = src->chacha20;
		t->chacha20_name = src->chacha20_name;
		break;
	case ZINC_PRIM_AEAD:
		t->aead_seal = src->aead_seal;
		t->aead_open = src->aead_open;
		t->aead_name = src->aead_name;
		break;
	case ZINC_PRIM_POLY1305:
		t->poly1305_blocks = src->poly1305_blocks;
		t->poly1305_name = src->poly1305_name;
		break;
	case ZINC_PRIM_BLAKE2S:
		t->blake2s_compress = src->blake2s_compress;
		t->blake2s_final = src->blake2s_final;
		t->blake2s_name = src->blake2s_name;
		break;
	case ZINC_PRIM_X25519:
		t->x25519 = src->x25519;
		t->x25519_name = src->x25519_name;
		break;
	default:
		t->x25519_base = src->x25519_base;
		t->x25519_base_name = src->x25519_base_name;
		break;
	}
}

/* Scratch for one timed call: inputs are fixed, outputs thrown away. */
struct scratch {
	uint8_t in[AEAD_LEN], out[AEAD_LEN + 16], key[32], nonce[12];
	uint32_t state[16];
	struct zinc_poly1305_ctx poly;
	struct zinc_blake2s_state b2s;
};

static void run(const struct zinc_impl *t, enum zinc_prim p, struct scratch *s)
{
	switch (p) {
	case ZINC_PRIM_CHACHA20:
		t->chacha20(s->state, s->out, s->in, AEAD_LEN);
		break;
	case ZINC_PRIM_AEAD:
		t->aead_seal(s->out, s->in, AEAD_LEN, NULL, 0, s->key, s->nonce);
		break;
	case ZINC_PRIM_POLY1305:
		t->poly1305_blocks(&s->poly, s->in, AEAD_LEN / 16, 1ULL << 40);
		break;
	case ZINC_PRIM_BLAKE2S:
		/* two whole blocks, then the 20-byte rest as the final one */
		t->blake2s_final(&s->b2s, s->in, BLAKE2S_LEN / 64, s->in + 128, BLAKE2S_LEN % 64);
		break;
	case ZINC_PRIM_X25519:
		t->x25519(s->out, s->key, s->in);
		break;
	default:
		t->x25519_base(s->out, s->key);
		break;
	}
}

/* Cheapest of ZINC_MEASURE_ROUNDS timed calls of each path, taken in
 * turn so a frequency change hits them all alike; one untimed call first. */
static void time_paths(const struct zinc_impl *const *path, size_t n, enum zinc_prim p,
		       uint64_t *cost, struct scratch *s)
{
	for (size_t i = 0; i < n; i++) {
		run(path[i], p, s);
		cost[i] = UINT64_MAX;
	}
	for (int r = 0; r < ZINC_MEASURE_ROUNDS; r++)
		for (size_t i = 0; i < n; i++) {
			uint64_t t0 = ticks(), dt;

			run(path[i], p, s);
			dt = ticks() - t0;
			if (dt < cost[i])
				cost[i] = dt;
		}
}

static void init_scratch(struct scratch *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < sizeof(s->in); i++)
		s->in[i] = (uint8_t)(i * 7 + 1);
	for (int i = 0; i < 32; i++)
		s->key[i] = (uint8_t)(i + 1);
	s->key[0] &= 248; /* a clamped X25519 scalar */
	s->key[31] = (uint8_t)((s->key[31] & 127) | 64);
	s->poly.r[0] = 0x0ffffffc0ff;
}

/* Appends "prim: a 123 b 456 -> a" to why. */
static size_t explain(char *why, size_t len, size_t at, enum zinc_prim p,
		      const struct zinc_impl *const *path, const uint64_t *cost, size_t n,
		      size_t pick, size_t dflt)
{
	at += (size_t)snprintf(why + at, at < len ? len - at : 0, "%s%s:", at ? "; " : "",
			       prim_names[p]);
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(why + at, len - at, " %s %llu", name(path[i], p),
				       (unsigned long long)cost[i]);
	if (at < len)
		at += (size_t)snprintf(why + at, len - at, " -> %s%s", name(path[pick], p),
				       pick == dflt ? " (default)" : "");
	return at;
}

void zinc_measure(struct zinc_impl *t, const struct zinc_impl *cand, size_t n, char *why,
		  size_t why_len)
{
	const struct zinc_impl *path[ZINC_MEASURE_CANDIDATES];
	uint64_t cost[ZINC_MEASURE_CANDIDATES], start = ticks();
	struct scratch s;
	size_t at = 0;

	init_scratch(&s);
	for (int p = 0; p < ZINC_PRIM_COUNT; p++) {
		size_t k = 0;

		/* distinct entries only; the default (the last table) is last.
		 * The portable AEAD is not timed: it calls the ChaCha20 and
		 * Poly1305 entries through the table being chosen. */
		for (size_t i = 0; i < n; i++) {
			bool dup = entry(&cand[i], p) == (const void *)zinc_aead_seal_generic;

			for (size_t j = i + 1; j < n; j++)
				dup |= entry(&cand[i], p) == entry(&cand[j], p);
			if (!dup)
				path[k++] = &cand[i];
		}
		if (k < 2)
			continue;
		time_paths(path, k, p, cost, &s);
		/* BLAKE2s keeps the portable code unless another path wins
		 * clearly: the assembly on Zen 5, AVX-512VL on Zen 4, while
		 * the assembly loses to C there (doc/zinc-x86.md) */
		const size_t dflt = p == ZINC_PRIM_BLAKE2S ? 0 : k - 1;
		const size_t pick = zinc_measure_pick(cost, k, dflt);

		take(t, path[pick], p);
		at = explain(why, why_len, at, p, path, cost, k, pick, dflt);
	}
	if (at && at < why_len)
		snprintf(why + at, why_len - at, "; %llu ticks in all",
			 (unsigned long long)(ticks() - start));
	zinc_memzero(&s, sizeof(s));
}
