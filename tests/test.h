/* Minimal test helpers shared by the unit tests. A test binary exits 0 when
 * every check held, 1 otherwise; it prints what failed. */
#ifndef ZINCTUN_TEST_H
#define ZINCTUN_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		test_checks++;                                                                     \
		if (!(cond)) {                                                                     \
			test_failures++;                                                           \
			if (test_failures < 50)                                                    \
				fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
					#cond);                                                    \
		}                                                                                  \
	} while (0)

#define CHECK_MEM(a, b, n, what)                                                                   \
	do {                                                                                       \
		test_checks++;                                                                     \
		if (memcmp((a), (b), (n)) != 0) {                                                  \
			test_failures++;                                                           \
			if (test_failures < 50)                                                    \
				fprintf(stderr, "%s:%d: mismatch: %s\n", __FILE__, __LINE__,       \
					(what));                                                   \
		}                                                                                  \
	} while (0)

static inline int test_finish(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
	return test_failures ? 1 : 0;
}

/* Decodes hex into buf (capacity cap); returns the byte length or -1. */
static inline long test_unhex(uint8_t *buf, size_t cap, const char *hex)
{
	size_t n = strlen(hex);
	if (n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		buf[i] = (uint8_t)v;
	}
	return (long)(n / 2);
}

/* Deterministic PRNG for reproducible random tests (xorshift64*). */
static inline uint64_t test_rand64(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static inline void test_randbytes(uint64_t *s, uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(test_rand64(s) >> 56);
}

#endif
