// SPDX-License-Identifier: MIT
/*
 * X25519 (RFC 7748): Montgomery ladder over GF(2^255 - 19), field elements in
 * five 51-bit limbs multiplied with unsigned __int128. Constant time: the
 * ladder's only secret-dependent operation is a masked conditional swap.
 */
#include <stdlib.h>
#include <string.h>

#include <zinc/curve25519.h>
#include <zinc/memzero.h>
#include <zinc/random.h>

#include "cpu.h"
#include "fe_invert.h"

/* Fewest items a batch gives the lane kernel (fewer: one by one). */
#define ZINC_X25519_X8_MIN 3
#define ZINC_X25519_LANES_MAX 8

#if defined(__SIZEOF_INT128__) /* else fe25519_32.h */
typedef unsigned __int128 u128;

/* Little-endian limbs: value = sum v[i] * 2^(51 i). Limbs may exceed 51 bits
 * between operations; the bounds are noted where it matters. */
typedef struct {
	uint64_t v[5];
} fe;

#define MASK51 ((UINT64_C(1) << 51) - 1)

static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t r = 0;
	int i;

	for (i = 7; i >= 0; i--)
		r = (r << 8) | p[i];
	return r;
}

/* Reads 32 bytes, ignoring bit 255 as RFC 7748 requires for u coordinates. */
static void fe_frombytes(fe *h, const uint8_t s[32])
{
	h->v[0] = load_le64(s) & MASK51;
	h->v[1] = (load_le64(s + 6) >> 3) & MASK51;
	h->v[2] = (load_le64(s + 12) >> 6) & MASK51;
	h->v[3] = (load_le64(s + 19) >> 1) & MASK51;
	h->v[4] = (load_le64(s + 24) >> 12) & MASK51;
}

/* Carries so every limb is below 2^51 (plus a tiny excess in limb 0). */
static inline void fe_carry(fe *h)
{
	uint64_t c;

	c = h->v[0] >> 51;
	h->v[0] &= MASK51;
	h->v[1] += c;
	c = h->v[1] >> 51;
	h->v[1] &= MASK51;
	h->v[2] += c;
	c = h->v[2] >> 51;
	h->v[2] &= MASK51;
	h->v[3] += c;
	c = h->v[3] >> 51;
	h->v[3] &= MASK51;
	h->v[4] += c;
	c = h->v[4] >> 51;
	h->v[4] &= MASK51;
	h->v[0] += c * 19;
}

/* Writes the unique representative in [0, p). */
static void fe_tobytes(uint8_t s[32], const fe *f)
{
	fe h = *f;
	uint64_t q;
	int i;

	fe_carry(&h);
	fe_carry(&h);
	/* h < 2^255 + small. q = 1 exactly when h >= p, i.e. h + 19 >= 2^255. */
	q = (h.v[0] + 19) >> 51;
	q = (h.v[1] + q) >> 51;
	q = (h.v[2] + q) >> 51;
	q = (h.v[3] + q) >> 51;
	q = (h.v[4] + q) >> 51;
	/* Subtract q*p: add 19q, then drop 2^255. */
	h.v[0] += 19 * q;
	h.v[1] += h.v[0] >> 51;
	h.v[0] &= MASK51;
	h.v[2] += h.v[1] >> 51;
	h.v[1] &= MASK51;
	h.v[3] += h.v[2] >> 51;
	h.v[2] &= MASK51;
	h.v[4] += h.v[3] >> 51;
	h.v[3] &= MASK51;
	h.v[4] &= MASK51;

	uint64_t w[4] = {
	    h.v[0] | h.v[1] << 51,
	    h.v[1] >> 13 | h.v[2] << 38,
	    h.v[2] >> 26 | h.v[3] << 25,
	    h.v[3] >> 39 | h.v[4] << 12,
	};
	for (i = 0; i < 32; i++)
		s[i] = (uint8_t)(w[i / 8] >> (8 * (i % 8)));
	zinc_memzero(w, sizeof(w));
	zinc_memzero(&h, sizeof(h));
}

static inline void fe_0(fe *h)
{
	memset(h, 0, sizeof(*h));
}

