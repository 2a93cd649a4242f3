// SPDX-License-Identifier: MIT
/*
 * Zinc vs OpenSSL vs libsodium, side by side in one run: cycles per byte
 * (TSC ticks, median of many trials after warm-up) for the AEADs, ChaCha20,
 * Poly1305 and BLAKE2s at WireGuard-relevant sizes, and cycles per X25519.
 *
 * bench_zinc_current() measures whatever Zinc implementation this process
 * dispatches to (ZINC_IMPL in the environment picks one, zinc/cpu.h). For
 * the extra Zinc columns the program re-runs itself with ZINC_IMPL set to
 * each name in ZINC_BENCH_IMPLS (default: every path zinc_impl_available()
 * lists, e.g. "generic ssse3 avx2 avx512"; empty: none).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <sodium.h>

#include <zinc/impl.h>
#include <zinc/zinc.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t ticks(void)
{
	_mm_lfence();
	const uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}
#define TICK_UNIT "TSC cycles"
#else
static inline uint64_t ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define TICK_UNIT "ns"
#endif

enum prim {
	P_AEAD_SEAL,
	P_AEAD_OPEN,
	P_XAEAD_SEAL,
	P_CHACHA20,
	P_POLY1305,
	P_BLAKE2S,
	P_X25519,
	P_X25519_BASE,
	P_X25519_BATCH,
	P_COUNT,
};

static const char *const prim_name[P_COUNT] = {
    "ChaCha20-Poly1305 seal",
    "ChaCha20-Poly1305 open",
    "XChaCha20-Poly1305 seal",
    "ChaCha20",
    "Poly1305",
    "BLAKE2s-256",
    "X25519 (per op)",
    "X25519 public key",
    "X25519 batch of 8, /op",
};

static const size_t sizes[] = {64, 576, 1420, 16384};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXLEN 16384
#define TRIALS 101
#define TRIAL_TICKS 600000u
#define BATCH 8 /* X25519 batch row: eight independent operations per call */
/* a child's zinc_impl_describe() line, which names up to eight paths */
#define DESC_LEN 256

enum lib { L_ZINC, L_OPENSSL, L_SODIUM, L_COUNT };

struct ctx {
	enum prim prim;
	size_t len;
	uint8_t key[32], nonce12[12], nonce24[24], point[32];
	uint8_t *in, *out;
	uint8_t *sealed; /* valid ciphertext||tag of in, for the open benches */
	EVP_CIPHER_CTX *ossl_enc, *ossl_dec, *ossl_chacha;
	EVP_MAC_CTX *ossl_poly;
	EVP_MD_CTX *ossl_md;
	EVP_MD *blake2s_md;
	EVP_PKEY_CTX *ossl_x25519;
	int failures;
};

typedef void (*op_fn)(struct ctx *c);

/* ---- Zinc: whatever implementation this process dispatched to ---- */

static void zinc_op(struct ctx *c)
{
	switch (c->prim) {
	case P_AEAD_SEAL:
		zinc_chacha20poly1305_encrypt(c->out, c->in, c->len, NULL, 0, 1, c->key);
		break;
	case P_AEAD_OPEN:
		c->failures += !zinc_chacha20poly1305_decrypt(c->out, c->sealed, c->len + 16, NULL,
							      0, 1, c->key);
		break;
	case P_XAEAD_SEAL:
		zinc_xchacha20poly1305_encrypt(c->out, c->in, c->len, NULL, 0, c->nonce24, c->key);
		break;
	case P_CHACHA20:
		zinc_chacha20(c->out, c->in, c->len, c->key, c->nonce12, 0);
		break;
	case P_POLY1305:
		zinc_poly1305(c->out, c->in, c->len, c->key);
		break;
	case P_BLAKE2S:
		zinc_blake2s(c->out, c->in, NULL, 32, c->len, 0);
		break;
	case P_X25519:
		c->failures += !zinc_curve25519(c->out, c->key, c->point);
		break;
	case P_X25519_BASE:
		c->failures += !zinc_curve25519_generate_public(c->out, c->key);
		break;
	case P_X25519_BATCH: {
		uint8_t *out[BATCH];
		const uint8_t *sec[BATCH], *pt[BATCH];

		for (int i = 0; i < BATCH; i++) {
			out[i] = c->out + 32 * i;
			sec[i] = c->key;
			pt[i] = c->point;
		}
		c->failures += zinc_curve25519_batch(BATCH, out, sec, pt, NULL) != BATCH;
		break;
	}
	default:
		break;
	}
}

