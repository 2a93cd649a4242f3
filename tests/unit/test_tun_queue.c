/* The TUN queue of an inner packet (daemon/tun.c, tun_queue_of): the same
 * for both directions of a flow (the kernel's tun driver sends a flow's
 * packets back on the queue it was last written to), the same for every
 * fragment of a packet (ports only in the first), within range, and spread
 * over the queues. */
#include "test.h"
#include "../../daemon/tun.c"

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* IPv4 or IPv6 header, then 4 bytes of ports; frag: IPv4 flags/offset. */
static size_t packet(uint8_t *p, bool v6, uint8_t proto, const uint8_t *src, const uint8_t *dst,
		     uint16_t sport, uint16_t dport, uint16_t frag)
{
	size_t l4 = v6 ? 40 : 20;

	memset(p, 0, 64);
	if (v6) {
		p[0] = 0x60;
		p[6] = proto;
		memcpy(p + 8, src, 16);
		memcpy(p + 24, dst, 16);
	} else {
		p[0] = 0x45;
		p[9] = proto;
		put_be16(p + 6, frag);
		memcpy(p + 12, src, 4);
		memcpy(p + 16, dst, 4);
	}
	put_be16(p + l4, sport);
	put_be16(p + l4 + 2, dport);
	return l4 + 8;
}

static void random_bytes(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)rnd();
}

static void test_symmetric(void)
{
	uint8_t a[16], b[16], fwd[64], rev[64];

	for (int i = 0; i < 2000; i++) {
		bool v6 = i & 1;
		uint8_t proto = i & 2 ? 17 : 6;
		uint16_t sp = (uint16_t)rnd(), dp = (uint16_t)rnd();
		int n = 2 + i % 7;
		size_t len;

		random_bytes(a, sizeof(a));
		random_bytes(b, sizeof(b));
		len = packet(fwd, v6, proto, a, b, sp, dp, 0);
		packet(rev, v6, proto, b, a, dp, sp, 0);
		CHECK(tun_queue_of(fwd, len, n) == tun_queue_of(rev, len, n));
		CHECK(tun_queue_of(fwd, len, n) >= 0 && tun_queue_of(fwd, len, n) < n);
		/* every fragment of an IPv4 packet: the queue of the first */
		if (!v6) {
			uint8_t first[64], later[64];

			packet(first, false, proto, a, b, sp, dp, 0x2000);
			packet(later, false, proto, a, b, 0, 0, 0x0010);
			CHECK(tun_queue_of(first, len, n) == tun_queue_of(later, len, n));
		}
	}
}

static void test_spread(void)
{
	enum { N = 4, FLOWS = 4000 };
	int count[N] = {0};
	uint8_t a[16], b[16], p[64];

	for (int i = 0; i < FLOWS; i++) {
		size_t len;

		random_bytes(a, sizeof(a));
		random_bytes(b, sizeof(b));
		len = packet(p, i & 1, 6, a, b, (uint16_t)rnd(), 5201, 0);
		count[tun_queue_of(p, len, N)]++;
	}
	for (int q = 0; q < N; q++)
		CHECK(count[q] > FLOWS / N / 2);
}

static void test_odd_input(void)
{
	uint8_t p[64];

	memset(p, 0, sizeof(p));
	CHECK(tun_queue_of(p, 0, 4) == 0);
	CHECK(tun_queue_of(p, sizeof(p), 1) == 0);
	/* truncated headers, a header length of 0, version 0: in range */
	for (size_t len = 1; len <= sizeof(p); len++) {
		p[0] = (uint8_t)(len & 1 ? 0x40 : 0x60);
		p[9] = p[6] = 6;
		CHECK(tun_queue_of(p, len, 8) >= 0 && tun_queue_of(p, len, 8) < 8);
	}
}

int main(void)
{
	test_symmetric();
	test_spread();
	test_odd_input();
	return test_finish("test_tun_queue");
}
