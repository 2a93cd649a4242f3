// SPDX-License-Identifier: MIT
/* zinc/arm64/ (built and run on arm64 only; make check-cross runs it under
 * qemu-aarch64): the start-up choice (neon unless ZINC_IMPL says generic,
 * self-tests passed), and each NEON entry against the portable one over
 * every length across the kernel widths, tampered tags included. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../../zinc/cpu.h"

#include <zinc/impl.h>
#include <zinc/zinc.h>

#define MAXLEN 1600

static uint8_t in[MAXLEN + 16], a[MAXLEN + 16], b[MAXLEN + 16], back[MAXLEN];

static void test_choice(void)
{
	/* Unforced, each primitive keeps what timed fastest at start-up (under
	 * qemu-user that is the emulator's timing, so any of its paths). */
	const char *want = getenv("ZINC_IMPL") ? "path=generic chacha20=generic aead=generic"
					       : "path=neon chacha20=";

	printf("%s\n", zinc_impl_describe());
	CHECK(strncmp(zinc_impl_describe(), want, strlen(want)) == 0);
	CHECK(strstr(zinc_impl_describe(), "selftest=ok") != NULL);
	if (!getenv("ZINC_IMPL"))
		CHECK(strstr(zinc_impl_describe(), "choice=measured") != NULL);
}

static void test_chacha20(void)
{
	for (size_t len = 0; len <= MAXLEN; len++) {
		uint32_t s1[16], s2[16];

		for (int i = 0; i < 16; i++)
			s1[i] = s2[i] = (uint32_t)(i * 0x9e3779b9u + len);
		s1[12] = s2[12] = 0xfffffffeu; /* the counter wraps inside the kernel */
		zinc_chacha20_neon(s1, a, in, len);
		zinc_chacha20_generic(s2, b, in, len);
		CHECK_MEM(a, b, len, "chacha20 neon");
		CHECK(memcmp(s1, s2, sizeof(s1)) == 0);
	}
}

static void test_aead(void)
{
	uint8_t key[32], nonce[12], ad[40];

	randombytes_buf(key, sizeof(key));
	randombytes_buf(nonce, sizeof(nonce));
	randombytes_buf(ad, sizeof(ad));
	for (size_t len = 0; len <= MAXLEN; len++) {
		size_t adl = len % sizeof(ad);

		zinc_aead_seal_neon(a, in, len, ad, adl, key, nonce);
		zinc_aead_seal_generic(b, in, len, ad, adl, key, nonce);
		CHECK_MEM(a, b, len + 16, "aead seal neon");
		CHECK(zinc_aead_open_neon(back, a, len + 16, ad, adl, key, nonce));
		CHECK_MEM(back, in, len, "aead open neon");
		/* in place, as the daemon decrypts */
		CHECK(zinc_aead_open_neon(a, a, len + 16, ad, adl, key, nonce));
		CHECK_MEM(a, in, len, "aead open neon in place");
		memcpy(a, b, len + 16);
		a[(len * 7) % (len + 16)] ^= 0x20;
		memset(back, 0xaa, len);
		CHECK(!zinc_aead_open_neon(back, a, len + 16, ad, adl, key, nonce));
		for (size_t i = 0; i < len; i++)
			CHECK(back[i] == 0);
	}
}

static void test_poly1305(void)
{
	for (size_t n = 0; n <= 100; n++) {
		struct zinc_poly1305_ctx c1, c2;
		uint8_t key[32];

		randombytes_buf(key, sizeof(key));
		zinc_poly1305_init(&c1, key);
		c2 = c1;
		zinc_poly1305_blocks_arm64(&c1, in, n, 1ULL << 40);
		zinc_poly1305_blocks_generic(&c2, in, n, 1ULL << 40);
		zinc_poly1305_blocks_arm64(&c1, in + n, 1, 0);
		zinc_poly1305_blocks_generic(&c2, in + n, 1, 0);
		CHECK(memcmp(c1.h, c2.h, sizeof(c1.h)) == 0);
	}
}

/* Random scalars and points, non-canonical ones (u >= p, bit 255 set)
 * included. */
static void test_x25519(void)
{
	for (int i = 0; i < 200; i++) {
		uint8_t s[32], u[32], o1[32], o2[32];

		randombytes_buf(s, sizeof(s));
		randombytes_buf(u, sizeof(u));
		if (i % 4 == 1)
			memset(u, 0xff, sizeof(u));
		if (i % 4 == 2)
			u[31] |= 0x80;
		zinc_curve25519_clamp_secret(s);
		zinc_x25519_arm64(o1, s, u);
		zinc_x25519_generic(o2, s, u);
		CHECK_MEM(o1, o2, 32, "x25519 arm64");
	}
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	randombytes_buf(in, sizeof(in));
	test_choice();
	test_chacha20();
	test_aead();
	test_poly1305();
	test_x25519();
	return test_finish("test_zinc_arm64");
}
