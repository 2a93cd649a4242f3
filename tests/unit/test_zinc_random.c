// qemu-user: skip (re-executes /proc/self/exe, which needs binfmt_misc under emulation)
// SPDX-License-Identifier: MIT
/* zinc_rng_is_initialized / zinc_get_random_bytes and the unseeded test seam,
 * both the function and the ZINC_RNG_UNSEEDED=1 environment variable (checked
 * in a re-executed child, since the variable is read once per process). */
#include <pthread.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zinc/random.h>

#include "test.h"

static bool all_equal(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

static size_t distinct_bytes(const uint8_t *p, size_t n)
{
	bool seen[256] = {false};
	size_t d = 0;

	for (size_t i = 0; i < n; i++) {
		d += !seen[p[i]];
		seen[p[i]] = true;
	}
	return d;
}

static void test_bytes(void)
{
	static uint8_t big[1 << 20];
	uint8_t a[64], b[64], c[1];

	CHECK(zinc_rng_is_initialized());
	CHECK(zinc_rng_is_initialized()); /* cached path */
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	CHECK(zinc_get_random_bytes(a, sizeof(a)));
	CHECK(zinc_get_random_bytes(b, sizeof(b)));
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	/* 64 uniform bytes have far more than 20 distinct values (p of failure ~ 0). */
	CHECK(distinct_bytes(a, sizeof(a)) > 20);
	CHECK(distinct_bytes(b, sizeof(b)) > 20);
	CHECK(zinc_get_random_bytes(c, 0));
	CHECK(zinc_get_random_bytes(big, sizeof(big)));
	CHECK(distinct_bytes(big + sizeof(big) - 4096, 4096) == 256);
}

static void check_unseeded_behaviour(void)
{
	uint8_t buf[32];

	CHECK(!zinc_rng_is_initialized());
	memset(buf, 0xa5, sizeof(buf));
	CHECK(!zinc_get_random_bytes(buf, sizeof(buf)));
	/* Contract: untouched or wiped, never random-looking. */
	CHECK(all_equal(buf, sizeof(buf), 0xa5) || all_equal(buf, sizeof(buf), 0));
}

static void test_seam(void)
{
	uint8_t buf[32];

	zinc_rng_test_force_unseeded(1);
	check_unseeded_behaviour();
	check_unseeded_behaviour();
	zinc_rng_test_force_unseeded(0);
	CHECK(zinc_rng_is_initialized());
	memset(buf, 0, sizeof(buf));
	CHECK(zinc_get_random_bytes(buf, sizeof(buf)));
	CHECK(distinct_bytes(buf, sizeof(buf)) > 8);
}

static void *thread_fn(void *arg)
{
	uint8_t buf[256];
	long bad = 0;

	(void)arg;
	for (int i = 0; i < 2000; i++) {
		bad += !zinc_rng_is_initialized();
		bad += !zinc_get_random_bytes(buf, sizeof(buf));
	}
	return (void *)bad;
}

static void test_threads(void)
{
	pthread_t th[4];
	void *ret;

	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&th[i], NULL, thread_fn, NULL) == 0);
	for (int i = 0; i < 4; i++) {
		CHECK(pthread_join(th[i], &ret) == 0);
		CHECK(ret == NULL);
	}
}

/* Child: started with ZINC_RNG_UNSEEDED=1; must look unseeded until the seam
 * is turned off. Exit code = number of failed checks (0 = pass). */
static int env_child(void)
{
	check_unseeded_behaviour();
	zinc_rng_test_force_unseeded(0);
	CHECK(zinc_rng_is_initialized());
	return test_failures;
}

static void test_env(void)
{
	pid_t pid;
	int status = -1;

	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char *argv[] = {"test_zinc_random", "--env-child", NULL};
		char *envp[] = {"ZINC_RNG_UNSEEDED=1", NULL};

		execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* ZINC_RNG_UNSEEDED=0 (or unset) leaves the real state. */
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char *argv[] = {"test_zinc_random", "--seeded-child", NULL};
		char *envp[] = {"ZINC_RNG_UNSEEDED=0", NULL};

		execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--env-child"))
		return env_child();
	if (argc > 1 && !strcmp(argv[1], "--seeded-child"))
		return zinc_rng_is_initialized() ? 0 : 1;
	test_bytes();
	test_seam();
	test_threads();
	test_env();
	/* The seam is off again: the real state is back. */
	CHECK(zinc_rng_is_initialized());
	return test_finish("test_zinc_random");
}
