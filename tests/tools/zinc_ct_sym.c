/* Constant-time check of Zinc's symmetric primitives under Valgrind memcheck:
 * keys, plaintexts and nonces are marked undefined, so any branch or memory
 * index that depends on them is reported as a use of uninitialised data.
 * The only place a secret-derived value is made defined is the AEAD decrypt
 * verdict, right where the caller branches on it (the boundary of the API).
 * Outputs are made defined only to check that they are right.
 *
 * Usage: zinc_ct_sym             run every primitive; exit 0 when outputs are right
 *        zinc_ct_sym --planted   branch on a secret byte on purpose (the test
 *                                script expects Valgrind to report it) */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include <zinc/blake2s.h>
#include <zinc/chacha20.h>
#include <zinc/chacha20poly1305.h>
#include <zinc/poly1305.h>

#define LEN 300 /* several blocks plus a partial one */

static int failures;

static void secret(void *p, size_t n)
{
	VALGRIND_MAKE_MEM_UNDEFINED(p, n);
}

static void public_(void *p, size_t n)
{
	VALGRIND_MAKE_MEM_DEFINED(p, n);
}

static void expect(bool cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "zinc_ct_sym: wrong result: %s\n", what);
		failures++;
	}
}

static void fill(uint8_t *p, size_t n, uint8_t start)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(start + 13 * i);
}

static void check_stream(void)
{
	uint8_t key[32], nonce[24], msg[LEN], a[LEN], b[LEN], sub[32];
	struct zinc_poly1305_ctx ctx;
	uint8_t mac[16], mac2[16];

	fill(key, sizeof(key), 1);
	fill(nonce, sizeof(nonce), 2);
	fill(msg, sizeof(msg), 3);
	secret(key, sizeof(key));
	secret(nonce, sizeof(nonce));
	secret(msg, sizeof(msg));

	zinc_chacha20(a, msg, LEN, key, nonce, 7);
	zinc_chacha20(b, a, LEN, key, nonce, 7);
	public_(b, sizeof(b));
	secret(b, sizeof(b));
	zinc_hchacha20(sub, nonce, key);
	zinc_xchacha20(a, msg, LEN, key, nonce, 1);
	zinc_xchacha20(a, a, LEN, key, nonce, 1); /* in place, back to msg */

	zinc_poly1305(mac, msg, LEN, key);
	zinc_poly1305_init(&ctx, key);
	zinc_poly1305_update(&ctx, msg, 5);
	zinc_poly1305_update(&ctx, msg + 5, LEN - 5);
	zinc_poly1305_final(&ctx, mac2);

	/* Declassify outputs only to check them. */
	public_(msg, sizeof(msg));
	public_(a, sizeof(a));
	public_(mac, sizeof(mac));
	public_(mac2, sizeof(mac2));
	expect(memcmp(a, msg, LEN) == 0, "xchacha20 round trip");
	expect(memcmp(mac, mac2, 16) == 0, "poly1305 streaming == one-shot");
}

/* BLAKE2s of a secret message under a secret key (keyed runs of HMAC are
 * in zinc_ct_asym): the one-shot path (whole blocks straight from the
 * input, a padded copy of a partial last block, the key block first) and
 * the streaming path, at lengths around the block size, unkeyed and keyed;
 * the two digests must agree. */
static void check_blake2s(void)
{
	static const size_t lens[] = {0, 1, 63, 64, 65, 128, 129, LEN};
	static const size_t keylens[] = {0, 1, 32};
	struct zinc_blake2s_state st;
	uint8_t key[32], msg[LEN], a[32], b[32];

	fill(key, sizeof(key), 9);
	fill(msg, sizeof(msg), 8);
	for (size_t k = 0; k < sizeof(keylens) / sizeof(keylens[0]); k++) {
		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			const size_t n = lens[i], kl = keylens[k];

			secret(key, sizeof(key));
			secret(msg, sizeof(msg));
			zinc_blake2s(a, msg, key, 32, n, kl);
			zinc_blake2s_init_key(&st, 32, key, kl);
			zinc_blake2s_update(&st, msg, n / 3);
			zinc_blake2s_update(&st, msg + n / 3, n - n / 3);
			zinc_blake2s_final(&st, b);
			public_(a, sizeof(a));
			public_(b, sizeof(b));
			expect(memcmp(a, b, 32) == 0, "blake2s one-shot == streaming");
		}
	}
}

