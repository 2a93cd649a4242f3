// qemu-user: skip (re-executes /proc/self/exe, which needs binfmt_misc under emulation)
// SPDX-License-Identifier: MIT
/* The file seam of zinc/random.c: with ZINC_RNG_UNSEEDED_FILE=PATH set when
 * the process starts, the RNG looks unseeded exactly while PATH exists, in
 * both directions, any number of times; without the variable the file means
 * nothing. The variable is read once per process, so each case runs in a
 * re-executed child. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zinc/random.h>

#include "test.h"

static const char *seam_path;

static void make_file(void)
{
	FILE *f = fopen(seam_path, "w");

	CHECK(f != NULL);
	if (f)
		fclose(f);
}

static bool all_equal(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

static void check_unseeded(void)
{
	uint8_t buf[32];

	CHECK(!zinc_rng_is_initialized());
	memset(buf, 0xa5, sizeof(buf));
	CHECK(!zinc_get_random_bytes(buf, sizeof(buf)));
	/* untouched or wiped, never random-looking */
	CHECK(all_equal(buf, sizeof(buf), 0xa5) || all_equal(buf, sizeof(buf), 0));
}

static void check_seeded(void)
{
	uint8_t a[32] = {0}, b[32] = {0};

	CHECK(zinc_rng_is_initialized());
	CHECK(zinc_get_random_bytes(a, sizeof(a)));
	CHECK(zinc_get_random_bytes(b, sizeof(b)));
	CHECK(memcmp(a, b, sizeof(a)) != 0);
}

static atomic_int stop_threads;

static void *reader(void *arg)
{
	uint8_t buf[16];
	long seen_seeded = 0, seen_unseeded = 0;

	(void)arg;
	while (!atomic_load(&stop_threads)) {
		if (zinc_get_random_bytes(buf, sizeof(buf)))
			seen_seeded++;
		else
			seen_unseeded++;
	}
	/* both states were observed while the file came and went */
	return (void *)(intptr_t)(seen_seeded > 0 && seen_unseeded > 0);
}

/* Child with the variable set; the file does not exist at start. */
static int seam_child(void)
{
	pthread_t th[2];
	void *ret;

	check_seeded(); /* seeded state is now cached: the seam must still win */
	for (int round = 0; round < 3; round++) {
		make_file();
		check_unseeded();
		check_unseeded();
		CHECK(unlink(seam_path) == 0);
		check_seeded();
	}
	/* A directory of that name counts as existing too. */
	CHECK(mkdir(seam_path, 0700) == 0);
	check_unseeded();
	CHECK(rmdir(seam_path) == 0);
	check_seeded();

	/* The function seam and the file seam combine: either one forces. */
	zinc_rng_test_force_unseeded(1);
	check_unseeded();
	zinc_rng_test_force_unseeded(0);
	check_seeded();
	make_file();
	zinc_rng_test_force_unseeded(0);
	check_unseeded();
	CHECK(unlink(seam_path) == 0);

	/* Threads see the flips without crashing or tearing. */
	atomic_store(&stop_threads, 0);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&th[i], NULL, reader, NULL) == 0);
	for (int i = 0; i < 200; i++) {
		make_file();
		usleep(500);
		CHECK(unlink(seam_path) == 0);
		usleep(500);
	}
	atomic_store(&stop_threads, 1);
	for (int i = 0; i < 2; i++) {
		CHECK(pthread_join(th[i], &ret) == 0);
		CHECK(ret == (void *)1);
	}
	check_seeded();
	return test_failures;
}

/* Child without the variable: the file exists and changes nothing. */
static int plain_child(void)
{
	check_seeded();
	return test_failures;
}

static void run_child(const char *mode, const char *env)
{
	pid_t pid = fork();
	int status = -1;

	CHECK(pid >= 0);
	if (pid == 0) {
		char path_env[4200];
		char *argv[] = {"test_zinc_random_seam", (char *)mode, (char *)seam_path, NULL};
		char *envp[] = {path_env, NULL};

		snprintf(path_env, sizeof(path_env), "%s", env);
		execve("/proc/self/exe", argv, env[0] ? envp : (char *[]){NULL});
		_exit(127);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/zinc-seam.XXXXXX";
	char path[256], env[300];

	if (argc > 2) {
		seam_path = argv[2];
		if (!strcmp(argv[1], "--seam-child"))
			return seam_child();
		if (!strcmp(argv[1], "--plain-child"))
			return plain_child();
		return 2;
	}
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/unseeded", dir);
	seam_path = path;
	snprintf(env, sizeof(env), "ZINC_RNG_UNSEEDED_FILE=%s", path);

	run_child("--seam-child", env);
	make_file();
	run_child("--plain-child", "");
	/* an empty variable turns the seam off as well */
	run_child("--plain-child", "ZINC_RNG_UNSEEDED_FILE=");
	unlink(path);
	rmdir(dir);
	return test_finish("test_zinc_random_seam");
}
