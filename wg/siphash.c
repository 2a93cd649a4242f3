/* SipHash-2-4 (Aumasson, Bernstein): little-endian words, two compression
 * rounds per 8-byte block, four finalisation rounds. */
#include "siphash.h"

static uint64_t rotl(uint64_t x, unsigned int b)
{
	return x << b | x >> (64 - b);
}

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

struct sip_state {
	uint64_t v0, v1, v2, v3;
};

static void sip_round(struct sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl(s->v2, 32);
}

static void sip_block(struct sip_state *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t wg_siphash24(const uint8_t key[WG_SIPHASH_KEY_LEN], const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t k0 = load_le64(key), k1 = load_le64(key + 8), last;
	struct sip_state s = {
	    k0 ^ 0x736f6d6570736575ULL,
	    k1 ^ 0x646f72616e646f6dULL,
	    k0 ^ 0x6c7967656e657261ULL,
	    k1 ^ 0x7465646279746573ULL,
	};
	size_t i;

	for (i = 0; i + 8 <= len; i += 8)
		sip_block(&s, load_le64(p + i));
	/* Final block: the remaining bytes, with len mod 256 in the top byte. */
	last = (uint64_t)(len & 0xff) << 56;
	for (size_t j = 0; i + j < len; j++)
		last |= (uint64_t)p[i + j] << (8 * j);
	sip_block(&s, last);
	s.v2 ^= 0xff;
	for (int r = 0; r < 4; r++)
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
