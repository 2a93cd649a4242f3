/* ChaCha20, HChaCha20 and XChaCha20: RFC 8439 and draft-irtf-cfrg-xchacha-03
 * known answers, then properties that every correct implementation has:
 * in-place equals out-of-place, unaligned buffers, splitting a message at
 * block boundaries with the right counters, the 32-bit counter wrapping, and
 * agreement with libsodium on random inputs. */
#include <stdbool.h>
#include <stdint.h>

#include <sodium.h>

#include <zinc/chacha20.h>

#include "rfc_chacha_vectors.h"
#include "test.h"

static void test_rfc_blocks(void)
{
	for (size_t i = 0; i < rfc_chacha20_block_count; i++) {
		const struct rfc_chacha20_block *v = &rfc_chacha20_block[i];
		uint8_t out[64] = {0};

		CHECK(v->keystream_len == 64 && v->key_len == 32 && v->nonce_len == 12);
		zinc_chacha20(out, out, sizeof(out), v->key, v->nonce, v->counter);
		CHECK_MEM(out, v->keystream, 64, v->ref);
	}
}

static void test_rfc_encrypt(void)
{
	for (size_t i = 0; i < rfc_chacha20_encrypt_count; i++) {
		const struct rfc_chacha20_encrypt *v = &rfc_chacha20_encrypt[i];
		uint8_t out[1024];

		CHECK(v->plaintext_len <= sizeof(out) && v->ciphertext_len == v->plaintext_len);
		zinc_chacha20(out, v->plaintext, v->plaintext_len, v->key, v->nonce, v->counter);
		CHECK_MEM(out, v->ciphertext, v->ciphertext_len, v->ref);
		/* Decrypt in place. */
		zinc_chacha20(out, out, v->ciphertext_len, v->key, v->nonce, v->counter);
		CHECK_MEM(out, v->plaintext, v->plaintext_len, v->ref);
	}
}

static void test_rfc_poly_keygen(void)
{
	for (size_t i = 0; i < rfc_poly1305_keygen_count; i++) {
		const struct rfc_poly1305_keygen *v = &rfc_poly1305_keygen[i];
		uint8_t block[64] = {0};

		zinc_chacha20(block, block, sizeof(block), v->key, v->nonce, 0);
		CHECK_MEM(block, v->otk, 32, v->ref);
	}
}

static void test_xchacha_draft(void)
{
	for (size_t i = 0; i < rfc_hchacha20_count; i++) {
		const struct rfc_hchacha20 *v = &rfc_hchacha20[i];
		uint8_t sub[32];

		CHECK(v->input_len == 16);
		zinc_hchacha20(sub, v->input, v->key);
		CHECK_MEM(sub, v->subkey, 32, v->ref);
	}
	for (size_t i = 0; i < rfc_xchacha20_count; i++) {
		const struct rfc_xchacha20 *v = &rfc_xchacha20[i];
		uint8_t out[1024];

		CHECK(v->plaintext_len <= sizeof(out) && v->nonce_len == 24);
		zinc_xchacha20(out, v->plaintext, v->plaintext_len, v->key, v->nonce, v->counter);
		CHECK_MEM(out, v->ciphertext, v->ciphertext_len, v->ref);
		memset(out, 0, v->keystream_len);
		zinc_xchacha20(out, out, v->keystream_len, v->key, v->nonce, v->counter);
		CHECK_MEM(out, v->keystream, v->keystream_len, v->ref);
	}
	CHECK(rfc_hchacha20_count >= 1 && rfc_xchacha20_count >= 2);
}

/* Encrypting in pieces of whole blocks with advancing counters, at any
 * alignment and in place, gives the same bytes as one call. */
static void test_split_inplace_unaligned(void)
{
	uint64_t seed = 0x5eed0001;
	uint8_t key[32], nonce[12], msg[1100], ref[1100], buf[1200], src[1200];

	for (int iter = 0; iter < 300; iter++) {
		size_t len = test_rand64(&seed) % sizeof(msg);
		uint32_t ctr = (uint32_t)test_rand64(&seed) & 0xffff;
		size_t off = test_rand64(&seed) % 16;
		size_t cut = (test_rand64(&seed) % (len / 64 + 1)) * 64;

		test_randbytes(&seed, key, sizeof(key));
		test_randbytes(&seed, nonce, sizeof(nonce));
		test_randbytes(&seed, msg, len);
		zinc_chacha20(ref, msg, len, key, nonce, ctr);

		memcpy(buf + off, msg, len);
		zinc_chacha20(buf + off, buf + off, cut, key, nonce, ctr);
		zinc_chacha20(buf + off + cut, buf + off + cut, len - cut, key, nonce,
			      ctr + (uint32_t)(cut / 64));
		CHECK_MEM(buf + off, ref, len, "split in place unaligned");

		if (len) {
			/* Out of place between odd addresses must match too. */
			memcpy(src + 1, msg, len);
			zinc_chacha20(buf + 3 + len % 5, src + 1, len, key, nonce, ctr);
			CHECK_MEM(buf + 3 + len % 5, ref, len, "unaligned out of place");
		}
	}
}

/* The block counter is 32 bits: the block after 0xffffffff is block 0. */
static void test_counter_wrap(void)
{
	uint8_t key[32], nonce[12], two[128] = {0}, b0[64] = {0}, bmax[64] = {0};

	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(i * 7 + 1);
	for (int i = 0; i < 12; i++)
		nonce[i] = (uint8_t)(0xa0 + i);
	zinc_chacha20(two, two, sizeof(two), key, nonce, 0xffffffffu);
	zinc_chacha20(bmax, bmax, 64, key, nonce, 0xffffffffu);
	zinc_chacha20(b0, b0, 64, key, nonce, 0);
	CHECK_MEM(two, bmax, 64, "block 0xffffffff");
	CHECK_MEM(two + 64, b0, 64, "wrapped to block 0");
}

static void test_vs_libsodium(void)
{
	uint64_t seed = 0x5eed0002;
	uint8_t key[32], nonce[24], msg[2048], a[2048], b[2048], ha[32], hb[32];

	for (int iter = 0; iter < 400; iter++) {
		size_t len = iter < 200 ? (size_t)iter : test_rand64(&seed) % sizeof(msg);
		uint32_t ctr = (uint32_t)(test_rand64(&seed) % 1000000);

		test_randbytes(&seed, key, sizeof(key));
		test_randbytes(&seed, nonce, sizeof(nonce));
		test_randbytes(&seed, msg, len);

		zinc_chacha20(a, msg, len, key, nonce, ctr);
		crypto_stream_chacha20_ietf_xor_ic(b, msg, len, nonce, ctr, key);
		CHECK_MEM(a, b, len, "chacha20 vs libsodium");

		zinc_xchacha20(a, msg, len, key, nonce, ctr);
		crypto_stream_xchacha20_xor_ic(b, msg, len, nonce, ctr, key);
		CHECK_MEM(a, b, len, "xchacha20 vs libsodium");

		zinc_hchacha20(ha, nonce, key);
		crypto_core_hchacha20(hb, nonce, key, NULL);
		CHECK_MEM(ha, hb, 32, "hchacha20 vs libsodium");
	}
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	test_rfc_blocks();
	test_rfc_encrypt();
	test_rfc_poly_keygen();
	test_xchacha_draft();
	test_split_inplace_unaligned();
	test_counter_wrap();
	test_vs_libsodium();
	return test_finish("test_zinc_chacha20");
}
