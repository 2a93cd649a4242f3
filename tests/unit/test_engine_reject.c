/* Engine: what must be refused. Timestamp replay, initiation flood, bad
 * sizes and types, wrong mac1, low-order keys, spoofed inner source, the
 * RNG gate, our own key as a peer, private key changes. */
#include <zinc/blake2s.h>

#include "../../wg/device.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "engine_harness.h"

static struct h_clock clk = {7000 * SEC, 1760000000ULL * SEC};
static struct h_side A, B;
static struct wg_peer *pA, *pB;

static void setup(void)
{
	h_pair_setup(&A, &B, &clk, 0x5eed1, 0x5eed2, &pA, &pB);
}

static void establish(void)
{
	clk.mono += 6 * SEC; /* clear of any earlier initiation's rate limit */
	clk.wall += 6 * SEC;
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	CHECK(h_send_ip(&B, &A, 100, 2) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(pA->keypairs.current && pB->keypairs.current);
}

static struct h_pkt grab_initiation(void)
{
	return h_grab_initiation(&A, pA);
}

static size_t responses(void)
{
	return B.sent_by_type[2];
}

static void test_timestamp_replay(void)
{
	struct h_pkt init;
	size_t r;

	setup();
	init = grab_initiation();
	r = responses();
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_OK);
	CHECK(responses() == r + 1);
	clk.mono += 2 * SEC; /* past the flood guard: only the timestamp can refuse it */
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	CHECK(responses() == r + 1);
	/* An older (but never seen) initiation is refused too. */
	{
		struct h_pkt older, newer;
		setup();
		older = grab_initiation();
		clk.wall += 1 * SEC;
		clk.mono += 1 * SEC;
		newer = grab_initiation();
		r = responses();
		CHECK(wg_device_receive(B.dev, &A.addr, newer.data, newer.len) == WG_OK);
		clk.mono += 1 * SEC;
		CHECK(wg_device_receive(B.dev, &A.addr, older.data, older.len) == WG_ERR_DROPPED);
		CHECK(responses() == r + 1);
	}
}

static void test_flood_guard(void)
{
	struct h_pkt i1, i2;
	size_t r;

	setup();
	i1 = grab_initiation();
	/* 18 ms later: a strictly greater TAI64N (2^24 ns granularity). */
	clk.wall += 18 * MS;
	clk.mono += 18 * MS;
	i2 = grab_initiation();
	r = responses();
	CHECK(wg_device_receive(B.dev, &A.addr, i1.data, i1.len) == WG_OK);
	clk.mono += 10 * MS; /* 10 ms after the last accepted one: < 1/50 s */
	CHECK(wg_device_receive(B.dev, &A.addr, i2.data, i2.len) == WG_ERR_DROPPED);
	CHECK(responses() == r + 1);
	clk.mono += 15 * MS; /* 25 ms: allowed */
	CHECK(wg_device_receive(B.dev, &A.addr, i2.data, i2.len) == WG_OK);
	CHECK(responses() == r + 2);
}