/* ---- OpenSSL 3 (EVP, contexts set up once, per-op nonce/key) ---- */

static void ossl_op(struct ctx *c)
{
	int n = 0, n2 = 0;
	size_t sz = 32;

	switch (c->prim) {
	case P_AEAD_SEAL:
		c->failures +=
		    EVP_EncryptInit_ex(c->ossl_enc, NULL, NULL, NULL, c->nonce12) != 1 ||
		    EVP_EncryptUpdate(c->ossl_enc, c->out, &n, c->in, (int)c->len) != 1 ||
		    EVP_EncryptFinal_ex(c->ossl_enc, c->out + n, &n2) != 1 ||
		    EVP_CIPHER_CTX_ctrl(c->ossl_enc, EVP_CTRL_AEAD_GET_TAG, 16, c->out + c->len) !=
			1;
		break;
	case P_AEAD_OPEN:
		c->failures +=
		    EVP_DecryptInit_ex(c->ossl_dec, NULL, NULL, NULL, c->nonce12) != 1 ||
		    EVP_CIPHER_CTX_ctrl(c->ossl_dec, EVP_CTRL_AEAD_SET_TAG, 16,
					c->sealed + c->len) != 1 ||
		    EVP_DecryptUpdate(c->ossl_dec, c->out, &n, c->sealed, (int)c->len) != 1 ||
		    EVP_DecryptFinal_ex(c->ossl_dec, c->out + n, &n2) != 1;
		break;
	case P_CHACHA20: {
		uint8_t iv[16] = {0}; /* 32-bit counter 0, then the 96-bit nonce */

		memcpy(iv + 4, c->nonce12, 12);
		c->failures +=
		    EVP_EncryptInit_ex(c->ossl_chacha, NULL, NULL, NULL, iv) != 1 ||
		    EVP_EncryptUpdate(c->ossl_chacha, c->out, &n, c->in, (int)c->len) != 1;
		break;
	}
	case P_POLY1305:
		c->failures += EVP_MAC_init(c->ossl_poly, c->key, 32, NULL) != 1 ||
			       EVP_MAC_update(c->ossl_poly, c->in, c->len) != 1 ||
			       EVP_MAC_final(c->ossl_poly, c->out, &sz, 16) != 1;
		break;
	case P_BLAKE2S:
		c->failures += EVP_DigestInit_ex(c->ossl_md, c->blake2s_md, NULL) != 1 ||
			       EVP_DigestUpdate(c->ossl_md, c->in, c->len) != 1 ||
			       EVP_DigestFinal_ex(c->ossl_md, c->out, NULL) != 1;
		break;
	case P_X25519:
	case P_X25519_BATCH: /* no batch API: its single operation */
		c->failures += EVP_PKEY_derive(c->ossl_x25519, c->out, &sz) != 1;
		break;
	case P_X25519_BASE: {
		/* OpenSSL computes the public key as it takes the private one */
		EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, c->key, 32);

		c->failures += !k || EVP_PKEY_get_raw_public_key(k, c->out, &sz) != 1;
		EVP_PKEY_free(k);
		break;
	}
	default:
		break;
	}
}

static bool ossl_has(enum prim p)
{
	return p != P_XAEAD_SEAL;
}

/* ---- libsodium ---- */

static void sodium_op(struct ctx *c)
{
	unsigned long long outlen;

	switch (c->prim) {
	case P_AEAD_SEAL:
		crypto_aead_chacha20poly1305_ietf_encrypt(c->out, &outlen, c->in, c->len, NULL, 0,
							  NULL, c->nonce12, c->key);
		break;
	case P_AEAD_OPEN:
		c->failures += crypto_aead_chacha20poly1305_ietf_decrypt(
				   c->out, &outlen, NULL, c->sealed, c->len + 16, NULL, 0,
				   c->nonce12, c->key) != 0;
		break;
	case P_XAEAD_SEAL:
		crypto_aead_xchacha20poly1305_ietf_encrypt(c->out, &outlen, c->in, c->len, NULL, 0,
							   NULL, c->nonce24, c->key);
		break;
	case P_CHACHA20:
		crypto_stream_chacha20_ietf_xor(c->out, c->in, c->len, c->nonce12, c->key);
		break;
	case P_POLY1305:
		crypto_onetimeauth_poly1305(c->out, c->in, c->len, c->key);
		break;
	case P_X25519:
	case P_X25519_BATCH: /* no batch API: its single operation */
		c->failures += crypto_scalarmult(c->out, c->key, c->point) != 0;
		break;
	case P_X25519_BASE:
		c->failures += crypto_scalarmult_base(c->out, c->key) != 0;
		break;
	default:
		break;
	}
}

