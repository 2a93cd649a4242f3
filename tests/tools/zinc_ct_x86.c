/* Constant-time check of the x86-64 kernels themselves, called directly
 * (not through the dispatch, whose CPU probe sees Valgrind's virtual CPU
 * without ADX): keys, nonces, messages and scalars are marked undefined and
 * memcheck reports any branch or memory index that depends on them.
 * Valgrind cannot execute AVX-512, so those kernels are not run here.
 *
 * Usage: zinc_ct_x86 --list        kernels this CPU can run (natively)
 *        zinc_ct_x86 NAME...       run those kernels (under valgrind)
 *        zinc_ct_x86 --planted     a deliberate secret-dependent branch */
#include <cpuid.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include <zinc/poly1305.h>

#include "../../zinc/cpu.h"

static int failures;

static void secret(void *p, size_t n)
{
	VALGRIND_MAKE_MEM_UNDEFINED(p, n);
}

static void public_(void *p, size_t n)
{
	VALGRIND_MAKE_MEM_DEFINED(p, n);
}

static void fill(uint8_t *p, size_t n, uint8_t start)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(start + 13 * i);
}

static void run_chacha(zinc_chacha20_fn fn)
{
	static const size_t lens[] = {100, 300, 700, 1500};
	uint8_t key[32], nonce[12], msg[1500], out[1500];

	for (size_t k = 0; k < 4; k++) {
		uint32_t st[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

		fill(key, 32, 1);
		fill(nonce, 12, 2);
		fill(msg, lens[k], 3);
		secret(key, 32);
		secret(nonce, 12);
		secret(msg, lens[k]);
		memcpy(st + 4, key, 32);
		memcpy(st + 13, nonce, 12);
		st[12] = 1;
		fn(st, out, msg, lens[k]);
		fn(st, out, out, lens[k]);
	}
}

static void run_aead(zinc_aead_seal_fn seal, zinc_aead_open_fn open)
{
	static const size_t lens[] = {0, 100, 300, 1500};
	uint8_t key[32], nonce[12], ad[20], msg[1500], ct[1516], back[1500];

	for (size_t k = 0; k < 4; k++) {
		size_t n = lens[k];
		bool ok;

		fill(key, 32, 4);
		fill(nonce, 12, 5);
		fill(ad, sizeof(ad), 6);
		fill(msg, n, 7);
		secret(key, 32);
		secret(nonce, 12);
		secret(ad, sizeof(ad));
		secret(msg, n);
		seal(ct, msg, n, ad, sizeof(ad), key, nonce);
		ok = open(back, ct, n + 16, ad, sizeof(ad), key, nonce);
		public_(&ok, sizeof(ok)); /* the verdict is the API's public result */
		public_(back, n);
		public_(msg, n);
		if (!ok || memcmp(back, msg, n)) {
			fprintf(stderr, "zinc_ct_x86: aead round trip failed at %zu\n", n);
			failures++;
		}
		/* A forgery: the wipe must not branch on the verdict either. */
		ct[0] ^= 1;
		ok = open(back, ct, n + 16, ad, sizeof(ad), key, nonce);
		public_(&ok, sizeof(ok));
		if (ok) {
			fprintf(stderr, "zinc_ct_x86: forgery accepted at %zu\n", n);
			failures++;
		}
	}
}

static void run_blake2s(zinc_blake2s_compress_fn fn)
{
	struct zinc_blake2s_state s;
	uint8_t msg[192];

	memset(&s, 0, sizeof(s));
	fill((uint8_t *)s.h, sizeof(s.h), 8);
	fill(msg, sizeof(msg), 9);
	secret(s.h, sizeof(s.h));
	secret(msg, sizeof(msg));
	fn(&s, msg, 3, 64);
}

static void run_poly(zinc_poly1305_blocks_fn fn)
{
	struct zinc_poly1305_ctx ctx;
	uint8_t key[32], msg[1024];

	fill(key, 32, 12);
	fill(msg, sizeof(msg), 13);
	secret(key, 32);
	secret(msg, sizeof(msg));
	zinc_poly1305_init(&ctx, key);
	fn(&ctx, msg, sizeof(msg) / 16, 1ULL << 40);
	fn(&ctx, msg, 1, 0);
}

static void run_x25519(zinc_x25519_fn fn)
{
	uint8_t scalar[32], point[32], out[32];

	fill(scalar, 32, 10);
	scalar[0] &= 248;
	scalar[31] = (uint8_t)((scalar[31] & 127) | 64);
	fill(point, 32, 11);
	secret(scalar, 32);
	secret(point, 32);
	fn(out, scalar, point);
}

static void run_x25519_base(zinc_x25519_base_fn fn)
{
	uint8_t scalar[32], out[32];

	fill(scalar, 32, 12);
	scalar[0] &= 248;
	scalar[31] = (uint8_t)((scalar[31] & 127) | 64);
	secret(scalar, 32);
	fn(out, scalar);
}

/* Four lanes of secret scalars and points, as the batch API hands them. */
static void run_x25519_x4(zinc_x25519_x8_fn fn)
{
	uint8_t scalar[4][32], point[4][32], out[4][32];

	fill((uint8_t *)scalar, sizeof(scalar), 14);
	fill((uint8_t *)point, sizeof(point), 15);
	for (int l = 0; l < 4; l++) {
		scalar[l][0] &= 248;
		scalar[l][31] = (uint8_t)((scalar[l][31] & 127) | 64);
	}
	secret(scalar, sizeof(scalar));
	secret(point, sizeof(point));
	fn(out, scalar, point);
}

struct kernel {
	const char *name;
	const char *feature;
	void (*run)(const struct kernel *k);
	zinc_chacha20_fn chacha;
	zinc_aead_seal_fn seal;
	zinc_aead_open_fn open;
	zinc_blake2s_compress_fn b2;
	zinc_x25519_fn x;
	zinc_x25519_base_fn xb;
	zinc_x25519_x8_fn x4;
	zinc_poly1305_blocks_fn poly;
};

static void run_k_chacha(const struct kernel *k)
{
	run_chacha(k->chacha);
}

static void run_k_aead(const struct kernel *k)
{
	run_aead(k->seal, k->open);
}

static void run_k_b2(const struct kernel *k)
{
	run_blake2s(k->b2);
}

static void run_k_poly(const struct kernel *k)
{
	run_poly(k->poly);
}

static void run_k_x(const struct kernel *k)
{
	run_x25519(k->x);
}

static void run_k_xb(const struct kernel *k)
{
	run_x25519_base(k->xb);
}

static void run_k_x4(const struct kernel *k)
{
	run_x25519_x4(k->x4);
}

static const struct kernel kernels[] = {
    {.name = "chacha20-ssse3",
     .feature = "ssse3",
     .run = run_k_chacha,
     .chacha = zinc_chacha20_ssse3},
    {.name = "chacha20-avx2", .feature = "avx2", .run = run_k_chacha, .chacha = zinc_chacha20_avx2},
    {.name = "aead-ssse3",
     .feature = "ssse3",
     .run = run_k_aead,
     .seal = zinc_aead_seal_ssse3,
     .open = zinc_aead_open_ssse3},
    {.name = "aead-avx2",
     .feature = "avx2",
     .run = run_k_aead,
     .seal = zinc_aead_seal_avx2,
     .open = zinc_aead_open_avx2},
    {.name = "blake2s-x86_64",
     .feature = "ssse3",
     .run = run_k_b2,
     .b2 = zinc_blake2s_compress_x86_64},
    {.name = "blake2s-ssse3",
     .feature = "ssse3",
     .run = run_k_b2,
     .b2 = zinc_blake2s_compress_ssse3},
    {.name = "blake2s-avx", .feature = "avx2", .run = run_k_b2, .b2 = zinc_blake2s_compress_avx},
    {.name = "x25519-bmi2-adx", .feature = "adx", .run = run_k_x, .x = zinc_x25519_bmi2_adx},
    {.name = "x25519-base-bmi2-adx",
     .feature = "adx",
     .run = run_k_xb,
     .xb = zinc_x25519_base_bmi2_adx},
    {.name = "x25519-x4-avx2", .feature = "avx2", .run = run_k_x4, .x4 = zinc_x25519_x4_avx2},
    {.name = "poly1305-x86_64",
     .feature = "ssse3",
     .run = run_k_poly,
     .poly = zinc_poly1305_blocks_x86_64},
    {.name = "poly1305-avx2",
     .feature = "avx2",
     .run = run_k_poly,
     .poly = zinc_poly1305_blocks_avx2},
};

/* ADX is not a __builtin_cpu_supports name in clang 14: read CPUID leaf 7
 * (EBX bit 8 BMI2, 19 ADX) directly. */
static bool cpu_bmi2_adx(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return (b & (1u << 8)) && (b & (1u << 19));
}

static bool cpu_can(const char *f)
{
	if (!strcmp(f, "ssse3"))
		return __builtin_cpu_supports("ssse3");
	if (!strcmp(f, "avx2"))
		return __builtin_cpu_supports("avx2");
	return cpu_bmi2_adx();
}

int main(int argc, char **argv)
{
	const size_t nk = sizeof(kernels) / sizeof(kernels[0]);

	if (argc > 1 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < nk; i++)
			if (cpu_can(kernels[i].feature))
				printf("%s\n", kernels[i].name);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--planted")) {
		uint8_t s[4] = {1, 2, 3, 4};

		secret(s, sizeof(s));
		if (s[2] == 3) /* deliberately secret-dependent */
			printf("planted branch taken\n");
		return 0;
	}
	for (int a = 1; a < argc; a++) {
		size_t i;

		for (i = 0; i < nk && strcmp(kernels[i].name, argv[a]); i++)
			;
		if (i == nk) {
			fprintf(stderr, "zinc_ct_x86: unknown kernel %s\n", argv[a]);
			return 2;
		}
		kernels[i].run(&kernels[i]);
		printf("checked %s\n", kernels[i].name);
	}
	printf("zinc_ct_x86: %d wrong results\n", failures);
	return failures ? 1 : 0;
}
