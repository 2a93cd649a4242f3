/* Engine: handshakes in both directions, with and without PSK, data both
 * ways, split data path, keepalive confirmation, stats. */
#include "engine_harness.h"

static struct h_clock clk = {1000 * SEC, 1700000000ULL * SEC};
static struct h_side A, B;

static void setup(const uint8_t *psk_a, const uint8_t *psk_b)
{
	if (A.dev)
		wg_device_free(A.dev);
	if (B.dev)
		wg_device_free(B.dev);
	h_side_init(&A, &clk, 0x1111, "10.0.0.1", 1001, 1);
	h_side_init(&B, &clk, 0x2222, "10.0.0.2", 1002, 2);
	CHECK(h_connect(&A, &B, psk_a, true) != NULL);
	CHECK(h_connect(&B, &A, psk_b, true) != NULL);
}

static bool delivered_has(struct h_side *s, size_t len, uint8_t fill)
{
	for (size_t i = 0; i < s->ndelivered; i++)
		if (s->delivered[i].len == len && s->delivered[i].data[len - 1] == fill)
			return true;
	return false;
}

/* from sends first: it initiates; the packet is staged until the handshake. */
static void handshake_and_data(struct h_side *from, struct h_side *to)
{
	struct wg_peer_info info;
	struct wg_peer *p;

	CHECK(h_send_ip(from, to, 100, 0xA1) == WG_STAGED);
	CHECK(from->nout == 1 && from->out[0].len == 148);
	h_pump(from, to, NULL, NULL);
	/* initiation -> response -> staged packet (confirms the session). */
	CHECK(from->sent_by_type[1] == 1);
	CHECK(to->sent_by_type[2] == 1);
	CHECK(from->sent_by_type[4] == 1);
	CHECK(to->ndelivered == 1 && delivered_has(to, 100, 0xA1));
	/* The responder may now send. */
	CHECK(h_send_ip(to, from, 60, 0xB2) == WG_OK);
	h_pump(from, to, NULL, NULL);
	CHECK(from->ndelivered == 1 && delivered_has(from, 60, 0xB2));
	CHECK(from->delivered_from == wg_device_peer_lookup(from->dev, to->pub));
	/* Many packets both ways, in order. */
	for (int i = 0; i < 50; i++) {
		CHECK(h_send_ip(from, to, 40 + (size_t)i, (uint8_t)i) == WG_OK);
		CHECK(h_send_ip(to, from, 1400 - (size_t)i, (uint8_t)i) == WG_OK);
	}
	h_pump(from, to, NULL, NULL);
	CHECK(to->ndelivered == 51 && from->ndelivered == 51);
	for (int i = 0; i < 50; i++) {
		CHECK(to->delivered[1 + i].len == 40 + (size_t)i);
		CHECK(from->delivered[1 + i].len == 1400 - (size_t)i);
	}
	p = wg_device_peer_lookup(from->dev, to->pub);
	wg_peer_get_info(p, &info);
	CHECK(info.last_handshake_wall_ns == clk.wall);
	CHECK(info.tx_bytes > 0 && info.rx_bytes > 0);
}

static void test_direction(bool psk, bool a_first)
{
	uint8_t key[32];
	memset(key, 0x5c, 32);
	setup(psk ? key : NULL, psk ? key : NULL);
	if (a_first)
		handshake_and_data(&A, &B);
	else
		handshake_and_data(&B, &A);
}

static void test_psk_mismatch(void)
{
	uint8_t k1[32], k2[32];
	memset(k1, 1, 32);
	memset(k2, 2, 32);
	setup(k1, k2);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	/* B answered, A could not open the response: no data flows. */
	CHECK(B.sent_by_type[2] == 1);
	CHECK(A.sent_by_type[4] == 0);
	CHECK(B.ndelivered == 0);
}