static bool sodium_has(enum prim p)
{
	return p != P_BLAKE2S;
}

/* ---- measurement ---- */

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median over TRIALS of ticks per op, each trial long enough to amortise
 * the timer; warm-up first so caches, branch predictors and clocks settle. */
static double measure(op_fn op, struct ctx *c)
{
	double per_op[TRIALS];
	uint64_t t0, one = UINT64_MAX;
	unsigned reps, i, r;

	for (i = 0; i < 20; i++) {
		t0 = ticks();
		op(c);
		t0 = ticks() - t0;
		if (t0 < one)
			one = t0;
	}
	reps = (unsigned)(TRIAL_TICKS / (one ? one : 1));
	if (reps < 1)
		reps = 1;
	for (i = 0; i < TRIALS; i++) {
		t0 = ticks();
		for (r = 0; r < reps; r++)
			op(c);
		per_op[i] = (double)(ticks() - t0) / reps;
	}
	qsort(per_op, TRIALS, sizeof(per_op[0]), cmp_double);
	return per_op[TRIALS / 2];
}

/* Result per byte (per op for X25519; the batch row per operation of a batch of 8, the
 * rivals their single operation); NAN when a library lacks the primitive. */
static double run_cell(enum lib lib, enum prim p, size_t len, struct ctx *c)
{
	static const op_fn ops[L_COUNT] = {zinc_op, ossl_op, sodium_op};
	double t;

	if ((lib == L_OPENSSL && !ossl_has(p)) || (lib == L_SODIUM && !sodium_has(p)))
		return NAN;
	c->prim = p;
	c->len = len;
	t = measure(ops[lib], c);
	if (lib == L_ZINC && p == P_X25519_BATCH)
		t /= BATCH;
	return p >= P_X25519 ? t : t / (double)len;
}

static void ctx_init(struct ctx *c)
{
	EVP_PKEY *priv, *peer;

	memset(c, 0, sizeof(*c));
	c->in = calloc(1, MAXLEN + 64);
	c->out = calloc(1, MAXLEN + 64);
	c->sealed = calloc(1, MAXLEN + 64);
	if (!c->in || !c->out || !c->sealed)
		abort();
	for (size_t i = 0; i < MAXLEN; i++)
		c->in[i] = (uint8_t)(i * 7 + 1);
	for (int i = 0; i < 32; i++)
		c->key[i] = (uint8_t)(i + 1);
	/* WireGuard's nonce: 4 zero bytes then le64(1), matching zinc_op's counter 1. */
	c->nonce12[4] = 1;
	for (int i = 0; i < 24; i++)
		c->nonce24[i] = (uint8_t)(0x40 + i);
	if (!zinc_curve25519_generate_public(c->point, c->key))
		abort();

	c->ossl_enc = EVP_CIPHER_CTX_new();
	c->ossl_dec = EVP_CIPHER_CTX_new();
	c->ossl_chacha = EVP_CIPHER_CTX_new();
	if (EVP_EncryptInit_ex(c->ossl_enc, EVP_chacha20_poly1305(), NULL, c->key, c->nonce12) !=
		1 ||
	    EVP_DecryptInit_ex(c->ossl_dec, EVP_chacha20_poly1305(), NULL, c->key, c->nonce12) !=
		1 ||
	    EVP_EncryptInit_ex(c->ossl_chacha, EVP_chacha20(), NULL, c->key, NULL) != 1)
		abort();
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	c->ossl_poly = mac ? EVP_MAC_CTX_new(mac) : NULL;
	EVP_MAC_free(mac);
	c->ossl_md = EVP_MD_CTX_new();
	c->blake2s_md = EVP_MD_fetch(NULL, "BLAKE2S-256", NULL);
	priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, c->key, 32);
	peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, c->point, 32);
	c->ossl_x25519 = priv ? EVP_PKEY_CTX_new(priv, NULL) : NULL;
	if (!c->ossl_poly || !c->ossl_md || !c->blake2s_md || !c->ossl_x25519 ||
	    EVP_PKEY_derive_init(c->ossl_x25519) != 1 ||
	    EVP_PKEY_derive_set_peer(c->ossl_x25519, peer) != 1)
		abort();
	EVP_PKEY_free(priv);
	EVP_PKEY_free(peer);
}

