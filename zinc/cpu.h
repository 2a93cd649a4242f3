/* Internal: CPU feature probe and the one table of implementation entries.
 * Each primitive has a portable entry (the *_generic functions, always
 * built) and optional x86-64 entries; zinc_impl() picks them once, on first
 * use, from the CPU features and the path zinc_impl_select() asked for:
 *   generic  portable C only
 *   ssse3    ChaCha20 4-way SSSE3, fused AEAD with 64-bit scalar Poly1305,
 *            64-bit scalar streaming Poly1305, latency-tuned x86-64 BLAKE2s
 *   avx2     ChaCha20 8-way AVX2, 4-way AVX2 Poly1305 for long inputs (AEAD
 *            and streaming), X25519 with MULX/ADCX/ADOX (BMI2 + ADX),
 *            public keys by a fixed-base comb on the same field, AVX2
 *            batches of X25519 four lanes at a time, and the AVX row-vector
 *            BLAKE2s
 *   avx512   as avx2 with 16-way AVX-512 ChaCha20 and 16-lane Poly1305
 *            (radix 2^44 with AVX-512 IFMA when the CPU has it), IFMA
 *            batches of X25519 eight lanes at a time, and the AVX-512VL
 *            (vprord) BLAKE2s
 * BLAKE2s is latency bound: on Zen 5 the scalar assembly wins, on Zen 4 the
 * AVX-512VL kernel (the measured choice keeps whichever; the SSSE3 kernel
 * is built and tested but not dispatched); see doc/zinc-x86.md.
 * Unset (or "auto"): each primitive takes the fastest of the paths up to
 * the best the CPU has, timed after the self-tests (measure.h); a named
 * path is taken as listed, and one the CPU lacks falls back to the best
 * one below it. Each accelerated entry runs known answers
 * before it is used; one that fails is replaced by the portable entry. */
#ifndef ZINC_CPU_H
#define ZINC_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zinc/blake2s.h>
#include <zinc/poly1305.h>

enum zinc_level {
	ZINC_LEVEL_GENERIC,
#if defined(__aarch64__)
	ZINC_LEVEL_NEON, /* zinc/arm64/, with Advanced SIMD (HWCAP_ASIMD) */
#else
	ZINC_LEVEL_SSSE3,
	ZINC_LEVEL_AVX2,
	ZINC_LEVEL_AVX512,
#endif
	ZINC_LEVEL_COUNT,
};

/* dst = src XOR keystream for len bytes from state (RFC 8439 layout);
 * state[12] advances by the number of blocks used. */
typedef void (*zinc_chacha20_fn)(uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len);
/* RFC 8439 AEAD with a 96-bit nonce: writes len bytes and the 16-byte tag. */
typedef void (*zinc_aead_seal_fn)(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
				  size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
/* src_len includes the tag; on a bad tag dst is zeroed and false returned. */
typedef bool (*zinc_aead_open_fn)(uint8_t *dst, const uint8_t *src, size_t src_len,
				  const uint8_t *ad, size_t ad_len, const uint8_t key[32],
				  const uint8_t nonce[12]);
typedef void (*zinc_blake2s_compress_fn)(struct zinc_blake2s_state *state, const uint8_t *block,
					 size_t nblocks, uint32_t inc);
/* nblocks blocks with inc 64, then last (64 bytes) as the final block:
 * f[0] = ~0, counter += lastinc. One call for a one-shot hash. */
typedef void (*zinc_blake2s_final_fn)(struct zinc_blake2s_state *state, const uint8_t *block,
				      size_t nblocks, const uint8_t *last, uint32_t lastinc);
/* Streaming Poly1305: nblocks 16-byte blocks into ctx->h (44-bit limbs,
 * the layout zinc/poly1305.c defines); hibit is 1 << 40 for full blocks,
 * 0 for the padded last one. */
typedef void (*zinc_poly1305_blocks_fn)(struct zinc_poly1305_ctx *ctx, const uint8_t *src,
					size_t nblocks, uint64_t hibit);
/* out = X25519(clamped scalar, point); no zero check. */
typedef void (*zinc_x25519_fn)(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32]);
/* x25519_lanes (eight or four) independent X25519 at once, clamped
 * scalars, no zero check. */
typedef void (*zinc_x25519_x8_fn)(uint8_t out[8][32], const uint8_t scalar[8][32],
				  const uint8_t point[8][32]);
/* out = X25519(clamped scalar, 9): a public key. */
typedef void (*zinc_x25519_base_fn)(uint8_t out[32], const uint8_t scalar[32]);

struct zinc_impl {
	zinc_chacha20_fn chacha20;
	zinc_aead_seal_fn aead_seal;
	zinc_aead_open_fn aead_open;
	zinc_blake2s_compress_fn blake2s_compress;
	zinc_blake2s_final_fn blake2s_final;
	zinc_x25519_fn x25519;
	zinc_x25519_base_fn x25519_base;
	zinc_x25519_x8_fn x25519_x8; /* NULL: batches loop the single entry */
	unsigned x25519_lanes;
	zinc_poly1305_blocks_fn poly1305_blocks;
	const char *chacha20_name;
	const char *aead_name;
	const char *poly1305_name;
	const char *blake2s_name;
	const char *x25519_name;
	const char *x25519_base_name;
	const char *x25519_batch_name;
	unsigned selftest_failures;
};

/* The table chosen for this process (probed and self-tested once). */
const struct zinc_impl *zinc_impl(void);