static inline void fe_1(fe *h)
{
	memset(h, 0, sizeof(*h));
	h->v[0] = 1;
}

/* No carry: inputs below 2^52 give limbs below 2^53. */
static inline void fe_add(fe *h, const fe *f, const fe *g)
{
	for (int i = 0; i < 5; i++)
		h->v[i] = f->v[i] + g->v[i];
}

/* f - g + 4p, so no limb underflows for g limbs below 2^53. */
static inline void fe_sub(fe *h, const fe *f, const fe *g)
{
	h->v[0] = (f->v[0] + UINT64_C(0x1FFFFFFFFFFFB4)) - g->v[0];
	for (int i = 1; i < 5; i++)
		h->v[i] = (f->v[i] + UINT64_C(0x1FFFFFFFFFFFFC)) - g->v[i];
}

/* Reduces five 128-bit column sums to limbs below 2^51 (+ small in limb 1). */
static inline void fe_reduce128(fe *h, u128 r0, u128 r1, u128 r2, u128 r3, u128 r4)
{
	uint64_t c;

	r1 += (uint64_t)(r0 >> 51);
	r2 += (uint64_t)(r1 >> 51);
	r3 += (uint64_t)(r2 >> 51);
	r4 += (uint64_t)(r3 >> 51);
	c = (uint64_t)(r4 >> 51);
	h->v[0] = ((uint64_t)r0 & MASK51) + c * 19;
	h->v[1] = ((uint64_t)r1 & MASK51) + (h->v[0] >> 51);
	h->v[0] &= MASK51;
	h->v[2] = (uint64_t)r2 & MASK51;
	h->v[3] = (uint64_t)r3 & MASK51;
	h->v[4] = (uint64_t)r4 & MASK51;
}

/* Inputs with limbs below 2^54; 2^255 = 19 (mod p) folds the high columns. */
static void fe_mul(fe *h, const fe *f, const fe *g)
{
	const uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	const uint64_t g0 = g->v[0], g1 = g->v[1], g2 = g->v[2], g3 = g->v[3], g4 = g->v[4];
	const uint64_t g1_19 = 19 * g1, g2_19 = 19 * g2, g3_19 = 19 * g3, g4_19 = 19 * g4;
	u128 r0, r1, r2, r3, r4;

	r0 = (u128)f0 * g0 + (u128)f1 * g4_19 + (u128)f2 * g3_19 + (u128)f3 * g2_19 +
	     (u128)f4 * g1_19;
	r1 = (u128)f0 * g1 + (u128)f1 * g0 + (u128)f2 * g4_19 + (u128)f3 * g3_19 + (u128)f4 * g2_19;
	r2 = (u128)f0 * g2 + (u128)f1 * g1 + (u128)f2 * g0 + (u128)f3 * g4_19 + (u128)f4 * g3_19;
	r3 = (u128)f0 * g3 + (u128)f1 * g2 + (u128)f2 * g1 + (u128)f3 * g0 + (u128)f4 * g4_19;
	r4 = (u128)f0 * g4 + (u128)f1 * g3 + (u128)f2 * g2 + (u128)f3 * g1 + (u128)f4 * g0;
	fe_reduce128(h, r0, r1, r2, r3, r4);
}

static void fe_sq(fe *h, const fe *f)
{
	const uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	const uint64_t f0_2 = 2 * f0, f1_2 = 2 * f1;
	const uint64_t f1_38 = 38 * f1, f2_38 = 38 * f2, f3_38 = 38 * f3;
	const uint64_t f3_19 = 19 * f3, f4_19 = 19 * f4;
	u128 r0, r1, r2, r3, r4;

	r0 = (u128)f0 * f0 + (u128)f1_38 * f4 + (u128)f2_38 * f3;
	r1 = (u128)f0_2 * f1 + (u128)f2_38 * f4 + (u128)f3_19 * f3;
	r2 = (u128)f0_2 * f2 + (u128)f1 * f1 + (u128)f3_38 * f4;
	r3 = (u128)f0_2 * f3 + (u128)f1_2 * f2 + (u128)f4_19 * f4;
	r4 = (u128)f0_2 * f4 + (u128)f1_2 * f3 + (u128)f2 * f2;
	fe_reduce128(h, r0, r1, r2, r3, r4);
}

