/* Kernel randomness without blocking. */
#ifndef ZINC_RANDOM_H
#define ZINC_RANDOM_H

#include <stdbool.h>
#include <stddef.h>

/* True once the kernel's RNG is seeded; never blocks. */
bool zinc_rng_is_initialized(void);
/* Fills buf; never blocks; false (buf untouched or wiped) when not ready. */
bool zinc_get_random_bytes(void *buf, size_t len);

#ifdef ZINC_TEST_HOOKS
/* Test builds only (libzinc-testhooks.a, built with ZINC_TEST_HOOKS; the
 * shipped libzinc has none of this). Force the RNG to look unseeded (1), or
 * back to the real kernel state (0). Also set at start-up from
 * ZINC_RNG_UNSEEDED=1. A second seam for running processes: with
 * ZINC_RNG_UNSEEDED_FILE=PATH in the environment at the first call, the RNG
 * looks unseeded while PATH exists (checked with stat() on every call, only
 * when the variable is set). */
void zinc_rng_test_force_unseeded(int unseeded);
#endif

#endif