static void ctx_free(struct ctx *c)
{
	EVP_CIPHER_CTX_free(c->ossl_enc);
	EVP_CIPHER_CTX_free(c->ossl_dec);
	EVP_CIPHER_CTX_free(c->ossl_chacha);
	EVP_MAC_CTX_free(c->ossl_poly);
	EVP_MD_CTX_free(c->ossl_md);
	EVP_MD_free(c->blake2s_md);
	EVP_PKEY_CTX_free(c->ossl_x25519);
	free(c->in);
	free(c->out);
	free(c->sealed);
}

/* Rows: each primitive at each size (the three X25519 rows once). */
#define NROWS ((int)((P_COUNT - 3) * NSIZES + 3))

static void row_of(int row, enum prim *p, size_t *len)
{
	if (row >= NROWS - 3) {
		*p = (enum prim)(P_X25519 + (row - (NROWS - 3)));
		*len = 32;
		return;
	}
	*p = (enum prim)(row / (int)NSIZES);
	*len = sizes[row % NSIZES];
}

/* Measures every row with the Zinc implementation this process uses. */
static void bench_zinc_current(struct ctx *c, double out[NROWS])
{
	for (int row = 0; row < NROWS; row++) {
		enum prim p;
		size_t len;

		row_of(row, &p, &len);
		if (p == P_AEAD_OPEN)
			zinc_chacha20poly1305_encrypt(c->sealed, c->in, len, NULL, 0, 1, c->key);
		out[row] = run_cell(L_ZINC, p, len, c);
	}
}

static const char *current_label(void)
{
	const char *impl = getenv("ZINC_IMPL");

	return impl && *impl ? impl : "auto";
}