/* The exact byte counts the kernel would show: UDP payload sizes. */
static void test_stats_bytes(void)
{
	struct wg_peer_info ia, ib;
	setup(NULL, NULL);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	wg_peer_get_info(wg_device_peer_lookup(A.dev, B.pub), &ia);
	wg_peer_get_info(wg_device_peer_lookup(B.dev, A.pub), &ib);
	/* A: initiation 148 + data 16+112+16 = 292 out; response 92 in. */
	CHECK(ia.tx_bytes == 148 + 144);
	CHECK(ia.rx_bytes == 92);
	CHECK(ib.rx_bytes == 148 + 144);
	CHECK(ib.tx_bytes == 92);
}

/* Padding: to 16, never past the MTU. */
static void test_padding(void)
{
	setup(NULL, NULL);
	wg_device_set_mtu(A.dev, 1420);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	A.nout = 0;
	CHECK(h_send_ip(&A, &B, 21, 1) == WG_OK);
	CHECK(A.nout == 1 && A.out[0].len == 16 + 32 + 16);
	CHECK(h_send_ip(&A, &B, 1419, 1) == WG_OK);
	CHECK(A.nout == 2 && A.out[1].len == 16 + 1420 + 16);
	CHECK(h_send_ip(&A, &B, 1420, 1) == WG_OK);
	CHECK(A.nout == 3 && A.out[2].len == 16 + 1420 + 16);
	CHECK(h_send_ip(&A, &B, 1408, 1) == WG_OK);
	CHECK(A.nout == 4 && A.out[3].len == 16 + 1408 + 16);
	h_pump(&A, &B, NULL, NULL);
	CHECK(B.ndelivered == 5 && B.delivered[1].len == 21 && B.delivered[2].len == 1419);
}

/* The split path yields the same wire format and keeps order. */
static void test_split_path(void)
{
	struct wg_tx_job jobs[4];
	uint8_t bufs[4][H_PKT];
	setup(NULL, NULL);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	B.ndelivered = 0;
	for (int i = 0; i < 4; i++) {
		uint8_t *ip = bufs[i] + 16;
		h_ip4(ip, 80 + (size_t)i, A.tun_ip, B.tun_ip, (uint8_t)(0x10 + i));
		CHECK(wg_device_prepare_tx(A.dev, ip, 80 + (size_t)i, &jobs[i]) == WG_OK);
	}
	/* Seal out of order (as worker threads might), complete in order. */
	for (int i = 3; i >= 0; i--) {
		size_t need = wg_tx_sealed_len(A.dev, &jobs[i]);
		size_t n = wg_tx_seal(A.dev, &jobs[i], bufs[i] + 16, bufs[i]);
		CHECK(n == need);
	}
	for (int i = 0; i < 4; i++) {
		size_t n = wg_tx_sealed_len(A.dev, &jobs[i]);
		struct wg_rx_job rj;
		const uint8_t *out;
		size_t out_len;
		wg_device_complete_tx(A.dev, &jobs[i], true);
		CHECK(wg_device_prepare_rx(B.dev, &A.addr, bufs[i], n, &rj) == WG_OK);
		CHECK(wg_rx_open(&rj, bufs[i], n));
		CHECK(wg_device_complete_rx(B.dev, &rj, &out, &out_len) == WG_OK);
		CHECK(out_len == 80 + (size_t)i && out[out_len - 1] == 0x10 + i);
		/* A replay of the same message is refused. */
		CHECK(wg_device_receive(B.dev, &A.addr, bufs[i], n) != WG_OK);
	}
	CHECK(B.ndelivered == 0); /* complete_rx with out does not deliver */
	{			  /* A bad tag is caught by open. */
		struct wg_tx_job j;
		struct wg_rx_job rj;
		uint8_t *ip = bufs[0] + 16;
		size_t n;
		h_ip4(ip, 64, A.tun_ip, B.tun_ip, 1);
		CHECK(wg_device_prepare_tx(A.dev, ip, 64, &j) == WG_OK);
		n = wg_tx_seal(A.dev, &j, ip, bufs[0]);
		wg_device_complete_tx(A.dev, &j, true);
		bufs[0][20] ^= 1;
		CHECK(wg_device_prepare_rx(B.dev, &A.addr, bufs[0], n, &rj) == WG_OK);
		CHECK(!wg_rx_open(&rj, bufs[0], n));
		CHECK(wg_device_complete_rx(B.dev, &rj, NULL, NULL) == WG_ERR_DROPPED);
	}
}

