/* Engine bookkeeping: peer table and insertion order, receiver indices
 * (random, never colliding), staged packet ring (128, oldest dropped),
 * peer removal with jobs in flight, allowed IPs through the peer API. */
#include "../../wg/device.h"
#include "../../wg/index.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "engine_harness.h"

static struct h_clock clk = {3000 * SEC, 1780000000ULL * SEC};
static struct h_side A, B;

static void setup(void)
{
	if (A.dev)
		wg_device_free(A.dev);
	if (B.dev)
		wg_device_free(B.dev);
	h_side_init(&A, &clk, 0x9e1, "10.0.0.1", 1001, 1);
	h_side_init(&B, &clk, 0x9e2, "10.0.0.2", 1002, 2);
}

static void test_peer_table(void)
{
	enum { N = 300 };
	static uint8_t keys[N][32];
	struct wg_peer *p, *mid;
	uint64_t seed = 99;
	size_t i;

	setup();
	for (i = 0; i < N; i++) {
		test_randbytes(&seed, keys[i], 32);
		CHECK(wg_device_peer_add(A.dev, keys[i]) != NULL);
	}
	CHECK(wg_device_peer_count(A.dev) == N);
	CHECK(wg_device_peer_add(A.dev, keys[5]) == wg_device_peer_lookup(A.dev, keys[5]));
	CHECK(wg_device_peer_count(A.dev) == N);
	/* Iteration in insertion order, also after removing from the middle. */
	mid = wg_device_peer_lookup(A.dev, keys[150]);
	wg_device_peer_remove(A.dev, mid);
	CHECK(wg_device_peer_lookup(A.dev, keys[150]) == NULL);
	i = 0;
	for (p = wg_device_peer_next(A.dev, NULL); p; p = wg_device_peer_next(A.dev, p)) {
		struct wg_peer_info info;
		if (i == 150)
			i++;
		wg_peer_get_info(p, &info);
		CHECK(!memcmp(info.public_key, keys[i], 32));
		i++;
	}
	CHECK(i == N);
	for (i = 0; i < N; i++)
		if (i != 150)
			CHECK(wg_device_peer_lookup(A.dev, keys[i]) != NULL);
	wg_device_peers_clear(A.dev);
	CHECK(wg_device_peer_count(A.dev) == 0 && !wg_device_peer_next(A.dev, NULL));
	CHECK(wg_device_peer_add(A.dev, keys[1]) != NULL);
}

/* RNG that repeats itself for 4-byte requests, to force index collisions. */
static int stuck_calls;
static bool stuck_random(void *ctx, void *buf, size_t len)
{
	static const uint32_t seq[] = {7, 7, 7, 7, 9, 7, 9, 9, 11};
	if (len == 4) {
		uint32_t v = seq[stuck_calls++ % (sizeof(seq) / sizeof(seq[0]))];
		uint8_t *b = buf;

		/* the engine reads a new index as little-endian (wg/index.c) */
		for (int i = 0; i < 4; i++)
			b[i] = (uint8_t)(v >> (8 * i));
		return true;
	}
	return h_random(ctx, buf, len);
}

static void test_index_unique(void)
{
	struct wg_index_entry e[3], f[200];
	struct wg_env env = {h_now, h_wall, stuck_random, h_rng_ready, &A};
	struct wg_io io = {h_send, h_deliver, &A, h_event, NULL};
	struct wg_device *dev;

	setup();
	dev = wg_device_new(&env, &io);
	memset(e, 0, sizeof(e));
	stuck_calls = 0;
	CHECK(wg_index_insert_new(dev, &e[0]) && e[0].index == 7);
	CHECK(wg_index_insert_new(dev, &e[1]) && e[1].index == 9);
	CHECK(wg_index_insert_new(dev, &e[2]) && e[2].index == 11);
	e[1].type = WG_INDEX_KEYPAIR;
	CHECK(wg_index_lookup(&dev->index, 9, WG_INDEX_KEYPAIR) == &e[1]);
	CHECK(wg_index_lookup(&dev->index, 9, WG_INDEX_HANDSHAKE) == NULL);
	wg_index_remove(&dev->index, &e[0]);
	CHECK(wg_index_lookup(&dev->index, 7, 3) == NULL);
	wg_device_free(dev);

	/* Many entries: the table grows, every index stays unique and found. */
	dev = A.dev;
	memset(f, 0, sizeof(f));
	for (int i = 0; i < 200; i++) {
		f[i].type = WG_INDEX_HANDSHAKE;
		CHECK(wg_index_insert_new(dev, &f[i]));
	}
	for (int i = 0; i < 200; i++) {
		CHECK(wg_index_lookup(&dev->index, f[i].index, WG_INDEX_HANDSHAKE) == &f[i]);
		for (int j = 0; j < i; j++)
			CHECK(f[i].index != f[j].index);
	}
	for (int i = 0; i < 200; i += 2)
		wg_index_remove(&dev->index, &f[i]);
	for (int i = 0; i < 200; i++)
		CHECK((wg_index_lookup(&dev->index, f[i].index, 3) == &f[i]) == (i % 2 == 1));
	for (int i = 1; i < 200; i += 2)
		wg_index_remove(&dev->index, &f[i]);
}