/* Runs this program again with ZINC_IMPL=impl in child mode; false on error. */
static bool bench_zinc_other(const char *impl, double out[NROWS], char *desc, size_t desc_len)
{
	char cmd[256];
	FILE *f;
	int n = 0;

	if (strlen(impl) > 32 ||
	    strspn(impl, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(impl))
		return false;
	snprintf(cmd, sizeof(cmd), "ZINC_IMPL=%s ZINC_BENCH_CHILD=1 /proc/%ld/exe", impl,
		 (long)getpid());
	f = popen(cmd, "r");
	if (!f)
		return false;
	/* First line: the child's zinc_impl_describe(). */
	if (!fgets(desc, (int)desc_len, f))
		desc[0] = '\0';
	desc[strcspn(desc, "\n")] = '\0';
	while (n < NROWS && fscanf(f, "%lf", &out[n]) == 1)
		n++;
	return pclose(f) == 0 && n == NROWS;
}

/* printf pads by bytes; the em dash is 3 bytes but one column wide. */
static void print_num(double v, int width)
{
	if (isnan(v))
		printf("  %*s", width + 2, "\u2014");
	else if (v >= 1000)
		printf("  %*.0f", width, v);
	else
		printf("  %*.2f", width, v);
}

static void run_extra_impls(double extra[][NROWS], const char *names[], char descs[][DESC_LEN],
			    int *nextra, int max, int *failures)
{
	const char *impls = getenv("ZINC_BENCH_IMPLS");
	char buf[128], *tok, *save = NULL;

	/* Default: every path this CPU has, so each kernel is measured. */
	snprintf(buf, sizeof(buf), "%s", impls ? impls : zinc_impl_available());
	for (tok = strtok_r(buf, ", ", &save); tok && *nextra < max;
	     tok = strtok_r(NULL, ", ", &save)) {
		if (!strcmp(tok, current_label()))
			continue;
		if (!bench_zinc_other(tok, extra[*nextra], descs[*nextra], sizeof(descs[0]))) {
			fprintf(stderr, "bench_zinc: ZINC_IMPL=%s run failed\n", tok);
			(*failures)++;
			continue;
		}
		names[(*nextra)++] = strdup(tok);
	}
}

int main(void)
{
	static double res[L_COUNT][NROWS];
	double extra[4][NROWS];
	const char *extra_name[4];
	char extra_desc[4][DESC_LEN];
	int nextra = 0;
	struct ctx c;
	uint64_t t_start = ticks();
	struct timespec w0, w1;

	clock_gettime(CLOCK_MONOTONIC, &w0);
	if (sodium_init() < 0)
		return 1;
	ctx_init(&c);

	if (getenv("ZINC_BENCH_CHILD")) {
		printf("%s\n", zinc_impl_describe());
		bench_zinc_current(&c, res[L_ZINC]);
		for (int row = 0; row < NROWS; row++)
			printf("%.4f\n", res[L_ZINC][row]);
		ctx_free(&c);
		return c.failures ? 1 : 0;
	}

	/* Zinc and its rivals are measured back to back per row, three times, keeping
	 * each one's better median: a burst of load on this (shared) machine
	 * then skews one round, not the ratio. */
	for (int row = 0; row < NROWS; row++) {
		enum prim p;
		size_t len;

		row_of(row, &p, &len);
		if (p == P_AEAD_OPEN)
			zinc_chacha20poly1305_encrypt(c.sealed, c.in, len, NULL, 0, 1, c.key);
		for (int round = 0; round < 3; round++) {
			for (int lib = 0; lib < L_COUNT; lib++) {
				const double t = run_cell((enum lib)lib, p, len, &c);

				if (!round || t < res[lib][row])
					res[lib][row] = t;
			}
		}
	}

	run_extra_impls(extra, extra_name, extra_desc, &nextra, 4, &c.failures);

	printf("Zinc vs OpenSSL %s vs libsodium %s: %s per byte (X25519: per operation),\n",
	       OpenSSL_version(OPENSSL_VERSION_STRING), sodium_version_string(), TICK_UNIT);
	printf("median of %d trials after warm-up; lower is better. zinc[%s] = this process's\n",
	       TRIALS, current_label());
	printf("Zinc (ZINC_IMPL); other zinc[...] columns re-run with ZINC_IMPL set. \u2014 = not "
	       "offered.\n");
	printf("  zinc[%s]: %s\n", current_label(), zinc_impl_describe());
	for (int e = 0; e < nextra; e++)
		printf("  zinc[%s]: %s\n", extra_name[e], extra_desc[e]);
	printf("\n");
	printf("%-24s %6s", "primitive", "bytes");
	{
		char h[40];

		snprintf(h, sizeof(h), "zinc[%s]", current_label());
		printf("  %13s", h);
		for (int e = 0; e < nextra; e++) {
			snprintf(h, sizeof(h), "zinc[%s]", extra_name[e]);
			printf("  %13s", h);
		}
	}
	printf("  %10s  %10s  %11s  %11s\n", "openssl", "libsodium", "zinc/ossl", "zinc/sodium");
	for (int row = 0; row < NROWS; row++) {
		enum prim p;
		size_t len;
		const double z = res[L_ZINC][row], o = res[L_OPENSSL][row], s = res[L_SODIUM][row];

		row_of(row, &p, &len);
		printf("%-24s %6zu", prim_name[p], p >= P_X25519 ? (size_t)32 : len);
		print_num(z, 13);
		for (int e = 0; e < nextra; e++)
			print_num(extra[e][row], 13);
		print_num(o, 10);
		print_num(s, 10);
		print_num(isnan(o) ? NAN : z / o, 11);
		print_num(isnan(s) ? NAN : z / s, 11);
		printf("\n");
	}
	clock_gettime(CLOCK_MONOTONIC, &w1);
	printf("\n%.1f s wall, %.2e %s\n",
	       (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9,
	       (double)(ticks() - t_start), TICK_UNIT);
	if (c.failures)
		fprintf(stderr, "bench_zinc: %d operations failed\n", c.failures);
	ctx_free(&c);
	return c.failures ? 1 : 0;
}
