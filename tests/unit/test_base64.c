// SPDX-License-Identifier: MIT
/* daemon/base64.c: keys written as wg(8) writes them, and any base64 text
 * read back, each checked against libsodium's encoder. */
#include "test.h"

#include <sodium.h>

#include "../../daemon/base64.c"

/* the bytes 0..31 */
#define KEY_0_31 "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

/* libsodium's encoder: an independent check of ours and of our decoder */
static size_t b64enc(const uint8_t *in, size_t n, char *out, size_t cap)
{
	sodium_bin2base64(out, cap, in, n, sodium_base64_VARIANT_ORIGINAL);
	return strlen(out);
}

static void test_decode(void)
{
	uint8_t out[40], want[32];
	char text[64];

	CHECK(base64_decode("", 0, out, sizeof(out)) == 0);
	CHECK(base64_decode("Zg==", 4, out, sizeof(out)) == 1 && out[0] == 'f');
	CHECK(base64_decode("Zm8=", 4, out, sizeof(out)) == 2 && !memcmp(out, "fo", 2));
	CHECK(base64_decode("Zm9v", 4, out, sizeof(out)) == 3 && !memcmp(out, "foo", 3));
	CHECK(base64_decode("Zm9vYmFy", 8, out, sizeof(out)) == 6 && !memcmp(out, "foobar", 6));
	CHECK(base64_decode("Zm9", 3, out, sizeof(out)) == -1);	     /* not a multiple of 4 */
	CHECK(base64_decode("Zm=v", 4, out, sizeof(out)) == -1);     /* data after padding */
	CHECK(base64_decode("Zg==Zg==", 8, out, sizeof(out)) == -1); /* padding inside */
	CHECK(base64_decode("Zh==", 4, out, sizeof(out)) == -1);     /* unused bits set */
	CHECK(base64_decode("Z!==", 4, out, sizeof(out)) == -1);
	CHECK(base64_decode("Zm9v", 4, out, 2) == -1);		 /* longer than cap */
	CHECK(base64_decode("-_8=", 4, out, sizeof(out)) == -1); /* URL alphabet is not ours */
	CHECK(base64_decode("+/8=", 4, out, sizeof(out)) == 2 && out[0] == 0xfb && out[1] == 0xff);

	for (int i = 0; i < 32; i++)
		want[i] = (uint8_t)i;
	CHECK(base64_decode_key(KEY_0_31, 44, out) && !memcmp(out, want, 32));
	CHECK(!base64_decode_key(KEY_0_31, 43, out));
	CHECK(!base64_decode_key("AAAA", 4, out));
	/* 33 bytes in 44 characters cannot happen; 31 bytes + "==" padding is not a key */
	CHECK(!base64_decode_key("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==", 44, out));

	/* encode then decode: every length up to 40 */
	uint64_t seed = 7;
	for (size_t n = 0; n <= 40; n++) {
		uint8_t in[40];
		test_randbytes(&seed, in, n);
		size_t tl = b64enc(in, n, text, sizeof(text));
		CHECK(tl == 4 * ((n + 2) / 3) && text[tl] == '\0');
		CHECK(base64_decode(text, tl, out, sizeof(out)) == (long)n && !memcmp(in, out, n));
	}
}

static void test_encode_key(void)
{
	uint8_t key[WG_PUBLIC_KEY_LEN], back[WG_PUBLIC_KEY_LEN];
	char ours[BASE64_KEY_LEN + 1], theirs[BASE64_KEY_LEN + 1];
	uint64_t seed = 11;

	for (int i = 0; i < WG_PUBLIC_KEY_LEN; i++)
		key[i] = (uint8_t)i;
	memset(ours, 'x', sizeof(ours));
	base64_encode_key(ours, key);
	CHECK(!strcmp(ours, KEY_0_31));

	memset(key, 0xff, sizeof(key));
	base64_encode_key(ours, key);
	CHECK(!strcmp(ours, "//////////////////////////////////////////8="));

	for (int round = 0; round < 1000; round++) {
		test_randbytes(&seed, key, sizeof(key));
		base64_encode_key(ours, key);
		CHECK(b64enc(key, sizeof(key), theirs, sizeof(theirs)) == BASE64_KEY_LEN);
		CHECK(strlen(ours) == BASE64_KEY_LEN && !strcmp(ours, theirs));
		CHECK(base64_decode_key(ours, BASE64_KEY_LEN, back) &&
		      !memcmp(back, key, sizeof(key)));
	}
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	test_decode();
	test_encode_key();
	return test_finish("test_base64");
}
