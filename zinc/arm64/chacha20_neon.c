// SPDX-License-Identifier: MIT
/* ChaCha20 in NEON: four blocks at a time with register i holding word i
 * of four consecutive blocks (one quarter round runs on all four, only the
 * output needs a transpose), and one block in four row registers for the
 * last one to three blocks, where the four-block kernel would compute
 * keystream that is thrown away. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

#include <zinc/memzero.h>

#include "../cpu.h"

/* 16 and 8 are byte moves (rev32, tbl); 12 and 7 a shift and an insert. */
#define ROT16(x) vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(x)))
#define ROT8(x) vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(x), rot8))
#define ROTN(x, n) vsriq_n_u32(vshlq_n_u32(x, n), x, 32 - (n))

#define QR(a, b, c, d)                                                                             \
	do {                                                                                       \
		a = vaddq_u32(a, b);                                                               \
		d = ROT16(veorq_u32(d, a));                                                        \
		c = vaddq_u32(c, d);                                                               \
		b = ROTN(veorq_u32(b, c), 12);                                                     \
		a = vaddq_u32(a, b);                                                               \
		d = ROT8(veorq_u32(d, a));                                                         \
		c = vaddq_u32(c, d);                                                               \
		b = ROTN(veorq_u32(b, c), 7);                                                      \
	} while (0)

static const uint8_t rot8_idx[16] = {3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14};

#define XOR16(off, k)                                                                              \
	vst1q_u8(dst + (off), veorq_u8(vld1q_u8(src + (off)), vreinterpretq_u8_u32(k)))

/* Words a..d (one lane per block) to 16 bytes at off of each block. */
#define OUT4(a, b, c, d, off)                                                                      \
	do {                                                                                       \
		uint32x4_t t0 = vtrn1q_u32(a, b), t1 = vtrn2q_u32(a, b);                           \
		uint32x4_t t2 = vtrn1q_u32(c, d), t3 = vtrn2q_u32(c, d);                           \
		XOR16((off), vreinterpretq_u32_u64(vtrn1q_u64(vreinterpretq_u64_u32(t0),           \
							      vreinterpretq_u64_u32(t2))));        \
		XOR16(64 + (off), vreinterpretq_u32_u64(vtrn1q_u64(vreinterpretq_u64_u32(t1),      \
								   vreinterpretq_u64_u32(t3))));   \
		XOR16(128 + (off), vreinterpretq_u32_u64(vtrn2q_u64(vreinterpretq_u64_u32(t0),     \
								    vreinterpretq_u64_u32(t2))));  \
		XOR16(192 + (off), vreinterpretq_u32_u64(vtrn2q_u64(vreinterpretq_u64_u32(t1),     \
								    vreinterpretq_u64_u32(t3))));  \
	} while (0)

