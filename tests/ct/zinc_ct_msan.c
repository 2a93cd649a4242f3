// SPDX-License-Identifier: MIT
/* Constant-time check of Zinc with MemorySanitizer as a taint tracker, so
 * that it also covers code Valgrind cannot execute (AVX-512, AVX-512 IFMA).
 * Built by tests/scripts/test_zinc_ct_msan.sh together with libzinc's
 * sources, all with -fsanitize=memory: secrets (keys, nonces, plaintexts,
 * associated data, ciphertexts, X25519 scalars and points, BLAKE2s keys and
 * messages) are poisoned, and MSan reports a poisoned value used as a branch
 * condition, a memory address or a divisor. Outputs are unpoisoned
 * (declassified) only where the driver looks at them; the AEAD open verdict
 * is the one secret-derived value unpoisoned right at the API boundary.
 *
 * Usage: zinc_ct_msan                 the dispatched primitives (ZINC_IMPL
 *                                     picks the path); prints the path and a
 *                                     digest of every output
 *        zinc_ct_msan --kernels       the x86-64 kernels called directly,
 *                                     including those the dispatch does not
 *                                     pick on this CPU; "not run" for those
 *                                     the CPU lacks
 *        zinc_ct_msan --available     the ZINC_IMPL paths this CPU can run
 *        zinc_ct_msan --planted-branch | --planted-index
 *                                     a deliberate secret-dependent branch /
 *                                     table index (must be reported) */
#include <cpuid.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/msan_interface.h>

#include <zinc/blake2s.h>
#include <zinc/chacha20.h>
#include <zinc/chacha20poly1305.h>
#include <zinc/curve25519.h>
#include <zinc/impl.h>
#include <zinc/poly1305.h>

#include "../../zinc/cpu.h"

#define MAXLEN 2100  /* every length 0..MAXLEN crosses every kernel width */
#define BIGLEN 70000 /* plus one large input */
#define SLACK 64     /* room for unaligned offsets and the tag */

static uint64_t digest = 0xcbf29ce484222325ULL;
static int failures;

/* Poisoned with an origin, so a report says where the secret came from. */
static void secret(const void *p, size_t n)
{
	__msan_allocated_memory(p, n);
}

static void declassify(const void *p, size_t n)
{
	__msan_unpoison(p, n);
}

/* Outputs go into the digest, compared across paths by the script. Every
 * byte must have been declassified: a poisoned byte here is a driver bug. */
static void absorb(const void *p, size_t n)
{
	const uint8_t *b = p;

	__msan_check_mem_is_initialized(p, n);
	for (size_t i = 0; i < n; i++) {
		digest ^= b[i];
		digest *= 0x100000001b3ULL;
	}
}

/* MSan propagates poison approximately, and an intrinsic or asm statement it
 * does not model may drop it (its result comes out clean), after which
 * nothing is checked. So each primitive also runs on a public input with a
 * secret key, and every output byte must come out still poisoned. */
static int taint_lost;

static void expect_tainted(const void *p, size_t n, const char *what)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		if (__msan_test_shadow(b + i, 1) < 0) {
			printf("taint lost: %s: output byte %zu of %zu is not poisoned\n", what, i,
			       n);
			taint_lost++;
			return;
		}
	}
}

/* Inline asm is not instrumented, and MSan reports every poisoned register
 * operand of an asm statement (the X25519 bmi2-adx cswap mask, the barriers
 * of the SIMD BLAKE2s kernels). Around calls into such code the run
 * keeps going after a report and the script sorts the reports by site;
 * everywhere else (MSAN_OPTIONS=halt_on_error=1) the first report ends it. */
static void asm_region(bool on)
{
	__msan_set_keep_going(on);
}