static void test_staged_ring(void)
{
	struct wg_peer *pA;

	setup();
	pA = h_connect(&A, &B, NULL, true);
	h_connect(&B, &A, NULL, true);
	for (int i = 0; i < 130; i++)
		CHECK(h_send_ip(&A, &B, 40 + (size_t)i, (uint8_t)i) == WG_STAGED);
	CHECK(wg_staged_count(pA) == 128);
	CHECK(A.sent_by_type[1] == 1);
	h_pump(&A, &B, NULL, NULL);
	CHECK(wg_staged_count(pA) == 0 && pA->staged == NULL);
	CHECK(B.ndelivered == 128);
	/* The two oldest made room; the rest arrive in order. */
	CHECK(B.delivered[0].len == 42 && B.delivered[127].len == 40 + 129);
	for (int i = 1; i < 128; i++)
		CHECK(B.delivered[i].len == B.delivered[i - 1].len + 1);
}

static void test_remove_with_jobs(void)
{
	struct wg_tx_job tj;
	struct wg_rx_job rj;
	uint8_t buf[H_PKT], in[H_PKT];
	struct wg_peer *pA;
	size_t n;

	setup();
	pA = h_connect(&A, &B, NULL, true);
	h_connect(&B, &A, NULL, true);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	/* A job for B's direction and one received by A, then the peers go. */
	h_ip4(buf + 16, 100, A.tun_ip, B.tun_ip, 3);
	CHECK(wg_device_prepare_tx(A.dev, buf + 16, 100, &tj) == WG_OK);
	B.nout = 0;
	CHECK(h_send_ip(&B, &A, 100, 4) == WG_OK);
	memcpy(in, B.out[0].data, B.out[0].len);
	n = B.out[0].len;
	CHECK(wg_device_prepare_rx(A.dev, &B.addr, in, n, &rj) == WG_OK);
	wg_device_peer_remove(A.dev, pA);
	CHECK(wg_device_peer_count(A.dev) == 0);
	/* The jobs still hold their keypairs: sealing and opening are safe, and
	 * completing them delivers nothing. */
	CHECK(wg_tx_seal(A.dev, &tj, buf + 16, buf) == wg_tx_sealed_len(A.dev, &tj));
	wg_device_complete_tx(A.dev, &tj, true);
	CHECK(wg_rx_open(&rj, in, n));
	A.ndelivered = 0;
	CHECK(wg_device_complete_rx(A.dev, &rj, NULL, NULL) == WG_ERR_DROPPED);
	CHECK(A.ndelivered == 0);
	/* Data for the removed peer's address now has no route. */
	CHECK(h_send_ip(&A, &B, 100, 5) == WG_ERR_NOROUTE);
}

static bool collect(void *ctx, int family, const void *addr, uint8_t cidr)
{
	int *n = ctx;
	(void)addr;
	CHECK(family == AF_INET || family == AF_INET6);
	CHECK(cidr <= 128);
	(*n)++;
	return true;
}

static void test_allowed_ips(void)
{
	uint8_t net[4] = {10, 1, 0, 0}, host[4] = {10, 1, 2, 3}, v6[16] = {0xfd, 1};
	struct wg_peer *p1, *p2;
	uint8_t k1[32], k2[32];
	int n = 0;

	setup();
	memset(k1, 1, 32);
	memset(k2, 2, 32);
	p1 = wg_device_peer_add(A.dev, k1);
	p2 = wg_device_peer_add(A.dev, k2);
	CHECK(wg_peer_allowed_ip_add(p1, AF_INET, net, 16) == WG_OK);
	CHECK(wg_peer_allowed_ip_add(p1, AF_INET6, v6, 64) == WG_OK);
	CHECK(wg_peer_allowed_ip_add(p1, AF_INET, net, 33) == WG_ERR_INVALID);
	CHECK(wg_peer_allowed_ip_add(p2, AF_INET, host, 32) == WG_OK);
	CHECK(wg_device_route(A.dev, AF_INET, host) == p2);
	host[3] = 4;
	CHECK(wg_device_route(A.dev, AF_INET, host) == p1);
	/* Moving a prefix to another peer. */
	CHECK(wg_peer_allowed_ip_add(p2, AF_INET, net, 16) == WG_OK);
	CHECK(wg_device_route(A.dev, AF_INET, host) == p2);
	CHECK(wg_peer_allowed_ip_remove(p1, AF_INET, net, 16) == WG_ERR_INVALID);
	wg_peer_allowed_ips_foreach(p1, collect, &n);
	CHECK(n == 1);
	n = 0;
	wg_peer_allowed_ips_foreach(p2, collect, &n);
	CHECK(n == 2);
	wg_peer_allowed_ips_clear(p2);
	CHECK(wg_device_route(A.dev, AF_INET, host) == NULL);
}

int main(void)
{
	test_peer_table();
	test_index_unique();
	test_staged_ring();
	test_remove_with_jobs();
	test_allowed_ips();
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	return test_finish("test_engine_peers");
}