#else
#include "fe25519_32.h"
#endif

static void fe_sq_n(fe *h, const fe *f, int n)
{
	fe_sq(h, f);
	while (--n > 0)
		fe_sq(h, h);
}

#if defined(__SIZEOF_INT128__)
/* h = f * 121665, the ladder's (A - 2) / 4. */
static void fe_mul_a24(fe *h, const fe *f)
{
	u128 r[5];

	for (int i = 0; i < 5; i++)
		r[i] = (u128)f->v[i] * 121665;
	fe_reduce128(h, r[0], r[1], r[2], r[3], r[4]);
}
#endif

/* out = 1 / z (fe_invert.h). */
static void fe_invert(fe *out, const fe *z)
{
	fe t[4];

	FE_INVERT_CHAIN(fe_sq_n, fe_mul, out, z, &t[0], &t[1], &t[2], &t[3]);
	zinc_memzero(t, sizeof(t));
}

/* Swaps f and g when swap is 1, with no branch on swap. */
static inline void fe_cswap(fe *f, fe *g, uint64_t swap)
{
	const uint64_t mask = 0 - swap;

	for (size_t i = 0; i < sizeof(f->v) / sizeof(f->v[0]); i++) {
		const uint64_t t = mask & (f->v[i] ^ g->v[i]);

		f->v[i] ^= t;
		g->v[i] ^= t;
	}
}

void zinc_curve25519_clamp_secret(uint8_t secret[32])
{
	secret[0] &= 248;
	secret[31] = (uint8_t)((secret[31] & 127) | 64);
}

/* The portable entry of zinc/cpu.h: out = X25519(scalar, point) for a
 * clamped scalar (any scalar below 2^255 works), with no zero check. */
void zinc_x25519_generic(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32])
{
	fe x1, x2, z2, x3, z3;
	fe a, aa, b, bb, c, d, da, cb, ee;
	uint64_t swap = 0;
	int t;

	fe_frombytes(&x1, point);
	fe_1(&x2);
	fe_0(&z2);
	x3 = x1;
	fe_1(&z3);

	/* Bit 255 is ignored (0 after clamping); bit 254 is the top bit. */
	for (t = 254; t >= 0; t--) {
		const uint64_t k_t = (scalar[t >> 3] >> (t & 7)) & 1;

		swap ^= k_t;
		fe_cswap(&x2, &x3, swap);
		fe_cswap(&z2, &z3, swap);
		swap = k_t;

		fe_add(&a, &x2, &z2);
		fe_sq(&aa, &a);
		fe_sub(&b, &x2, &z2);
		fe_sq(&bb, &b);
		fe_sub(&ee, &aa, &bb);
		fe_add(&c, &x3, &z3);
		fe_sub(&d, &x3, &z3);
		fe_mul(&da, &d, &a);
		fe_mul(&cb, &c, &b);
		fe_add(&x3, &da, &cb);
		fe_sq(&x3, &x3);
		fe_sub(&z3, &da, &cb);
		fe_sq(&z3, &z3);
		fe_mul(&z3, &z3, &x1);
		fe_mul(&x2, &aa, &bb);
		fe_mul_a24(&z2, &ee);
		fe_add(&z2, &z2, &aa);
		fe_mul(&z2, &z2, &ee);
	}
	fe_cswap(&x2, &x3, swap);
	fe_cswap(&z2, &z3, swap);

	fe_invert(&z2, &z2);
	fe_mul(&x2, &x2, &z2);
	fe_tobytes(out, &x2);

	zinc_memzero(&swap, sizeof(swap));
	zinc_memzero(&x1, sizeof(x1));
	zinc_memzero(&x2, sizeof(x2));
	zinc_memzero(&z2, sizeof(z2));
	zinc_memzero(&x3, sizeof(x3));
	zinc_memzero(&z3, sizeof(z3));
	zinc_memzero(&a, sizeof(a));
	zinc_memzero(&aa, sizeof(aa));
	zinc_memzero(&b, sizeof(b));
	zinc_memzero(&bb, sizeof(bb));
	zinc_memzero(&c, sizeof(c));
	zinc_memzero(&d, sizeof(d));
	zinc_memzero(&da, sizeof(da));
	zinc_memzero(&cb, sizeof(cb));
	zinc_memzero(&ee, sizeof(ee));
}