static void expect(bool cond, const char *what, size_t len)
{
	if (!cond) {
		fprintf(stderr, "zinc_ct_msan: wrong result: %s (len %zu)\n", what, len);
		failures++;
	}
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((seed + i) * 2654435761u >> 13);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

static uint8_t msg[BIGLEN + SLACK], ref[BIGLEN + SLACK], out[BIGLEN + SLACK], back[BIGLEN + SLACK];

/* Lengths: every one up to MAXLEN, then the large one. */
static size_t next_len(size_t len)
{
	return len < MAXLEN ? len + 1 : len == MAXLEN ? BIGLEN : 0;
}

/* ---- ChaCha20, XChaCha20, HChaCha20 ------------------------------------ */

static void run_chacha(void)
{
	uint8_t key[32], nonce[24], sub[32];
	size_t len = 0, k = 0;

	do {
		size_t so = k % 7, dof = (k / 7) % 5; /* unaligned source and destination */
		uint32_t ctr = (uint32_t)k * 3;

		fill(key, 32, (uint32_t)k);
		fill(nonce, 24, (uint32_t)k + 99);
		fill(ref, len, (uint32_t)k + 7);
		memcpy(msg + so, ref, len);
		secret(key, 32);
		secret(nonce, 24);
		secret(msg + so, len);

		zinc_chacha20(out + dof, msg + so, len, key, nonce, ctr);
		memcpy(back + so, out + dof, len);
		zinc_chacha20(back + so, back + so, len, key, nonce, ctr); /* in place */
		declassify(out + dof, len);
		absorb(out + dof, len);
		declassify(back + so, len);
		expect(memcmp(back + so, ref, len) == 0, "chacha20 round trip", len);

		zinc_xchacha20(out + so, msg + so, len, key, nonce, ctr);
		zinc_xchacha20(out + so, out + so, len, key, nonce, ctr);
		declassify(out + so, len);
		expect(memcmp(out + so, ref, len) == 0, "xchacha20 round trip", len);
		zinc_xchacha20(out + dof, msg + so, len, key, nonce, 0);
		declassify(out + dof, len);
		absorb(out + dof, len);

		if (len % 64 == 0) {
			zinc_hchacha20(sub, nonce, key);
			declassify(sub, 32);
			absorb(sub, 32);
		}
		len = next_len(len);
		k++;
	} while (len);
}

/* ---- Poly1305 ----------------------------------------------------------- */

static void run_poly1305(void)
{
	uint8_t key[32], mac[16], mac2[16];
	struct zinc_poly1305_ctx ctx;
	size_t len = 0, k = 0;

	do {
		size_t so = k % 9, a = len / 3, b = len / 2;

		fill(key, 32, (uint32_t)k + 5);
		fill(msg + so, len, (uint32_t)k + 11);
		secret(key, 32);
		secret(msg + so, len);

		zinc_poly1305(mac, msg + so, len, key);
		zinc_poly1305_init(&ctx, key);
		zinc_poly1305_update(&ctx, msg + so, a);
		zinc_poly1305_update(&ctx, msg + so + a, b - a);
		zinc_poly1305_update(&ctx, msg + so + b, len - b);
		zinc_poly1305_final(&ctx, mac2);
		declassify(mac, 16);
		declassify(mac2, 16);
		absorb(mac, 16);
		expect(memcmp(mac, mac2, 16) == 0, "poly1305 streaming == one-shot", len);
		len = next_len(len);
		k++;
	} while (len);
}

/* ---- AEADs -------------------------------------------------------------- */

typedef void (*seal_fn)(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			size_t ad_len, const uint8_t *nonce, const uint8_t *key);
typedef bool (*open_fn)(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			size_t ad_len, const uint8_t *nonce, const uint8_t *key);

/* The 64-bit WireGuard counter comes from the (secret) nonce bytes. */
static uint64_t le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void seal_wg(uint8_t *d, const uint8_t *s, size_t n, const uint8_t *ad, size_t an,
		    const uint8_t *nonce, const uint8_t *key)
{
	zinc_chacha20poly1305_encrypt(d, s, n, ad, an, le64(nonce), key);
}

static bool open_wg(uint8_t *d, const uint8_t *s, size_t n, const uint8_t *ad, size_t an,
		    const uint8_t *nonce, const uint8_t *key)
{
	return zinc_chacha20poly1305_decrypt(d, s, n, ad, an, le64(nonce), key);
}

static void seal_ietf(uint8_t *d, const uint8_t *s, size_t n, const uint8_t *ad, size_t an,
		      const uint8_t *nonce, const uint8_t *key)
{
	zinc_chacha20poly1305_ietf_encrypt(d, s, n, ad, an, nonce, key);
}

static bool open_ietf(uint8_t *d, const uint8_t *s, size_t n, const uint8_t *ad, size_t an,
		      const uint8_t *nonce, const uint8_t *key)
{
	return zinc_chacha20poly1305_ietf_decrypt(d, s, n, ad, an, nonce, key);
}

static void seal_x(uint8_t *d, const uint8_t *s, size_t n, const uint8_t *ad, size_t an,
		   const uint8_t *nonce, const uint8_t *key)
{
	zinc_xchacha20poly1305_encrypt(d, s, n, ad, an, nonce, key);
}

static bool open_x(uint8_t *d, const uint8_t *s, size_t n, const uint8_t *ad, size_t an,
		   const uint8_t *nonce, const uint8_t *key)
{
	return zinc_xchacha20poly1305_decrypt(d, s, n, ad, an, nonce, key);
}

/* The verdict is the one secret-derived value a caller may branch on. */
static bool verdict(bool ok)
{
	declassify(&ok, sizeof(ok));
	return ok;
}

/* seal, open (out of place and in place), open of a forged message. */
static void aead_one(const char *name, seal_fn seal, open_fn open, size_t len, size_t k)
{
	uint8_t key[32], nonce[24], ad[40];
	size_t so = k % 5, dof = (k / 5) % 7, an = k % 41;
	bool ok;

	fill(key, 32, (uint32_t)k + 21);
	fill(nonce, 24, (uint32_t)k + 22);
	fill(ad, an, (uint32_t)k + 23);
	fill(ref, len, (uint32_t)k + 24);
	memcpy(msg + so, ref, len);
	secret(key, 32);
	secret(nonce, 24);
	secret(ad, an);
	secret(msg + so, len);

	seal(out + dof, msg + so, len, ad, an, nonce, key);
	declassify(out + dof, len + 16);
	absorb(out + dof, len + 16);

	secret(out + dof, len + 16); /* nothing may depend on the ciphertext either */
	ok = verdict(open(back + so, out + dof, len + 16, ad, an, nonce, key));
	declassify(back + so, len);
	expect(ok && memcmp(back + so, ref, len) == 0, name, len);

	memcpy(back + dof, out + dof, len + 16);
	ok = verdict(open(back + dof, back + dof, len + 16, ad, an, nonce, key));
	declassify(back + dof, len);
	expect(ok && memcmp(back + dof, ref, len) == 0, name, len);

	/* Forged: one flipped bit (tag or body); all the work must be done anyway. */
	declassify(out + dof, len + 16);
	out[dof + (k * 131) % (len + 16)] ^= (uint8_t)(1u << (k % 8));
	secret(out + dof, len + 16);
	memset(back, 0xa5, len + SLACK);
	ok = verdict(open(back + so, out + dof, len + 16, ad, an, nonce, key));
	declassify(back + so, len);
	expect(!ok && all_zero(back + so, len), name, len);
}

static void run_aead(void)
{
	static const struct {
		const char *name;
		seal_fn seal;
		open_fn open;
	} aeads[] = {
	    {"chacha20poly1305 (64-bit nonce)", seal_wg, open_wg},
	    {"chacha20poly1305 (96-bit nonce)", seal_ietf, open_ietf},
	    {"xchacha20poly1305", seal_x, open_x},
	};
	size_t len = 0, k = 0;

	do {
		/* Every length with the WireGuard AEAD; the other two on a stride. */
		aead_one(aeads[0].name, aeads[0].seal, aeads[0].open, len, k);
		if (len % 5 == 0 || len > MAXLEN - 70)
			aead_one(aeads[1].name, aeads[1].seal, aeads[1].open, len, k);
		if (len % 7 == 0 || len > MAXLEN - 70)
			aead_one(aeads[2].name, aeads[2].seal, aeads[2].open, len, k);
		len = next_len(len);
		k++;
	} while (len);
}

/* ---- BLAKE2s, HMAC-BLAKE2s ---------------------------------------------- */

static void run_blake2s(void)
{
	static const size_t keylens[] = {0, 1, 16, 31, 32, 33, 64, 65, 100};
	uint8_t key[100], h[32];
	struct zinc_blake2s_state st;

	for (size_t len = 0; len <= 1100; len += len < 300 ? 1 : 67) {
		size_t keylen = 1 + len % 32, so = len % 3, outlen = 1 + (len * 7) % 32;

		fill(key, sizeof(key), (uint32_t)len + 1);
		fill(msg + so, len, (uint32_t)len + 2);
		secret(key, sizeof(key));
		secret(msg + so, len);
		zinc_blake2s(h, msg + so, key, outlen, len, keylen);
		declassify(h, outlen);
		absorb(h, outlen);

		zinc_blake2s_init_key(&st, 32, key, keylen);
		zinc_blake2s_update(&st, msg + so, len / 3);
		zinc_blake2s_update(&st, msg + so + len / 3, len - len / 3);
		zinc_blake2s_final(&st, h);
		declassify(h, 32);
		absorb(h, 32);

		/* Unkeyed over a secret message (e.g. the handshake hash). */
		zinc_blake2s(h, msg + so, NULL, 32, len, 0);
		declassify(h, 32);
		absorb(h, 32);

		if (len % 50 == 0) {
			for (size_t i = 0; i < sizeof(keylens) / sizeof(keylens[0]); i++) {
				secret(key, sizeof(key));
				zinc_blake2s_hmac(h, msg + so, key, len, keylens[i]);
				declassify(h, 32);
				absorb(h, 32);
			}
		}
	}
}

/* ---- X25519 ------------------------------------------------------------- */

static void run_x25519(bool x25519_asm)
{
	uint8_t scalar[32], point[32], pub[32], shared[32];
	bool ok;

	/* Few calls: on the bmi2-adx path the final cswap's mask is an
	 * inline-asm operand report (see the script); the ladder step reads
	 * its swap bit from memory. */
	asm_region(x25519_asm);
	for (int i = 0; i < 2; i++) {
		fill(scalar, 32, (uint32_t)i * 32 + 1);
		fill(point, 32, (uint32_t)i * 32 + 500);
		if (i == 1)
			memset(point, 0, 32); /* low order: the zero check must not branch early */
		secret(scalar, 32);
		secret(point, 32);
		ok = zinc_curve25519(shared, scalar, point);
		declassify(&ok, sizeof(ok)); /* the verdict is revealed, the secret is not */
		expect(ok == (i != 1), "x25519 verdict", 32);
		declassify(shared, 32);
		absorb(shared, 32);

		secret(scalar, 32);
		ok = zinc_curve25519_generate_public(pub, scalar);
		declassify(&ok, sizeof(ok));
		declassify(pub, 32);
		expect(ok, "x25519 public key", 32);
		absorb(pub, 32);

		secret(scalar, 32);
		zinc_curve25519_clamp_secret(scalar);
		declassify(scalar, 32);
		absorb(scalar, 32);
	}
	asm_region(false);
}

/* ---- taint reaches every output (public inputs, secret keys) ----------- */

static const size_t taint_lens[] = {1,	 16,  63,  64,	 65,   255,  256,  257,
				    511, 512, 513, 1023, 1024, 1025, 2100, BIGLEN};
#define N_TAINT_LENS (sizeof(taint_lens) / sizeof(taint_lens[0]))

static void run_taint(bool x25519_asm)
{
	uint8_t key[32], nonce[24], point[32], h[32], mac[16];
	bool ok;

	for (size_t i = 0; i < N_TAINT_LENS; i++) {
		size_t len = taint_lens[i];

		fill(key, 32, (uint32_t)len);
		fill(nonce, 24, (uint32_t)len + 1);
		fill(msg, len, (uint32_t)len + 2); /* public */
		secret(key, 32);
		zinc_chacha20(out, msg, len, key, nonce, 1);
		expect_tainted(out, len, "chacha20 keystream");
		zinc_xchacha20(out, msg, len, key, nonce, 1);
		expect_tainted(out, len, "xchacha20 keystream");
		zinc_poly1305(mac, msg, len, key);
		expect_tainted(mac, 16, "poly1305 tag");
		zinc_chacha20poly1305_encrypt(out, msg, len, NULL, 0, 5, key);
		expect_tainted(out, len + 16, "chacha20poly1305 seal");
		declassify(out, len + 16); /* a public ciphertext */
		ok = zinc_chacha20poly1305_decrypt(back, out, len + 16, NULL, 0, 5, key);
		expect_tainted(back, len, "chacha20poly1305 open");
		/* The verdict derives from the secret tag, but zinc_memeq folds it
		 * with a carry ((acc - 1) >> 8) and MSan does not propagate poison
		 * through carries: a branch on it inside Zinc would not be seen. */
		if (i == 0)
			printf("aead verdict inside zinc: %s\n",
			       __msan_test_shadow(&ok, sizeof(ok)) < 0
				   ? "unpoisoned (carry fold), branches on it are not checked"
				   : "poisoned");
		verdict(ok);
		zinc_xchacha20poly1305_encrypt(out, msg, len, msg, len % 50, nonce, key);
		expect_tainted(out, len + 16, "xchacha20poly1305 seal");
		zinc_blake2s(h, msg, key, 32, len, 32);
		expect_tainted(h, 32, "keyed blake2s");
		zinc_blake2s_hmac(h, msg, key, len, 32);
		expect_tainted(h, 32, "hmac-blake2s");
	}
	fill(key, 32, 77);
	fill(point, 32, 78);
	secret(key, 32);
	asm_region(x25519_asm);
	zinc_curve25519(h, key, point);
	asm_region(false);
	/* Memory written by inline asm keeps its old shadow. */
	if (x25519_asm)
		printf("x25519 bmi2-adx: field arithmetic is inline asm, poison not tracked "
		       "through it (output %s)\n",
		       __msan_test_shadow(h, 32) < 0 ? "clean" : "poisoned");
	else
		expect_tainted(h, 32, "x25519 shared secret");
}

/* ---- kernels called directly -------------------------------------------- */

/* clang 14's __builtin_cpu_supports does not know ADX. */
static bool cpuid7_ebx_bit(unsigned bit)
{
	unsigned a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> bit & 1);
}