static void test_malformed(void)
{
	struct wg_device_stats st0, st;
	struct h_pkt init;
	uint8_t buf[300];

	setup();
	init = grab_initiation();
	wg_device_get_stats(B.dev, &st0);
	/* Known type, wrong size. */
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, 147) == WG_ERR_INVALID);
	memcpy(buf, init.data, 148);
	buf[148] = 0;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 149) == WG_ERR_INVALID);
	memset(buf, 0, sizeof(buf));
	buf[0] = 2;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 93) == WG_ERR_INVALID);
	buf[0] = 3;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 65) == WG_ERR_INVALID);
	buf[0] = 4;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 31) == WG_ERR_INVALID);
	/* Unknown type, non-zero reserved bytes, empty. */
	buf[0] = 5;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 148) == WG_ERR_INVALID);
	buf[0] = 0;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 148) == WG_ERR_INVALID);
	memcpy(buf, init.data, 148);
	buf[1] = 1;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 148) == WG_ERR_INVALID);
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 0) == WG_ERR_INVALID);
	CHECK(wg_message_type(init.data, 148) == 1);
	CHECK(wg_message_type(buf, 148) == 0);
	/* Wrong mac1: silently dropped, no response. */
	memcpy(buf, init.data, 148);
	buf[116] ^= 1;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 148) == WG_ERR_DROPPED);
	/* Correct mac1 over a tampered body: dropped after the mac check. */
	memcpy(buf, init.data, 148);
	buf[50] ^= 1;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 148) == WG_ERR_DROPPED);
	CHECK(responses() == 0);
	wg_device_get_stats(B.dev, &st);
	CHECK(st.packets_invalid == st0.packets_invalid + 11);
	/* by reason (the metrics): two bad mac1 (the body is under mac1 too),
	 * the rest malformed */
	CHECK(st.dropped_bad_mac == st0.dropped_bad_mac + 2);
	CHECK(st.dropped_invalid == st0.dropped_invalid + 9);
	CHECK(st.handshakes_rejected == st0.handshakes_rejected + 2);
	/* Data with an unknown receiver index or a bad tag. */
	establish();
	wg_device_get_stats(B.dev, &st0);
	memset(buf, 0, 64);
	buf[0] = 4;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, 64) == WG_ERR_DROPPED);
	A.nout = 0;
	CHECK(h_send_ip(&A, &B, 100, 3) == WG_OK);
	memcpy(buf, A.out[0].data, A.out[0].len); /* decryption works in place */
	A.out[0].data[A.out[0].len - 1] ^= 1;
	B.ndelivered = 0;
	CHECK(wg_device_receive(B.dev, &A.addr, A.out[0].data, A.out[0].len) == WG_ERR_DROPPED);
	memcpy(A.out[0].data, buf, A.out[0].len);
	CHECK(wg_device_receive(B.dev, &A.addr, A.out[0].data, A.out[0].len) == WG_OK);
	CHECK(B.ndelivered == 1);
	/* A failed tag must not have advanced the replay window: same counter OK
	 * exactly once (the datagram again: the first was decrypted in place). */
	memcpy(A.out[0].data, buf, A.out[0].len);
	CHECK(wg_device_receive(B.dev, &A.addr, A.out[0].data, A.out[0].len) == WG_ERR_DROPPED);
	A.nout = 0;
	wg_device_get_stats(B.dev, &st);
	CHECK(st.dropped_no_session == st0.dropped_no_session + 1);
	CHECK(st.dropped_bad_mac == st0.dropped_bad_mac + 1);
	CHECK(st.dropped_replay == st0.dropped_replay + 1);
	CHECK(st.dropped_invalid == st0.dropped_invalid);
}

/* mac1 recomputed so that only the handshake logic can refuse a message. */
static void fix_mac1(uint8_t *msg, size_t len, const uint8_t receiver_pub[32])
{
	uint8_t key[32], in[40];
	memcpy(in, "mac1----", 8);
	memcpy(in + 8, receiver_pub, 32);
	zinc_blake2s(key, in, NULL, 32, 40, 0);
	zinc_blake2s(msg + len - 32, msg, key, 16, len - 32, 32);
}

