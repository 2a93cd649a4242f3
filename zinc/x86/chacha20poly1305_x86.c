// SPDX-License-Identifier: MIT
/* ChaCha20-Poly1305. Seal is one pass: each chunk of a few hundred bytes
 * is encrypted and then authenticated while it is still in L1. Open on
 * AVX-512 authenticates the whole ciphertext first (a packet stays in L1),
 * then decrypts with the output masked by the verdict; on SSSE3 and AVX2
 * it authenticates each chunk just before decrypting it, then wipes.
 * Block 0 (the Poly1305 key) is computed in the same kernel call as the
 * first data blocks, which matters for short packets. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <stddef.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"
#include "poly1305_x86.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

struct aead_kit {
	zinc_chacha20_fn chacha;
	size_t chunk; /* bytes per kernel call, a multiple of 256 */
	/* Vector Poly1305 for the bulk (NULL: scalar only), in groups of
	 * vgroup bytes. */
	void (*vblocks)(struct poly1305_x86 *p, const uint8_t *m, size_t nblocks);
	void (*vfinish)(struct poly1305_x86 *p);
	/* vfinish with the padded rest of the message (NULL: scalar rest) */
	void (*vtail)(struct poly1305_x86 *p, const uint8_t *m, size_t len);
	size_t vgroup;
	size_t vmin; /* shorter messages: scalar only (the vector set-up costs) */
	void (*wipe)(uint8_t *dst, const uint8_t *src, size_t len, bool ok);
	/* A first chunk of more than half a chunk without a copy (NULL: copied) */
	void (*first)(uint32_t st[16], uint8_t k0[64], uint8_t *dst, const uint8_t *src,
		      size_t len);
	/* chacha with its output ANDed with a mask, which spares open the
	 * wipe pass (NULL: chacha, then wipe) */
	void (*chacha_keep)(uint32_t st[16], uint8_t *dst, const uint8_t *src, size_t len,
			    uint64_t keep);
};

/* Ciphertext authentication that may run behind (seal) or ahead (open) of
 * the cipher by less than a group. */
struct auth {
	struct poly1305_x86 p;
	const uint8_t *ct;
	size_t done, len, group;
	int vec;
};

static ALWAYS_INLINE void auth_setup(const struct aead_kit *k, struct auth *a, const uint8_t *ct,
				     size_t len)
{
	a->ct = ct;
	a->done = 0;
	a->len = len;
	a->vec = k->vblocks && len >= k->vmin;
	a->group = a->vec ? k->vgroup : 64;
}

/* Authenticates up to offset upto, rounded down to a group unless it is
 * the end; the end also folds the vector lanes and pads the last block. */
static ALWAYS_INLINE void auth_to(const struct aead_kit *k, struct auth *a, size_t upto)
{
	size_t n;

	if (upto < a->len)
		upto -= upto % a->group;
	if (upto <= a->done)
		return;
	n = upto - a->done;
	if (a->vec) {
		size_t v = n - n % a->group;

		k->vblocks(&a->p, a->ct + a->done, v / 16);
		a->done += v;
		n -= v;
	}
	if (upto == a->len) {
		if (a->vec && k->vtail)
			k->vtail(&a->p, a->ct + a->done, n);
		else if (a->vec)
			k->vfinish(&a->p);
		if (!a->vec || !k->vtail)
			poly64_padded(&a->p, a->ct + a->done, n);
		a->done += n;
	} else {
		poly64_blocks(&a->p, a->ct + a->done, n / 16);
		a->done += n;
	}
}

/* The scalar state; the vector fold at the end (auth_to) wiped the lanes
 * and powers, which a scalar-only message never wrote: 1.4 KB less to
 * clear per message. */
static ALWAYS_INLINE void auth_wipe(struct auth *a)
{
	zinc_memzero(&a->p, offsetof(struct poly1305_x86, rpow));
}

static ALWAYS_INLINE void auth_tag(struct auth *a, size_t ad_len, uint8_t tag[16])
{
	uint64_t lens[2] = {(uint64_t)ad_len, (uint64_t)a->len};

	poly64_blocks(&a->p, (const uint8_t *)lens, 1);
	poly64_final(&a->p, tag);
}

/* The first kernel call: block 0 into buf, then up to max bytes of data
 * from src to dst, through buf (64 zero bytes, then the data) unless
 * k->first does it directly; shorter chunks take the narrower kernels that
 * way. */
