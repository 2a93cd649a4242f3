/* SipHash-2-4: the reference vectors and agreement with OpenSSL's SIPHASH
 * for every length 0..200 under random keys. */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "test.h"
#include "../../wg/siphash.h"

static uint64_t openssl_siphash(const uint8_t key[16], const uint8_t *msg, size_t len)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "SIPHASH", NULL);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	size_t size = 8, outl = 0;
	uint8_t out[8] = {0};
	uint64_t v = 0;
	OSSL_PARAM params[] = {
	    OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
	    OSSL_PARAM_construct_end(),
	};

	if (!ctx || !EVP_MAC_init(ctx, key, 16, params) || !EVP_MAC_update(ctx, msg, len) ||
	    !EVP_MAC_final(ctx, out, &outl, sizeof(out)) || outl != 8) {
		fprintf(stderr, "openssl SIPHASH unavailable\n");
		exit(1);
	}
	for (int i = 7; i >= 0; i--)
		v = v << 8 | out[i];
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return v;
}

int main(void)
{
	uint8_t key[16], msg[256];
	uint64_t s = 99;
	int bad = 0;

	/* Reference: key 00..0f, message 00..(len-1). */
	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 256; i++)
		msg[i] = (uint8_t)i;
	CHECK(wg_siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ULL);
	CHECK(wg_siphash24(key, msg, 15) == 0xa129ca6149be45e5ULL);
	CHECK(wg_siphash24(key, msg, 63) == openssl_siphash(key, msg, 63));

	for (int round = 0; round < 4; round++) {
		test_randbytes(&s, key, sizeof(key));
		test_randbytes(&s, msg, sizeof(msg));
		for (size_t len = 0; len <= 200; len++)
			bad += wg_siphash24(key, msg, len) != openssl_siphash(key, msg, len);
	}
	CHECK(bad == 0);
	/* The key matters. */
	uint64_t h = wg_siphash24(key, msg, 9);
	key[15] ^= 1;
	CHECK(wg_siphash24(key, msg, 9) != h);
	return test_finish("test_siphash");
}
