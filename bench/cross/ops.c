// SPDX-License-Identifier: MIT
/* make bench-cross: runs one operation N times so that the instruction
 * counter (insncount.c) can be read around it:
 *   ops OP LIB LEN N    OP: seal open x25519; LIB: zinc openssl sodium
 * The count of N runs minus that of 0 runs, over N, is the per-operation
 * figure (set-up and exit cancel out). */
#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zinc/zinc.h>

#define MAXLEN 16384

static uint8_t in[MAXLEN + 16], out[MAXLEN + 16], key[32], nonce[12];

static void ossl_aead(int enc, size_t len)
{
	static EVP_CIPHER_CTX *c;
	int n;

	if (!c) {
		c = EVP_CIPHER_CTX_new();
		EVP_CipherInit_ex(c, EVP_chacha20_poly1305(), NULL, NULL, NULL, enc);
	}
	EVP_CipherInit_ex(c, NULL, NULL, key, nonce, enc);
	EVP_CipherUpdate(c, out, &n, in, (int)len);
	if (!enc)
		EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, 16, in + len);
	EVP_CipherFinal_ex(c, out + n, &n);
	if (enc)
		EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, out + len);
}

static void ossl_x25519(void)
{
	static EVP_PKEY *priv, *peer;
	static EVP_PKEY_CTX *c;
	size_t n = 32;

	if (!c) {
		priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, key, 32);
		peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, in, 32);
		c = EVP_PKEY_CTX_new(priv, NULL);
		EVP_PKEY_derive_init(c);
		EVP_PKEY_derive_set_peer(c, peer);
	}
	EVP_PKEY_derive(c, out, &n);
}

static void one(const char *op, const char *lib, size_t len)
{
	unsigned long long m;

	if (!strcmp(op, "x25519")) {
		if (!strcmp(lib, "zinc"))
			(void)!zinc_curve25519(out, key, in);
		else if (!strcmp(lib, "sodium"))
			(void)!crypto_scalarmult_curve25519(out, key, in);
		else
			ossl_x25519();
	} else if (!strcmp(lib, "zinc")) {
		if (op[0] == 's')
			zinc_chacha20poly1305_ietf_encrypt(out, in, len, NULL, 0, nonce, key);
		else
			zinc_chacha20poly1305_ietf_decrypt(out, in, len + 16, NULL, 0, nonce, key);
	} else if (!strcmp(lib, "sodium")) {
		if (op[0] == 's')
			crypto_aead_chacha20poly1305_ietf_encrypt(out, &m, in, len, NULL, 0, NULL,
								  nonce, key);
		else
			(void)!crypto_aead_chacha20poly1305_ietf_decrypt(
			    out, &m, NULL, in, len + 16, NULL, 0, nonce, key);
	} else {
		ossl_aead(op[0] == 's', len);
	}
}

int main(int argc, char **argv)
{
	size_t len;
	long n;

	if (argc != 5 || sodium_init() < 0)
		return 2;
	len = strtoul(argv[3], NULL, 10);
	n = strtol(argv[4], NULL, 10);
	if (len > MAXLEN)
		return 2;
	memset(key, 7, sizeof(key));
	memset(in, 9, sizeof(in));
	/* open: a valid message, so every library does the whole work */
	if (!strcmp(argv[1], "open")) {
		zinc_chacha20poly1305_ietf_encrypt(out, in, len, NULL, 0, nonce, key);
		memcpy(in, out, len + 16);
	}
	one(argv[1], argv[2], len); /* set-up (contexts, dispatch) outside the count */
	while (n-- > 0)
		one(argv[1], argv[2], len);
	return 0;
}