static void test_low_order(void)
{
	/* A low-order point (order 8) and the zero point. */
	static const uint8_t low[32] = {0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae,
					0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
					0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd,
					0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00};
	static const uint8_t zero[32];
	uint8_t other[4] = {192, 168, 5, 5}, pkt[100];
	struct wg_peer *bad;
	struct h_pkt init;

	setup();
	/* A peer whose key is low order can be configured but never reached. */
	bad = wg_device_peer_add(A.dev, low);
	CHECK(bad != NULL);
	wg_peer_set_endpoint(bad, &B.addr);
	wg_peer_allowed_ip_add(bad, AF_INET, other, 32);
	h_ip4(pkt, sizeof(pkt), A.tun_ip, other, 0);
	A.nout = 0;
	CHECK(wg_device_send(A.dev, pkt, sizeof(pkt)) == WG_STAGED);
	CHECK(A.nout == 0);
	CHECK(wg_device_peer_add(A.dev, zero) != NULL);
	/* An initiation carrying a low-order ephemeral is refused by B. */
	init = grab_initiation();
	memcpy(init.data + 8, low, 32);
	fix_mac1(init.data, init.len, B.pub);
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	memcpy(init.data + 8, zero, 32);
	fix_mac1(init.data, init.len, B.pub);
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	CHECK(responses() == 0);
	/* A response carrying a low-order ephemeral is refused by A. */
	setup();
	init = grab_initiation();
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_OK);
	CHECK(B.nout == 1 && B.out[0].len == 92);
	memcpy(B.out[0].data + 12, low, 32);
	fix_mac1(B.out[0].data, 92, A.pub);
	CHECK(wg_device_receive(A.dev, &B.addr, B.out[0].data, 92) == WG_ERR_DROPPED);
	CHECK(pA->keypairs.current == NULL);
	B.nout = 0;
}

