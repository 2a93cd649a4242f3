// SPDX-License-Identifier: MIT
/*
 * Constant-time check for keyed BLAKE2s, HMAC-BLAKE2s and X25519, run under
 * valgrind memcheck (tests/scripts/test_zinc_ct_asym.sh). Secrets are marked
 * undefined; memcheck then reports any branch or memory index that depends on
 * them. Outputs are marked defined only where the protocol publishes them.
 * "--leak" deliberately indexes a table with a secret so the script can prove the
 * method detects a violation.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include <zinc/blake2s.h>
#include <zinc/curve25519.h>

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static void fill(uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v + 31 * i);
}

static unsigned int run_blake2s(void)
{
	uint8_t key[32], msg[300], out[32];
	struct zinc_blake2s_state st;
	unsigned int sum = 0;

	fill(key, sizeof(key), 1);
	fill(msg, sizeof(msg), 2);
	for (size_t keylen = 1; keylen <= 32; keylen += 31) {
		for (size_t len = 0; len < sizeof(msg); len += 67) {
			SECRET(key, sizeof(key));
			SECRET(msg, sizeof(msg));
			zinc_blake2s(out, msg, key, 32, len, keylen);
			PUBLIC(out, sizeof(out));
			sum += out[0];

			SECRET(key, sizeof(key));
			zinc_blake2s_init_key(&st, 16, key, keylen);
			zinc_blake2s_update(&st, msg, len / 2);
			zinc_blake2s_update(&st, msg + len / 2, len - len / 2);
			zinc_blake2s_final(&st, out);
			PUBLIC(out, 16);
			sum += out[0];
		}
	}
	return sum;
}

static unsigned int run_hmac(void)
{
	uint8_t key[100], msg[200], out[32];
	static const size_t keylens[] = {0, 1, 32, 64, 65, 100};
	unsigned int sum = 0;

	fill(key, sizeof(key), 3);
	fill(msg, sizeof(msg), 4);
	for (size_t i = 0; i < sizeof(keylens) / sizeof(keylens[0]); i++) {
		SECRET(key, sizeof(key));
		SECRET(msg, sizeof(msg));
		zinc_blake2s_hmac(out, msg, key, sizeof(msg) - i * 30, keylens[i]);
		PUBLIC(out, sizeof(out));
		sum += out[0];
	}
	return sum;
}

static unsigned int run_x25519(void)
{
	uint8_t secret[32], point[32], out[32];
	unsigned int sum = 0;
	bool ok;

	for (int i = 0; i < 3; i++) {
		fill(secret, sizeof(secret), (uint8_t)(5 + i));
		fill(point, sizeof(point), (uint8_t)(9 + i));
		if (i == 2)
			memset(point, 0, sizeof(point)); /* low order: zero result */
		SECRET(secret, sizeof(secret));
		/* The peer's point is public in WireGuard, but nothing may depend on it either. */
		SECRET(point, sizeof(point));
		ok = zinc_curve25519(out, secret, point);
		/* Only the verdict is revealed; the shared secret stays secret. */
		PUBLIC(&ok, sizeof(ok));
		sum += ok;

		SECRET(secret, sizeof(secret));
		ok = zinc_curve25519_generate_public(out, secret);
		PUBLIC(&ok, sizeof(ok));
		PUBLIC(out, sizeof(out));
		sum += ok + out[0];

		/* a batch of three (the eight-lane kernel where it exists) */
		const uint8_t *sec3[3] = {secret, secret, secret}, *pt3[3] = {point, point, point};
		uint8_t o3[3][32], *out3[3] = {o3[0], o3[1], o3[2]};

		SECRET(secret, sizeof(secret));
		size_t good = zinc_curve25519_batch(3, out3, sec3, pt3, NULL);
		PUBLIC(&good, sizeof(good));
		sum += (unsigned int)good;

		SECRET(secret, sizeof(secret));
		zinc_curve25519_clamp_secret(secret);
	}
	return sum;
}

/* A secret-dependent table index that memcheck must report; the result is
 * then marked public so only the lookup itself can trip memcheck. */
static unsigned int run_leak(void)
{
	static const uint8_t table[256] = {1, 2, 3};
	volatile uint8_t key[1] = {2};
	unsigned int r;

	SECRET((void *)key, sizeof(key));
	r = table[key[0]];
	PUBLIC(&r, sizeof(r));
	return r;
}

int main(int argc, char **argv)
{
	unsigned int sum;

	if (argc > 1 && !strcmp(argv[1], "--leak")) {
		printf("leak: %u\n", run_leak());
		return 0;
	}
	if (!RUNNING_ON_VALGRIND)
		fprintf(stderr, "zinc_ct_asym: not under valgrind, checks nothing\n");
	sum = run_blake2s() + run_hmac() + run_x25519();
	printf("zinc_ct_asym: done (%u)\n", sum);
	return 0;
}