typedef void (*seal_fn)(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			size_t ad_len, const uint8_t *nonce, const uint8_t *key);
typedef bool (*open_fn)(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			size_t ad_len, const uint8_t *nonce, const uint8_t *key);

static uint64_t wg_nonce(const uint8_t *nonce)
{
	uint64_t v;

	memcpy(&v, nonce, sizeof(v));
	return v;
}

static void seal_wg(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad, size_t ad_len,
		    const uint8_t *nonce, const uint8_t *key)
{
	zinc_chacha20poly1305_encrypt(dst, src, len, ad, ad_len, wg_nonce(nonce), key);
}

static bool open_wg(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad, size_t ad_len,
		    const uint8_t *nonce, const uint8_t *key)
{
	return zinc_chacha20poly1305_decrypt(dst, src, len, ad, ad_len, wg_nonce(nonce), key);
}

static void seal_x(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad, size_t ad_len,
		   const uint8_t *nonce, const uint8_t *key)
{
	zinc_xchacha20poly1305_encrypt(dst, src, len, ad, ad_len, nonce, key);
}

static bool open_x(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad, size_t ad_len,
		   const uint8_t *nonce, const uint8_t *key)
{
	return zinc_xchacha20poly1305_decrypt(dst, src, len, ad, ad_len, nonce, key);
}

static void seal_ietf(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
		      size_t ad_len, const uint8_t *nonce, const uint8_t *key)
{
	zinc_chacha20poly1305_ietf_encrypt(dst, src, len, ad, ad_len, nonce, key);
}

static bool open_ietf(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
		      size_t ad_len, const uint8_t *nonce, const uint8_t *key)
{
	return zinc_chacha20poly1305_ietf_decrypt(dst, src, len, ad, ad_len, nonce, key);
}

/* The verdict is the one secret-derived value callers may branch on. */
static bool verdict(bool ok)
{
	public_(&ok, sizeof(ok));
	return ok;
}

static void check_aead(const char *name, seal_fn seal, open_fn open)
{
	uint8_t key[32], nonce[24], ad[21], msg[LEN], ct[LEN + 16], pt[LEN + 16];
	bool ok;

	fill(key, sizeof(key), 4);
	fill(nonce, sizeof(nonce), 5);
	fill(ad, sizeof(ad), 6);
	fill(msg, sizeof(msg), 7);
	secret(key, sizeof(key));
	secret(nonce, sizeof(nonce));
	secret(msg, sizeof(msg));
	secret(ad, sizeof(ad));

	seal(ct, msg, LEN, ad, sizeof(ad), nonce, key);

	/* A genuine message: out of place, then in place. */
	ok = verdict(open(pt, ct, LEN + 16, ad, sizeof(ad), nonce, key));
	expect(ok, name);
	if (ok) {
		public_(pt, LEN);
		public_(msg, LEN);
		expect(memcmp(pt, msg, LEN) == 0, name);
		secret(msg, sizeof(msg));
	}
	memcpy(pt, ct, LEN + 16);
	ok = verdict(open(pt, pt, LEN + 16, ad, sizeof(ad), nonce, key));
	expect(ok, name);

	/* A forged one: the work done must not depend on the secret either. */
	ct[LEN + 3] ^= 0x20;
	ok = verdict(open(pt, ct, LEN + 16, ad, sizeof(ad), nonce, key));
	expect(!ok, name);
	public_(pt, LEN);
	for (size_t i = 0; i < LEN; i++)
		if (pt[i]) {
			expect(false, "forged message leaves dst zeroed");
			break;
		}
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--planted") == 0) {
		uint8_t s = 1;

		secret(&s, 1);
		if (s & 1) /* deliberately secret-dependent */
			puts("planted branch taken");
		return 0;
	}
	if (!RUNNING_ON_VALGRIND)
		fprintf(stderr, "zinc_ct_sym: not under valgrind: checking results only\n");
	check_stream();
	check_blake2s();
	check_aead("chacha20poly1305 (64-bit nonce)", seal_wg, open_wg);
	check_aead("chacha20poly1305 (96-bit nonce)", seal_ietf, open_ietf);
	check_aead("xchacha20poly1305", seal_x, open_x);
	printf("zinc_ct_sym: %d wrong results\n", failures);
	return failures ? 1 : 0;
}