static ALWAYS_INLINE size_t first_chunk(const struct aead_kit *k, uint32_t st[16], uint8_t *buf,
					uint8_t *dst, const uint8_t *src, size_t len, size_t max)
{
	size_t n = len < max ? len : max;

	if (k->first && 2 * (64 + n) > k->chunk) {
		k->first(st, buf, dst, src, n);
		return n;
	}
	memset(buf, 0, 64);
	if (n) /* src may be NULL when len is 0 */
		memcpy(buf + 64, src, n);
	k->chacha(st, buf, buf, 64 + n);
	if (dst != buf + 64)
		memcpy(dst, buf + 64, n);
	return n;
}

static ALWAYS_INLINE void aead_seal(const struct aead_kit *k, uint8_t *dst, const uint8_t *src,
				    size_t len, const uint8_t *ad, size_t ad_len,
				    const uint8_t key[32], const uint8_t nonce[12])
{
	uint8_t buf[1024];
	struct auth a;
	uint32_t st[16];
	size_t off;

	zinc_chacha20_state(st, key, nonce, 0);
	off = first_chunk(k, st, buf, dst, src, len, k->chunk - 64);
	poly64_init(&a.p, buf);
	poly64_padded(&a.p, ad, ad_len);
	/* Only block 0 (the Poly1305 key) is secret; the rest is ciphertext. */
	zinc_memzero(buf, 64);
	auth_setup(k, &a, dst, len);
	auth_to(k, &a, off);
	while (off < len) {
		size_t m = len - off < k->chunk ? len - off : k->chunk;

		k->chacha(st, dst + off, src + off, m);
		off += m;
		auth_to(k, &a, off);
	}
	auth_to(k, &a, len);
	auth_tag(&a, ad_len, dst + len);
	zinc_memzero(st, sizeof(st));
	auth_wipe(&a);
}

/* dst = src (dst may be src), or zeros unless ok, without a branch on ok:
 * the verdict is computed from secrets and only becomes public when the
 * caller receives it. The vector widths keep this pass cheap. */
static ALWAYS_INLINE void wipe_tail(uint8_t *dst, const uint8_t *src, size_t len, uint64_t mask)
{
	uint64_t w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, src + i, 8);
		w &= mask;
		memcpy(dst + i, &w, 8);
	}
	for (; i < len; i++)
		dst[i] = src[i] & (uint8_t)mask;
}

static uint64_t verdict_mask(bool ok)
{
	uint64_t mask = 0 - (uint64_t)ok;

	/* Keep the compiler from turning the masking back into a branch. */
	__asm__("" : "+r"(mask));
	return mask;
}

static void wipe_unless_64(uint8_t *dst, const uint8_t *src, size_t len, bool ok)
{
	wipe_tail(dst, src, len, verdict_mask(ok));
}

__attribute__((target("avx2"))) static void wipe_unless_avx2(uint8_t *dst, const uint8_t *src,
							     size_t len, bool ok)
{
	const uint64_t mask = verdict_mask(ok);
	const __m256i m = _mm256_set1_epi64x((long long)mask);
	size_t i;

	for (i = 0; i + 32 <= len; i += 32) {
		const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));

		_mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_and_si256(v, m));
	}
	wipe_tail(dst + i, src + i, len - i, mask);
}

__attribute__((target("avx512f"))) static void wipe_unless_avx512(uint8_t *dst, const uint8_t *src,
								  size_t len, bool ok)
{
	const uint64_t mask = verdict_mask(ok);
	const __m512i m = _mm512_set1_epi64((long long)mask);
	size_t i;

	for (i = 0; i + 64 <= len; i += 64) {
		const __m512i v = _mm512_loadu_si512((const void *)(src + i));

		_mm512_storeu_si512((void *)(dst + i), _mm512_and_si512(v, m));
	}
	wipe_tail(dst + i, src + i, len - i, mask);
}

/* The rest after the first chunk, each chunk's ciphertext authenticated
 * just before it is decrypted (dst may be src), while it is in L1. */
static ALWAYS_INLINE void open_rest(const struct aead_kit *k, struct auth *a, uint32_t st[16],
				    uint8_t *dst, const uint8_t *src, size_t off, size_t len)
{
	while (off < len) {
		size_t m = len - off < k->chunk ? len - off : k->chunk;
		size_t ahead = off + m + a->group - 1;

		auth_to(k, a, ahead < len ? ahead : len);
		k->chacha(st, dst + off, src + off, m);
		off += m;
	}
}

