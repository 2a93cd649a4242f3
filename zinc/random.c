// SPDX-License-Identifier: MIT
/*
 * Kernel randomness through getrandom(2) with GRND_NONBLOCK: never blocks,
 * reports "not ready" instead while the kernel pool is unseeded (early boot).
 * Thread safe: the state is atomics (and, in test builds, once-initialised
 * test seams).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <zinc/memzero.h>
#include <zinc/random.h>

/* Once the kernel pool is seeded it stays seeded, so true is cached. */
static atomic_bool rng_seeded;

#ifdef ZINC_TEST_HOOKS
/* Test builds only (libzinc-testhooks.a): the shipped library has no seam. */
static atomic_int rng_forced_unseeded;
static pthread_once_t rng_env_once = PTHREAD_ONCE_INIT;
/* ZINC_RNG_UNSEEDED_FILE: while this file exists the RNG looks unseeded
 * (a test flips a running daemon). Empty: the seam is off, and then the
 * check costs nothing. stat() is fstatat/newfstatat, which the daemon's
 * seccomp filter allows. */
static char rng_unseeded_file[4096];

static void rng_read_env(void)
{
	const char *v = getenv("ZINC_RNG_UNSEEDED");
	const char *f = getenv("ZINC_RNG_UNSEEDED_FILE");

	if (v && v[0] == '1' && v[1] == '\0')
		atomic_store(&rng_forced_unseeded, 1);
	if (f && strlen(f) < sizeof(rng_unseeded_file))
		memcpy(rng_unseeded_file, f, strlen(f) + 1);
}

static bool rng_forced(void)
{
	struct stat st;

	pthread_once(&rng_env_once, rng_read_env);
	if (atomic_load(&rng_forced_unseeded) != 0)
		return true;
	return rng_unseeded_file[0] && stat(rng_unseeded_file, &st) == 0;
}

void zinc_rng_test_force_unseeded(int unseeded)
{
	/* Read the environment first so it cannot override this call later. */
	pthread_once(&rng_env_once, rng_read_env);
	atomic_store(&rng_forced_unseeded, unseeded ? 1 : 0);
}
#else
static inline bool rng_forced(void)
{
	return false;
}
#endif

bool zinc_rng_is_initialized(void)
{
	uint8_t probe;
	ssize_t ret;

	if (rng_forced())
		return false;
	if (atomic_load(&rng_seeded))
		return true;
	/* One byte without blocking: EAGAIN means the pool is not seeded yet. */
	do {
		ret = getrandom(&probe, 1, GRND_NONBLOCK);
	} while (ret < 0 && errno == EINTR);
	zinc_memzero(&probe, sizeof(probe));
	if (ret != 1)
		return false;
	atomic_store(&rng_seeded, true);
	return true;
}

bool zinc_get_random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t done = 0;

	if (!zinc_rng_is_initialized())
		return false;
	while (done < len) {
		const ssize_t ret = getrandom(p + done, len - done, GRND_NONBLOCK);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			/* Do not hand back a partly filled buffer. */
			zinc_memzero(buf, len);
			return false;
		}
		done += (size_t)ret;
	}
	return true;
}