/* 256 bytes: blocks st[12] .. st[12] + 3 (the caller advances st[12]). */
static void chacha20_4x(const uint32_t st[16], uint8_t *dst, const uint8_t *src)
{
	static const uint32_t ctr[4] = {0, 1, 2, 3};
	const uint8x16_t rot8 = vld1q_u8(rot8_idx);
	const uint32x4_t s12 = vaddq_u32(vdupq_n_u32(st[12]), vld1q_u32(ctr));
	uint32x4_t x0 = vdupq_n_u32(st[0]), x1 = vdupq_n_u32(st[1]), x2 = vdupq_n_u32(st[2]);
	uint32x4_t x3 = vdupq_n_u32(st[3]), x4 = vdupq_n_u32(st[4]), x5 = vdupq_n_u32(st[5]);
	uint32x4_t x6 = vdupq_n_u32(st[6]), x7 = vdupq_n_u32(st[7]), x8 = vdupq_n_u32(st[8]);
	uint32x4_t x9 = vdupq_n_u32(st[9]), x10 = vdupq_n_u32(st[10]), x11 = vdupq_n_u32(st[11]);
	uint32x4_t x12 = s12, x13 = vdupq_n_u32(st[13]), x14 = vdupq_n_u32(st[14]);
	uint32x4_t x15 = vdupq_n_u32(st[15]);

	for (int i = 0; i < 10; i++) {
		QR(x0, x4, x8, x12);
		QR(x1, x5, x9, x13);
		QR(x2, x6, x10, x14);
		QR(x3, x7, x11, x15);
		QR(x0, x5, x10, x15);
		QR(x1, x6, x11, x12);
		QR(x2, x7, x8, x13);
		QR(x3, x4, x9, x14);
	}
	x0 = vaddq_u32(x0, vdupq_n_u32(st[0]));
	x1 = vaddq_u32(x1, vdupq_n_u32(st[1]));
	x2 = vaddq_u32(x2, vdupq_n_u32(st[2]));
	x3 = vaddq_u32(x3, vdupq_n_u32(st[3]));
	OUT4(x0, x1, x2, x3, 0);
	x4 = vaddq_u32(x4, vdupq_n_u32(st[4]));
	x5 = vaddq_u32(x5, vdupq_n_u32(st[5]));
	x6 = vaddq_u32(x6, vdupq_n_u32(st[6]));
	x7 = vaddq_u32(x7, vdupq_n_u32(st[7]));
	OUT4(x4, x5, x6, x7, 16);
	x8 = vaddq_u32(x8, vdupq_n_u32(st[8]));
	x9 = vaddq_u32(x9, vdupq_n_u32(st[9]));
	x10 = vaddq_u32(x10, vdupq_n_u32(st[10]));
	x11 = vaddq_u32(x11, vdupq_n_u32(st[11]));
	OUT4(x8, x9, x10, x11, 32);
	x12 = vaddq_u32(x12, s12);
	x13 = vaddq_u32(x13, vdupq_n_u32(st[13]));
	x14 = vaddq_u32(x14, vdupq_n_u32(st[14]));
	x15 = vaddq_u32(x15, vdupq_n_u32(st[15]));
	OUT4(x12, x13, x14, x15, 48);
}

/* One block, rows in registers; the diagonal round rotates rows 1-3. */
static void chacha20_1x(const uint32_t st[16], uint8_t *dst, const uint8_t *src)
{
	const uint8x16_t rot8 = vld1q_u8(rot8_idx);
	const uint32x4_t s0 = vld1q_u32(st), s1 = vld1q_u32(st + 4);
	const uint32x4_t s2 = vld1q_u32(st + 8), s3 = vld1q_u32(st + 12);
	uint32x4_t a = s0, b = s1, c = s2, d = s3;

	for (int i = 0; i < 10; i++) {
		QR(a, b, c, d);
		b = vextq_u32(b, b, 1);
		c = vextq_u32(c, c, 2);
		d = vextq_u32(d, d, 3);
		QR(a, b, c, d);
		b = vextq_u32(b, b, 3);
		c = vextq_u32(c, c, 2);
		d = vextq_u32(d, d, 1);
	}
	XOR16(0, vaddq_u32(a, s0));
	XOR16(16, vaddq_u32(b, s1));
	XOR16(32, vaddq_u32(c, s2));
	XOR16(48, vaddq_u32(d, s3));
}

/* Whole blocks xor in place of a copy; a partial last one goes through a
 * buffer that is wiped (it holds spare keystream). */
static void tail_1x(uint32_t st[16], uint8_t *dst, const uint8_t *src, size_t len)
{
	uint8_t buf[64] = {0};

	for (; len >= 64; len -= 64, dst += 64, src += 64) {
		chacha20_1x(st, dst, src);
		st[12]++;
	}
	if (len) {
		memcpy(buf, src, len);
		chacha20_1x(st, buf, buf);
		memcpy(dst, buf, len);
		st[12]++;
		zinc_memzero(buf, sizeof(buf));
	}
}

void zinc_chacha20_neon(uint32_t st[16], uint8_t *dst, const uint8_t *src, size_t len)
{
	while (len >= 256) {
		chacha20_4x(st, dst, src);
		st[12] += 4;
		dst += 256;
		src += 256;
		len -= 256;
	}
	if (len > 192) {
		uint8_t buf[256] = {0};

		memcpy(buf, src, len);
		chacha20_4x(st, buf, buf);
		memcpy(dst, buf, len);
		st[12] += 4;
		zinc_memzero(buf, sizeof(buf));
	} else if (len) {
		tail_1x(st, dst, src, len);
	}
}
#endif
