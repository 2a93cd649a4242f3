/* zinc_memeq: equal buffers compare equal and any single differing bit at any
 * position makes them unequal, for lengths 0..80 and odd alignments.
 * zinc_memzero: wipes exactly the bytes asked for. */
#include <stdint.h>

#include <zinc/memzero.h>

#include "test.h"

static void test_memeq(void)
{
	uint8_t a[96], b[96];
	uint64_t seed = 0x5eed0301;

	for (size_t len = 0; len <= 80; len++) {
		size_t oa = len % 7, ob = len % 5;

		test_randbytes(&seed, a + oa, len);
		memcpy(b + ob, a + oa, len);
		CHECK(zinc_memeq(a + oa, b + ob, len));
		for (size_t i = 0; i < len; i++) {
			for (int bit = 0; bit < 8; bit++) {
				b[ob + i] ^= (uint8_t)(1u << bit);
				CHECK(!zinc_memeq(a + oa, b + ob, len));
				b[ob + i] ^= (uint8_t)(1u << bit);
			}
			/* Byte differences of every size (0x01..0xff). */
			b[ob + i] ^= 0xff;
			CHECK(!zinc_memeq(a + oa, b + ob, len));
			b[ob + i] ^= 0xff;
		}
		CHECK(zinc_memeq(a + oa, b + ob, len));
	}
	CHECK(zinc_memeq(NULL, NULL, 0));
}

static void test_memzero(void)
{
	uint8_t buf[100];

	for (size_t off = 0; off < 8; off++) {
		for (size_t len = 0; len < 64; len += 7) {
			memset(buf, 0xee, sizeof(buf));
			zinc_memzero(buf + off, len);
			for (size_t i = 0; i < sizeof(buf); i++)
				CHECK(buf[i] == (i >= off && i < off + len ? 0 : 0xee));
		}
	}
	zinc_memzero(NULL, 0);
}

int main(void)
{
	test_memeq();
	test_memzero();
	return test_finish("test_zinc_memzero");
}