static void test_spoofed_source(void)
{
	uint8_t pkt[120], spoof[4] = {192, 168, 0, 99}, v6[60];

	setup();
	establish();
	B.ndelivered = 0;
	h_ip4(pkt, sizeof(pkt), spoof, B.tun_ip, 1);
	CHECK(wg_device_send(A.dev, pkt, sizeof(pkt)) == WG_OK); /* A does not check */
	h_pump(&A, &B, NULL, NULL);
	CHECK(B.ndelivered == 0);
	/* A source owned by another peer of B is spoofed too. */
	{
		uint8_t other_pub[32], other_ip[4] = {192, 168, 0, 77};
		struct wg_peer *o;
		memset(other_pub, 0x42, 32);
		o = wg_device_peer_add(B.dev, other_pub);
		wg_peer_allowed_ip_add(o, AF_INET, other_ip, 32);
		h_ip4(pkt, sizeof(pkt), other_ip, B.tun_ip, 1);
		CHECK(wg_device_send(A.dev, pkt, sizeof(pkt)) == WG_OK);
		h_pump(&A, &B, NULL, NULL);
		CHECK(B.ndelivered == 0);
	}
	/* A length field larger than the (padded, 128-byte) plaintext is
	 * refused; a shorter one trims. */
	h_ip4(pkt, sizeof(pkt), A.tun_ip, B.tun_ip, 1);
	pkt[3] = 129;
	CHECK(wg_device_send(A.dev, pkt, sizeof(pkt)) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(B.ndelivered == 0);
	pkt[3] = 100;
	CHECK(wg_device_send(A.dev, pkt, sizeof(pkt)) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(B.ndelivered == 1 && B.delivered[0].len == 100);
	/* IPv6 from an address not allowed. */
	memset(v6, 0, sizeof(v6));
	v6[0] = 0x60;
	v6[5] = 20;
	v6[8] = 0xfd;
	v6[24] = 0xfd;
	{
		uint8_t dst6[16] = {0xfd};
		wg_peer_allowed_ip_add(pA, AF_INET6, dst6, 128);
		CHECK(wg_device_send(A.dev, v6, sizeof(v6)) == WG_OK);
		h_pump(&A, &B, NULL, NULL);
		CHECK(B.ndelivered == 1);
		/* Once allowed, the same IPv6 packet is delivered, trimmed to 40+20. */
		wg_peer_allowed_ip_add(pB, AF_INET6, dst6, 128);
		CHECK(wg_device_send(A.dev, v6, sizeof(v6)) == WG_OK);
		h_pump(&A, &B, NULL, NULL);
		CHECK(B.ndelivered == 2 && B.delivered[1].len == 60);
	}
}

static void test_rng_gate(void)
{
	struct wg_device_stats st;
	struct h_pkt init;
	size_t r;

	setup();
	establish();
	r = responses();
	B.rng_ready = false;
	/* Data with existing keys still flows both ways. */
	A.ndelivered = B.ndelivered = 0;
	CHECK(h_send_ip(&A, &B, 100, 5) == WG_OK);
	CHECK(h_send_ip(&B, &A, 100, 6) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(A.ndelivered == 1 && B.ndelivered == 1);
	/* Handshake messages are dropped before any work, and counted. */
	init = grab_initiation();
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	init.data[116] ^= 1; /* even a bad one: dropped before the mac check */
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	wg_device_get_stats(B.dev, &st);
	CHECK(st.handshakes_dropped_rng == 2);
	CHECK(st.packets_invalid == 0);
	CHECK(responses() == r);
	/* No initiation from B while unseeded. */
	setup();
	B.rng_ready = false;
	CHECK(h_send_ip(&B, &A, 100, 1) == WG_STAGED);
	CHECK(B.sent_total == 0);
	h_advance(&A, &B, 20 * SEC, NULL, NULL);
	CHECK(B.sent_total == 0);
	B.rng_ready = true;
	h_advance(&A, &B, 10 * SEC, NULL, NULL);
	CHECK(h_send_ip(&B, &A, 100, 2) != WG_ERR_NOKEY);
	h_advance(&A, &B, 6 * SEC, NULL, NULL);
	CHECK(A.ndelivered >= 1);
}

/* A's private key just changed (Linux: wg_noise_expire_current_peer_keypairs):
 * B, which does not know the new key yet, still gets through on the old
 * session; A sends nothing on it, stages its packets and initiates at once
 * with the new identity, which B (still expecting the old key) ignores. */
static void test_identity_keeps_receiving(void)
{
	size_t delivered = A.ndelivered, inits = A.sent_by_type[1], data = A.sent_by_type[4];

	CHECK(pA->keypairs.current && !pA->keypairs.current->sending_valid);
	CHECK(h_send_ip(&B, &A, 120, 3) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(A.ndelivered == delivered + 1);
	CHECK(h_send_ip(&A, &B, 120, 4) == WG_STAGED);
	CHECK(A.sent_by_type[4] == data);      /* nothing sealed with the old keys */
	CHECK(A.sent_by_type[1] == inits + 1); /* no 5 s wait for the new handshake */
	h_pump(&A, &B, NULL, NULL);
	CHECK(pB->keypairs.current && pB->keypairs.current->sending_valid);
	CHECK(!pA->keypairs.current->sending_valid);
}

static void test_identity(void)
{
	uint8_t pub[32], priv2[32], pub2[32];
	size_t n;

	setup();
	CHECK(wg_device_peer_add(A.dev, A.pub) == NULL); /* our own key */
	CHECK(wg_device_get_public_key(A.dev, pub) && !memcmp(pub, A.pub, 32));
	establish();
	/* New key: static-static DH recomputed, sessions receive-only. */
	memcpy(priv2, B.priv, 32);
	priv2[5] ^= 0x55;
	zinc_curve25519_clamp_secret(priv2);
	zinc_curve25519_generate_public(pub2, priv2);
	n = wg_device_peer_count(A.dev);
	wg_device_set_private_key(A.dev, priv2);
	CHECK(wg_device_peer_count(A.dev) == n);
	test_identity_keeps_receiving();
	/* Setting the key of a peer: that peer goes away. */
	wg_device_set_private_key(A.dev, B.priv);
	CHECK(wg_device_peer_count(A.dev) == n - 1);
	CHECK(wg_device_peer_lookup(A.dev, B.pub) == NULL);
	/* No key: nothing goes out. */
	wg_device_set_private_key(A.dev, NULL);
	CHECK(!wg_device_get_public_key(A.dev, pub));
}

int main(void)
{
	test_timestamp_replay();
	test_flood_guard();
	test_malformed();
	test_low_order();
	test_spoofed_source();
	test_rng_gate();
	test_identity();
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	return test_finish("test_engine_reject");
}