/* Portable entries (defined next to the portable code). */
/* The initial state: constants, key, counter, nonce (chacha20.c; the one
 * copy the AEAD paths share). */
void zinc_chacha20_state(uint32_t state[16], const uint8_t key[32], const uint8_t nonce[12],
			 uint32_t counter);
void zinc_chacha20_generic(uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len);
void zinc_aead_seal_generic(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			    size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
bool zinc_aead_open_generic(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			    size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
void zinc_blake2s_compress_final_generic(struct zinc_blake2s_state *state, const uint8_t *block,
					 size_t nblocks, const uint8_t *last, uint32_t lastinc);
void zinc_blake2s_compress_generic(struct zinc_blake2s_state *state, const uint8_t *block,
				   size_t nblocks, uint32_t inc);
void zinc_x25519_generic(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32]);
void zinc_x25519_base_generic(uint8_t out[32], const uint8_t scalar[32]);
void zinc_poly1305_blocks_generic(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
				  uint64_t hibit);

#if defined(__x86_64__)
/* zinc/x86/: each needs the CPU feature named in its suffix. */
void zinc_chacha20_ssse3(uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len);
void zinc_chacha20_avx2(uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len);
void zinc_chacha20_avx512(uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len);
/* ChaCha20 blocks 0..15: block 0 (the Poly1305 key) into k0, the first len
 * (<= 960) bytes of the rest from src to dst (chacha20_avx512.c; the
 * AEAD's first call). */
void zinc_chacha20_avx512_first(uint32_t st[16], uint8_t k0[64], uint8_t *dst, const uint8_t *src,
				size_t len);
/* dst = (src XOR keystream) AND keep: keep is all ones, or zero for the
 * AEAD's forged messages (chacha20_avx512.c). */
void zinc_chacha20_avx512_keep(uint32_t st[16], uint8_t *dst, const uint8_t *src, size_t len,
			       uint64_t keep);
void zinc_aead_seal_ssse3(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			  size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
bool zinc_aead_open_ssse3(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			  size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
void zinc_aead_seal_avx2(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			 size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
bool zinc_aead_open_avx2(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			 size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
void zinc_aead_seal_avx512(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			   size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
bool zinc_aead_open_avx512(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			   size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
void zinc_aead_seal_avx512_ifma(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
				size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
bool zinc_aead_open_avx512_ifma(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
				size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
void zinc_blake2s_compress_x86_64(struct zinc_blake2s_state *state, const uint8_t *block,
				  size_t nblocks, uint32_t inc);
void zinc_blake2s_compress_final_x86_64(struct zinc_blake2s_state *state, const uint8_t *block,
					size_t nblocks, const uint8_t *last, uint32_t lastinc);
void zinc_blake2s_compress_ssse3(struct zinc_blake2s_state *state, const uint8_t *block,
				 size_t nblocks, uint32_t inc);
void zinc_blake2s_compress_final_ssse3(struct zinc_blake2s_state *state, const uint8_t *block,
				       size_t nblocks, const uint8_t *last, uint32_t lastinc);
void zinc_blake2s_compress_avx(struct zinc_blake2s_state *state, const uint8_t *block,
			       size_t nblocks, uint32_t inc);
void zinc_blake2s_compress_final_avx(struct zinc_blake2s_state *state, const uint8_t *block,
				     size_t nblocks, const uint8_t *last, uint32_t lastinc);
void zinc_blake2s_compress_avx512(struct zinc_blake2s_state *state, const uint8_t *block,
				  size_t nblocks, uint32_t inc);
void zinc_blake2s_compress_final_avx512(struct zinc_blake2s_state *state, const uint8_t *block,
					size_t nblocks, const uint8_t *last, uint32_t lastinc);
void zinc_poly1305_blocks_x86_64(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
				 uint64_t hibit);
void zinc_poly1305_blocks_avx2(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
			       uint64_t hibit);
void zinc_poly1305_blocks_avx512(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
				 uint64_t hibit);
void zinc_poly1305_blocks_ifma(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
			       uint64_t hibit);
void zinc_x25519_bmi2_adx(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32]);
void zinc_x25519_base_bmi2_adx(uint8_t out[32], const uint8_t scalar[32]);
void zinc_x25519_x8_ifma(uint8_t out[8][32], const uint8_t scalar[8][32],
			 const uint8_t point[8][32]);
void zinc_x25519_x4_avx2(uint8_t out[4][32], const uint8_t scalar[4][32],
			 const uint8_t point[4][32]);
#endif

#if defined(__aarch64__)
/* zinc/arm64/: NEON ChaCha20 and the AEAD on it with 64-bit scalar
 * Poly1305; the streaming Poly1305 on the same scalar code. */
void zinc_chacha20_neon(uint32_t state[16], uint8_t *dst, const uint8_t *src, size_t len);
void zinc_aead_seal_neon(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			 size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
bool zinc_aead_open_neon(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			 size_t ad_len, const uint8_t key[32], const uint8_t nonce[12]);
void zinc_poly1305_blocks_arm64(struct zinc_poly1305_ctx *ctx, const uint8_t *src, size_t nblocks,
				uint64_t hibit);
/* X25519 over four 64-bit limbs (fe64_arm64.S) */
void zinc_x25519_arm64(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32]);
void zinc_pick_arm64(struct zinc_impl *t, enum zinc_level level);
#endif

#endif