static void test_no_route_no_key(void)
{
	uint8_t buf[100], other[4] = {192, 168, 9, 9};
	setup(NULL, NULL);
	h_ip4(buf, sizeof(buf), A.tun_ip, other, 0);
	CHECK(wg_device_send(A.dev, buf, sizeof(buf)) == WG_ERR_NOROUTE);
	CHECK(wg_device_send(A.dev, buf, 10) == WG_ERR_INVALID);
	buf[0] = 0x75;
	CHECK(wg_device_send(A.dev, buf, sizeof(buf)) == WG_ERR_INVALID);
	/* A peer without endpoint cannot be reached. */
	wg_peer_set_endpoint(wg_device_peer_lookup(A.dev, B.pub), NULL);
	CHECK(h_send_ip(&A, &B, 100, 0) == WG_ERR_NOKEY);
	CHECK(A.nout == 0);
}

/* Roaming: the endpoint follows the latest authenticated packet only. */
static void test_roaming(void)
{
	struct wg_endpoint moved, bogus;
	struct wg_peer_info info;
	struct wg_peer *pB;
	uint8_t junk[64];

	setup(NULL, NULL);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	pB = wg_device_peer_lookup(B.dev, A.pub);
	h_endpoint4(&moved, "10.0.0.11", 4444);
	A.nout = 0;
	CHECK(h_send_ip(&A, &B, 100, 2) == WG_OK);
	CHECK(wg_device_receive(B.dev, &moved, A.out[0].data, A.out[0].len) == WG_OK);
	wg_peer_get_info(pB, &info);
	CHECK(info.has_endpoint && info.endpoint.addr.in4.sin_port == htons(4444));
	/* A forged or replayed packet from elsewhere does not move it. */
	h_endpoint4(&bogus, "10.0.0.66", 6666);
	CHECK(wg_device_receive(B.dev, &bogus, A.out[0].data, A.out[0].len) == WG_ERR_DROPPED);
	memset(junk, 0, sizeof(junk));
	junk[0] = 4;
	memcpy(junk + 4, A.out[0].data + 4, 4); /* right index, bad tag */
	CHECK(wg_device_receive(B.dev, &bogus, junk, sizeof(junk)) == WG_ERR_DROPPED);
	wg_peer_get_info(pB, &info);
	CHECK(info.endpoint.addr.in4.sin_port == htons(4444));
	A.nout = 0;
}

/* A caller that takes every packet from wg_device_complete_rx's out (the
 * daemon) leaves io.deliver NULL: a packet through wg_device_receive is then
 * dropped, and the session works as with a callback. */
static void test_deliver_optional(void)
{
	struct wg_env env = {h_now, h_wall, h_random, h_rng_ready, &B};
	struct wg_io io = {h_send, NULL, &B, h_event, NULL};

	setup(NULL, NULL);
	wg_device_free(B.dev);
	B.dev = wg_device_new(&env, &io);
	CHECK(B.dev != NULL);
	if (!B.dev)
		return;
	wg_device_set_private_key(B.dev, B.priv);
	CHECK(h_connect(&B, &A, NULL, true) != NULL);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	CHECK(B.sent_by_type[2] == 1 && B.ndelivered == 0);
	CHECK(h_send_ip(&B, &A, 60, 2) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(A.ndelivered == 1 && delivered_has(&A, 60, 2));
}

int main(void)
{
	test_roaming();
	test_direction(false, true);
	test_direction(false, false);
	test_direction(true, true);
	test_direction(true, false);
	test_psk_mismatch();
	test_stats_bytes();
	test_padding();
	test_split_path();
	test_no_route_no_key();
	test_deliver_optional();
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	return test_finish("test_engine_handshake");
}
