// SPDX-License-Identifier: MIT
#include "base64.h"

#include <zinc/memzero.h>

/* The 6-bit value of c, or -1. Arithmetic on ranges rather than a lookup,
 * so a secret key's characters do not pick table entries. */
static int sextet(unsigned char c)
{
	int upper = ((c >= 'A') & (c <= 'Z')) * (c - 'A' + 1);
	int lower = ((c >= 'a') & (c <= 'z')) * (c - 'a' + 27);
	int digit = ((c >= '0') & (c <= '9')) * (c - '0' + 53);
	int plus = (c == '+') * 63;
	int slash = (c == '/') * 64;

	return (upper | lower | digit | plus | slash) - 1;
}

long base64_decode(const char *s, size_t len, uint8_t *out, size_t cap)
{
	size_t n = 0;

	if (len % 4)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		bool last = i + 4 == len;
		int pad = 0;
		int v[4];

		for (int j = 0; j < 4; j++) {
			if (s[i + j] == '=' && last && j >= 2) {
				v[j] = 0;
				pad++;
				continue;
			}
			if (pad) /* data after padding: "A=B=" */
				return -1;
			v[j] = sextet((unsigned char)s[i + j]);
			if (v[j] < 0)
				return -1;
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
			     (uint32_t)v[3];
		size_t bytes = 3 - (size_t)pad;

		/* bits below the last byte must be zero: one text, one value */
		if ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff)))
			return -1;
		if (n + bytes > cap)
			return -1;
		out[n++] = (uint8_t)(w >> 16);
		if (bytes > 1)
			out[n++] = (uint8_t)(w >> 8);
		if (bytes > 2)
			out[n++] = (uint8_t)w;
	}
	return (long)n;
}

void base64_encode_key(char out[BASE64_KEY_LEN + 1], const uint8_t key[WG_PUBLIC_KEY_LEN])
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < WG_PUBLIC_KEY_LEN; i += 3) {
		size_t left = WG_PUBLIC_KEY_LEN - i;
		uint32_t w = (uint32_t)key[i] << 16;

		if (left > 1)
			w |= (uint32_t)key[i + 1] << 8;
		if (left > 2)
			w |= key[i + 2];
		out[o++] = alphabet[w >> 18 & 63];
		out[o++] = alphabet[w >> 12 & 63];
		out[o++] = left > 1 ? alphabet[w >> 6 & 63] : '=';
		out[o++] = left > 2 ? alphabet[w & 63] : '=';
	}
	out[o] = '\0';
}

bool base64_decode_key(const char *s, size_t len, uint8_t key[WG_PUBLIC_KEY_LEN])
{
	uint8_t tmp[WG_PUBLIC_KEY_LEN + 1];
	long n;

	if (len != BASE64_KEY_LEN || s[BASE64_KEY_LEN - 1] != '=')
		return false;
	n = base64_decode(s, len, tmp, sizeof(tmp));
	if (n != WG_PUBLIC_KEY_LEN) {
		zinc_memzero(tmp, sizeof(tmp));
		return false;
	}
	for (int i = 0; i < WG_PUBLIC_KEY_LEN; i++)
		key[i] = tmp[i];
	zinc_memzero(tmp, sizeof(tmp));
	return true;
}