static ALWAYS_INLINE bool aead_open(const struct aead_kit *k, uint8_t *dst, const uint8_t *src,
				    size_t src_len, const uint8_t *ad, size_t ad_len,
				    const uint8_t key[32], const uint8_t nonce[12])
{
	uint8_t buf[1024], tag[16];
	struct auth a;
	uint32_t st[16];
	size_t len, off;
	bool ok;

	if (src_len < 16)
		return false;
	len = src_len - 16;
	zinc_chacha20_state(st, key, nonce, 0);
	/* The first plaintext waits in buf until its ciphertext is
	 * authenticated (dst may be src). With the masked kernels all of the
	 * ciphertext is, before any plaintext is written, and the verdict
	 * masks the output as it is written; when they make more than one
	 * call, the first is only half a chunk: less to copy, and as many
	 * blocks per call. Without them, open_rest, then a wipe. */
	off = first_chunk(k, st, buf, buf + 64, src, len,
			  (k->chacha_keep && len > k->chunk - 64 ? k->chunk / 2 : k->chunk) - 64);
	poly64_init(&a.p, buf);
	poly64_padded(&a.p, ad, ad_len);
	auth_setup(k, &a, src, len);
	if (!k->chacha_keep) {
		auth_to(k, &a, off + a.group - 1 < len ? off + a.group - 1 : len);
		memcpy(dst, buf + 64, off);
		open_rest(k, &a, st, dst, src, off, len);
	}
	auth_to(k, &a, len);
	auth_tag(&a, ad_len, tag);
	ok = zinc_memeq(tag, src + len, 16);
	if (k->chacha_keep) {
		k->wipe(dst, buf + 64, off, ok);
		k->chacha_keep(st, dst + off, src + off, len - off, verdict_mask(ok));
	} else {
		k->wipe(dst, dst, len, ok);
	}
	zinc_memzero(buf, 64 + off);
	zinc_memzero(st, sizeof(st));
	auth_wipe(&a);
	zinc_memzero(tag, sizeof(tag));
	return ok;
}

/* The vector thresholds are where the vector Poly1305 (with its key powers
 * and final fold) starts to beat the scalar one, measured on Zen 5. */
static const struct aead_kit kit_ssse3 = {zinc_chacha20_ssse3, 256,  NULL, NULL, NULL, 0, 0,
					  wipe_unless_64,      NULL, NULL};
static const struct aead_kit kit_avx2 = {zinc_chacha20_avx2,
					 512,
					 zinc_poly1305_avx2_blocks,
					 zinc_poly1305_avx2_finish,
					 NULL,
					 64,
					 512,
					 wipe_unless_avx2,
					 NULL,
					 NULL};
static const struct aead_kit kit_avx512 = {zinc_chacha20_avx512,
					   1024,
					   zinc_poly1305_avx512_blocks,
					   zinc_poly1305_avx512_finish,
					   NULL,
					   256,
					   1024,
					   wipe_unless_avx512,
					   NULL,
					   zinc_chacha20_avx512_keep};
static const struct aead_kit kit_avx512_ifma = {zinc_chacha20_avx512,
						1024,
						zinc_poly1305_ifma_blocks,
						zinc_poly1305_ifma_finish,
						zinc_poly1305_ifma_finish_tail,
						256,
						512,
						wipe_unless_avx512,
						zinc_chacha20_avx512_first,
						zinc_chacha20_avx512_keep};

void zinc_aead_seal_ssse3(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			  size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	aead_seal(&kit_ssse3, dst, src, len, ad, ad_len, key, nonce);
}

bool zinc_aead_open_ssse3(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			  size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	return aead_open(&kit_ssse3, dst, src, src_len, ad, ad_len, key, nonce);
}

void zinc_aead_seal_avx2(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			 size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	aead_seal(&kit_avx2, dst, src, len, ad, ad_len, key, nonce);
}

bool zinc_aead_open_avx2(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			 size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	return aead_open(&kit_avx2, dst, src, src_len, ad, ad_len, key, nonce);
}

void zinc_aead_seal_avx512(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			   size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	aead_seal(&kit_avx512, dst, src, len, ad, ad_len, key, nonce);
}

bool zinc_aead_open_avx512(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			   size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	return aead_open(&kit_avx512, dst, src, src_len, ad, ad_len, key, nonce);
}

void zinc_aead_seal_avx512_ifma(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
				size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	aead_seal(&kit_avx512_ifma, dst, src, len, ad, ad_len, key, nonce);
}

bool zinc_aead_open_avx512_ifma(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
				size_t ad_len, const uint8_t key[32], const uint8_t nonce[12])
{
	return aead_open(&kit_avx512_ifma, dst, src, src_len, ad, ad_len, key, nonce);
}
#endif