bool zinc_curve25519(uint8_t out[32], const uint8_t secret[32], const uint8_t basepoint[32])
{
	static const uint8_t zero[32] = {0};
	uint8_t e[32];

	memcpy(e, secret, 32);
	zinc_curve25519_clamp_secret(e);
	/* The one dispatch point: the entry zinc_impl() chose for this CPU. */
	zinc_impl()->x25519(out, e, basepoint);
	zinc_memzero(e, sizeof(e));

	/* A low-order (or zero) input point gives the all-zero output. */
	return !zinc_memeq(out, zero, 32);
}

/* Lanes: up to eight (or four) items, the rest padded with copies of the
 * first. */
static size_t batch_x8(zinc_x25519_x8_fn fn, size_t lanes, size_t m, uint8_t *const out[],
		       const uint8_t *const secret[], const uint8_t *const point[], bool ok[])
{
	static const uint8_t zero[32] = {0};
	uint8_t e[ZINC_X25519_LANES_MAX][32], pt[ZINC_X25519_LANES_MAX][32];
	uint8_t r[ZINC_X25519_LANES_MAX][32];
	size_t good = 0;

	for (size_t l = 0; l < lanes; l++) {
		memcpy(e[l], secret[l < m ? l : 0], 32);
		zinc_curve25519_clamp_secret(e[l]);
		memcpy(pt[l], point[l < m ? l : 0], 32);
	}
	fn(r, e, pt);
	for (size_t l = 0; l < m; l++) {
		const bool v = !zinc_memeq(r[l], zero, 32);

		memcpy(out[l], r[l], 32);
		if (ok)
			ok[l] = v;
		good += v;
	}
	zinc_memzero(e, sizeof(e));
	zinc_memzero(r, sizeof(r));
	return good;
}

size_t zinc_curve25519_batch(size_t n, uint8_t *const out[], const uint8_t *const secret[],
			     const uint8_t *const point[], bool ok[])
{
	const zinc_x25519_x8_fn x8 = zinc_impl()->x25519_x8;
	const size_t lanes = zinc_impl()->x25519_lanes;
	size_t good = 0, i = 0;

	/* eight IFMA lanes cost about two single ladders, four AVX2 lanes
	 * about three: worth it from three */
	while (x8 && n - i >= ZINC_X25519_X8_MIN) {
		const size_t m = n - i < lanes ? n - i : lanes;

		good += batch_x8(x8, lanes, m, out + i, secret + i, point + i, ok ? ok + i : NULL);
		i += m;
	}
	for (; i < n; i++) {
		const bool v = zinc_curve25519(out[i], secret[i], point[i]);

		if (ok)
			ok[i] = v;
		good += v;
	}
	return good;
}

/* The portable entry of zinc/cpu.h for public keys: the ladder on u = 9. */
void zinc_x25519_base_generic(uint8_t out[32], const uint8_t scalar[32])
{
	static const uint8_t basepoint[32] = {9};

	zinc_x25519_generic(out, scalar, basepoint);
}

bool zinc_curve25519_generate_public(uint8_t pub[32], const uint8_t secret[32])
{
	static const uint8_t zero[32] = {0};
	uint8_t e[32];

	memcpy(e, secret, 32);
	zinc_curve25519_clamp_secret(e);
	zinc_impl()->x25519_base(pub, e);
	zinc_memzero(e, sizeof(e));
	return !zinc_memeq(pub, zero, 32);
}

/* A key generated from an RNG that failed would be predictable; there is no
 * safe value to return, so this aborts. Callers that can wait check
 * zinc_rng_is_initialized() or call zinc_get_random_bytes() themselves. */
void zinc_curve25519_generate_secret(uint8_t secret[32])
{
	if (!zinc_get_random_bytes(secret, 32))
		abort();
	zinc_curve25519_clamp_secret(secret);
}
