/* Poly1305: RFC 8439 known answers, streaming with random split points equal
 * to the one-shot tag, and agreement with libsodium on random and on
 * carry-stressing inputs (all-ones messages and keys). */
#include <stdint.h>

#include <sodium.h>

#include <zinc/poly1305.h>

#include "rfc_chacha_vectors.h"
#include "test.h"

static void test_rfc(void)
{
	for (size_t i = 0; i < rfc_poly1305_count; i++) {
		const struct rfc_poly1305 *v = &rfc_poly1305[i];
		struct zinc_poly1305_ctx ctx;
		uint8_t mac[16];

		CHECK(v->key_len == 32 && v->tag_len == 16);
		zinc_poly1305(mac, v->msg, v->msg_len, v->key);
		CHECK_MEM(mac, v->tag, 16, v->ref);

		/* Byte by byte through the streaming API. */
		zinc_poly1305_init(&ctx, v->key);
		for (size_t j = 0; j < v->msg_len; j++)
			zinc_poly1305_update(&ctx, v->msg + j, 1);
		zinc_poly1305_final(&ctx, mac);
		CHECK_MEM(mac, v->tag, 16, v->ref);
	}
	CHECK(rfc_poly1305_count == 12);
}

static void test_streaming_splits(void)
{
	uint64_t seed = 0x5eed0101;
	static uint8_t msg[3000];
	uint8_t key[32], one[16], streamed[16];

	for (int iter = 0; iter < 500; iter++) {
		size_t len = test_rand64(&seed) % sizeof(msg);
		struct zinc_poly1305_ctx ctx;
		size_t pos = 0;

		test_randbytes(&seed, key, sizeof(key));
		test_randbytes(&seed, msg, len);
		zinc_poly1305(one, msg, len, key);

		zinc_poly1305_init(&ctx, key);
		while (pos < len) {
			/* Mostly short pieces, sometimes long ones. */
			size_t n = test_rand64(&seed) & 1 ? test_rand64(&seed) % 40
							  : test_rand64(&seed) % 700;
			if (n > len - pos)
				n = len - pos;
			zinc_poly1305_update(&ctx, msg + pos, n);
			pos += n;
		}
		zinc_poly1305_update(&ctx, NULL, 0);
		zinc_poly1305_final(&ctx, streamed);
		CHECK_MEM(streamed, one, 16, "streaming == one-shot");
	}
}

static void test_vs_libsodium(void)
{
	uint64_t seed = 0x5eed0102;
	static uint8_t msg[4200];
	uint8_t key[32], a[16], b[16];

	for (int iter = 0; iter < 1500; iter++) {
		size_t len = iter < 300 ? (size_t)iter : test_rand64(&seed) % sizeof(msg);
		int kind = (int)(test_rand64(&seed) % 4);

		test_randbytes(&seed, key, sizeof(key));
		test_randbytes(&seed, msg, len);
		if (kind == 1) /* all-ones message: maximal limbs every block */
			memset(msg, 0xff, len);
		if (kind == 2) /* r and s all ones (r is clamped inside) */
			memset(key, 0xff, sizeof(key));
		if (kind == 3) { /* both, so h lands near 2^130 - 5 */
			memset(msg, 0xff, len);
			memset(key, 0xff, sizeof(key));
		}
		zinc_poly1305(a, msg, len, key);
		crypto_onetimeauth_poly1305(b, msg, len, key);
		CHECK_MEM(a, b, 16, "poly1305 vs libsodium");
	}
}

/* Final reduction edges, worked by hand: with r = 1 and two full blocks,
 * h = m1 + m2 + 2^129, which reaches [p, 2^130) for p = 2^130 - 5. */
static void test_reduction_edges(void)
{
	static const struct {
		uint8_t m2_low; /* m1 = 2^128 - 1; m2 = 2^128 - 256 + m2_low */
		uint8_t s_ff;	/* s = 0 or 2^128 - 1 */
		uint8_t tag0;	/* tag byte 0; the other bytes are all 0x00 or all 0xff */
		uint8_t rest;
	} cases[] = {
	    {0xff, 0, 0x03, 0x00}, /* h = 2^130 - 2 = p + 3 */
	    {0xfc, 0, 0x00, 0x00}, /* h = p exactly -> 0 */
	    {0xfb, 0, 0xfa, 0xff}, /* h = p - 1 = 2^130 - 6 -> low 128 bits */
	    {0xff, 1, 0x02, 0x00}, /* 3 + (2^128 - 1) wraps mod 2^128 */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t key[32] = {1}, msg[32], mac[16], ref[16], want[16];

		memset(key + 16, cases[i].s_ff ? 0xff : 0, 16);
		memset(msg, 0xff, sizeof(msg));
		msg[16] = cases[i].m2_low;
		memset(want, cases[i].rest, sizeof(want));
		want[0] = cases[i].tag0;
		zinc_poly1305(mac, msg, sizeof(msg), key);
		CHECK_MEM(mac, want, 16, "reduction edge");
		crypto_onetimeauth_poly1305(ref, msg, sizeof(msg), key);
		CHECK_MEM(ref, want, 16, "reduction edge (libsodium agrees)");
	}
}

/* The context is wiped by final. */
static void test_final_wipes(void)
{
	struct zinc_poly1305_ctx ctx, zero;
	uint8_t key[32], mac[16];

	memset(key, 0x5a, sizeof(key));
	memset(&zero, 0, sizeof(zero));
	zinc_poly1305_init(&ctx, key);
	zinc_poly1305_update(&ctx, key, 7);
	zinc_poly1305_final(&ctx, mac);
	CHECK_MEM(&ctx, &zero, sizeof(ctx), "ctx wiped");
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	test_rfc();
	test_streaming_splits();
	test_vs_libsodium();
	test_reduction_edges();
	test_final_wipes();
	return test_finish("test_zinc_poly1305");
}