static bool cpu_has(const char *what)
{
	if (!strcmp(what, "ssse3"))
		return __builtin_cpu_supports("ssse3");
	if (!strcmp(what, "avx"))
		return __builtin_cpu_supports("avx");
	if (!strcmp(what, "avx2"))
		return __builtin_cpu_supports("avx2");
	if (!strcmp(what, "avx512"))
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
	if (!strcmp(what, "ifma"))
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
		       __builtin_cpu_supports("avx512ifma");
	if (!strcmp(what, "bmi2-adx"))
		return __builtin_cpu_supports("bmi2") && cpuid7_ebx_bit(19); /* ADX */
	return false;
}

static int kernels_not_run;

static bool kernel_start(const char *name, const char *needs)
{
	if (!cpu_has(needs)) {
		printf("kernel %s: NOT RUN (CPU lacks %s)\n", name, needs);
		kernels_not_run++;
		return false;
	}
	printf("kernel %s\n", name);
	fflush(stdout);
	return true;
}

static void kernel_chacha(zinc_chacha20_fn fn)
{
	uint8_t key[32], nonce[12];

	for (size_t len = 0; len <= MAXLEN; len += len < 1100 ? 1 : 13) {
		uint32_t st[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

		fill(key, 32, (uint32_t)len);
		fill(nonce, 12, (uint32_t)len + 1);
		fill(msg + len % 5, len, (uint32_t)len + 2);
		memcpy(st + 4, key, 32);
		memcpy(st + 13, nonce, 12);
		st[12] = (uint32_t)len;
		secret(st + 4, 32);
		secret(st + 13, 12);
		secret(msg + len % 5, len);
		fn(st, out + len % 3, msg + len % 5, len);
		fn(st, out + len % 3, out + len % 3, len);
		declassify(out + len % 3, len);
		absorb(out + len % 3, len);
		if (len % 257 == 0) { /* public input: only the keystream poisons */
			memset(msg, 0, len);
			fn(st, out, msg, len);
			expect_tainted(out, len, "chacha20 kernel keystream");
		}
	}
}

static void kernel_aead(zinc_aead_seal_fn seal, zinc_aead_open_fn open)
{
	uint8_t key[32], nonce[12], ad[24];

	for (size_t len = 0; len <= MAXLEN; len += len < 1100 ? 1 : 11) {
		size_t an = len % 25;
		bool ok;

		fill(key, 32, (uint32_t)len + 3);
		fill(nonce, 12, (uint32_t)len + 4);
		fill(ad, an, (uint32_t)len + 5);
		fill(ref, len, (uint32_t)len + 6);
		memcpy(msg + 1, ref, len);
		secret(key, 32);
		secret(nonce, 12);
		secret(ad, an);
		secret(msg + 1, len);
		seal(out + 3, msg + 1, len, ad, an, key, nonce);
		ok = verdict(open(back, out + 3, len + 16, ad, an, key, nonce));
		declassify(back, len);
		expect(ok && memcmp(back, ref, len) == 0, "aead kernel", len);
		out[3 + len] ^= 1; /* forged tag (ciphertext stays secret) */
		ok = verdict(open(back, out + 3, len + 16, ad, an, key, nonce));
		declassify(back, len);
		expect(!ok && all_zero(back, len), "aead kernel forged", len);
		declassify(out + 3, len + 16);
		absorb(out + 3, len + 16);
		if (len % 257 == 0) {
			memset(msg, 0, len);
			seal(out, msg, len, ad, 0, key, nonce);
			expect_tainted(out, len + 16, "aead kernel seal");
			declassify(out, len + 16);
			verdict(open(back, out, len + 16, ad, 0, key, nonce));
			expect_tainted(back, len, "aead kernel open");
		}
	}
}

/* Streaming Poly1305 blocks: the state comes from zinc_poly1305_init. */
static void kernel_poly1305(zinc_poly1305_blocks_fn fn)
{
	struct zinc_poly1305_ctx ctx;
	uint8_t key[32];

	for (size_t nb = 0; nb <= 140; nb++) {
		fill(key, 32, (uint32_t)nb + 7);
		fill(msg + nb % 3, nb * 16, (uint32_t)nb + 8);
		secret(key, 32);
		secret(msg + nb % 3, nb * 16);
		zinc_poly1305_init(&ctx, key);
		fn(&ctx, msg + nb % 3, nb, 1ULL << 40);
		fn(&ctx, msg + nb % 3, nb ? 1 : 0, 0);
		declassify(ctx.h, sizeof(ctx.h));
		absorb(ctx.h, sizeof(ctx.h));
		if (nb % 17 == 1) { /* public message, secret r */
			memset(msg, 0, nb * 16);
			secret(key, 32);
			zinc_poly1305_init(&ctx, key);
			fn(&ctx, msg, nb, 1ULL << 40);
			/* Limbs are 44 bits: their top bytes are zero, hence clean. */
			for (int l = 0; l < 3; l++)
				expect_tainted(&ctx.h[l], 5, "poly1305 kernel");
		}
	}
	fn(&ctx, msg, BIGLEN / 16, 1ULL << 40);
	declassify(ctx.h, sizeof(ctx.h));
	absorb(ctx.h, sizeof(ctx.h));
}

/* The vector kernels pass a secret register through an empty asm barrier
 * in each half G: one report per site (see the script). */
static void kernel_blake2s(zinc_blake2s_compress_fn fn)
{
	struct zinc_blake2s_state st;
	uint8_t key[32];

	for (size_t nb = 1; nb <= 3; nb += 2) {
		fill(key, 32, (uint32_t)nb);
		fill(msg + nb, nb * 64, (uint32_t)nb + 1);
		secret(key, 32);
		secret(msg + nb, nb * 64);
		zinc_blake2s_init_key(&st, 32, key, 32);
		asm_region(true);
		fn(&st, msg + nb, nb, 64);
		declassify(st.h, sizeof(st.h));
		absorb(st.h, sizeof(st.h));
		memset(msg, 0, nb * 64); /* public message, secret chaining value */
		secret(st.h, sizeof(st.h));
		fn(&st, msg, nb, 64);
		asm_region(false);
		expect_tainted(st.h, sizeof(st.h), "blake2s kernel");
	}
}

static void kernel_x25519(zinc_x25519_fn fn)
{
	uint8_t scalar[32], point[32], r[32];

	for (int i = 0; i < 1; i++) {
		fill(scalar, 32, (uint32_t)i + 40);
		fill(point, 32, (uint32_t)i + 80);
		zinc_curve25519_clamp_secret(scalar);
		secret(scalar, 32);
		secret(point, 32);
		asm_region(true);
		fn(r, scalar, point);
		asm_region(false);
		declassify(r, 32);
		absorb(r, 32);
	}
}

static void kernel_x25519_base(zinc_x25519_base_fn fn)
{
	uint8_t scalar[32], r[32];

	fill(scalar, 32, 41);
	zinc_curve25519_clamp_secret(scalar);
	secret(scalar, 32);
	asm_region(true);
	fn(r, scalar);
	asm_region(false);
	declassify(r, 32);
	absorb(r, 32);
}

/* The batch kernels: eight IFMA or four AVX2 lanes. */
static void kernel_x25519_x8(zinc_x25519_x8_fn fn, int lanes, const char *what)
{
	uint8_t scalar[8][32], point[8][32], r[8][32];

	for (int l = 0; l < lanes; l++) {
		fill(scalar[l], 32, (uint32_t)l + 60);
		fill(point[l], 32, (uint32_t)l + 90);
		zinc_curve25519_clamp_secret(scalar[l]);
	}
	secret(scalar, sizeof(scalar));
	secret(point, sizeof(point));
	fn(r, scalar, point);
	expect_tainted(r, 32 * (size_t)lanes, what);
	declassify(r, sizeof(r));
	absorb(r[0], 32);
}

static void run_kernels(void)
{
	static const struct {
		const char *name, *needs;
		zinc_chacha20_fn fn;
	} chacha[] = {
	    {"chacha20_ssse3", "ssse3", zinc_chacha20_ssse3},
	    {"chacha20_avx2", "avx2", zinc_chacha20_avx2},
	    {"chacha20_avx512", "avx512", zinc_chacha20_avx512},
	};
	static const struct {
		const char *name, *needs;
		zinc_aead_seal_fn seal;
		zinc_aead_open_fn open;
	} aead[] = {
	    {"aead_ssse3", "ssse3", zinc_aead_seal_ssse3, zinc_aead_open_ssse3},
	    {"aead_avx2", "avx2", zinc_aead_seal_avx2, zinc_aead_open_avx2},
	    {"aead_avx512", "avx512", zinc_aead_seal_avx512, zinc_aead_open_avx512},
	    {"aead_avx512_ifma", "ifma", zinc_aead_seal_avx512_ifma, zinc_aead_open_avx512_ifma},
	};
	static const struct {
		const char *name, *needs;
		zinc_poly1305_blocks_fn fn;
	} poly[] = {
	    {"poly1305_x86_64", "ssse3", zinc_poly1305_blocks_x86_64},
	    {"poly1305_avx2", "avx2", zinc_poly1305_blocks_avx2},
	    {"poly1305_avx512", "avx512", zinc_poly1305_blocks_avx512},
	    {"poly1305_ifma", "ifma", zinc_poly1305_blocks_ifma},
	};
	static const struct {
		const char *name, *needs;
		zinc_blake2s_compress_fn fn;
	} b2s[] = {
	    {"blake2s_x86_64", "ssse3", zinc_blake2s_compress_x86_64},
	    {"blake2s_ssse3", "ssse3", zinc_blake2s_compress_ssse3},
	    {"blake2s_avx", "avx", zinc_blake2s_compress_avx},
	    {"blake2s_avx512", "avx512", zinc_blake2s_compress_avx512},
	};

	for (size_t i = 0; i < sizeof(chacha) / sizeof(chacha[0]); i++)
		if (kernel_start(chacha[i].name, chacha[i].needs))
			kernel_chacha(chacha[i].fn);
	for (size_t i = 0; i < sizeof(aead) / sizeof(aead[0]); i++)
		if (kernel_start(aead[i].name, aead[i].needs))
			kernel_aead(aead[i].seal, aead[i].open);
	for (size_t i = 0; i < sizeof(poly) / sizeof(poly[0]); i++)
		if (kernel_start(poly[i].name, poly[i].needs))
			kernel_poly1305(poly[i].fn);
	for (size_t i = 0; i < sizeof(b2s) / sizeof(b2s[0]); i++)
		if (kernel_start(b2s[i].name, b2s[i].needs))
			kernel_blake2s(b2s[i].fn);
	if (kernel_start("x25519_bmi2_adx", "bmi2-adx"))
		kernel_x25519(zinc_x25519_bmi2_adx);
	if (kernel_start("x25519_base_bmi2_adx", "bmi2-adx"))
		kernel_x25519_base(zinc_x25519_base_bmi2_adx);
	if (kernel_start("x25519_x8_ifma", "ifma"))
		kernel_x25519_x8(zinc_x25519_x8_ifma, 8, "x25519 x8 kernel");
	if (kernel_start("x25519_x4_avx2", "avx2"))
		kernel_x25519_x8(zinc_x25519_x4_avx2, 4, "x25519 x4 kernel");
}

/* ---- planted leaks (the script expects MSan to report them) ------------- */

static volatile uint8_t sink;

static __attribute__((noinline)) void planted_branch(void)
{
	uint8_t s = 0x5a;

	secret(&s, 1);
	if (s & 1) /* deliberately secret-dependent */
		sink = 1;
}

static __attribute__((noinline)) void planted_index(void)
{
	static volatile uint8_t table[256] = {1, 2, 3};
	uint8_t s = 2, r;

	secret(&s, 1);
	r = table[s];	   /* deliberately secret-indexed */
	declassify(&r, 1); /* so only the address can be reported */
	sink = r;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	/* MSan ends a run with reports by _exit: keep every line flushed. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "--available")) {
		printf("%s\n", zinc_impl_available());
		return 0;
	}
	if (!strcmp(mode, "--planted-branch")) {
		planted_branch();
		return 0;
	}
	if (!strcmp(mode, "--planted-index")) {
		planted_index();
		return 0;
	}
	if (!strcmp(mode, "--kernels")) {
		run_kernels();
		printf("kernels not run: %d\n", kernels_not_run);
	} else if (!*mode) {
		printf("impl: %s\n", zinc_impl_describe());
		fflush(stdout);
		run_taint(strstr(zinc_impl_describe(), "x25519=bmi2-adx") != NULL);
		run_chacha();
		run_poly1305();
		run_aead();
		run_blake2s();
		run_x25519(strstr(zinc_impl_describe(), "x25519=bmi2-adx") != NULL);
	} else {
		fprintf(stderr,
			"usage: zinc_ct_msan [--kernels|--planted-branch|--planted-index]\n");
		return 2;
	}
	printf("digest: %016llx\n", (unsigned long long)digest);
	printf("taint lost: %d\n", taint_lost);
	printf("wrong results: %d\n", failures);
	return failures || taint_lost ? 1 : 0;
}
