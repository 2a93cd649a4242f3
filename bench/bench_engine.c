/* Engine benchmark: memory per peer and per allowed IP (heap bytes measured
 * with mallinfo2), handshake rates on one core with a fake clock, and what
 * the split handshake path does under the caller's lock. */
#include <malloc.h>
#include <stdio.h>
#include <time.h>

#include "../wg/allowedips.h"
#include "../wg/device.h"
#include "../wg/peer.h"
#include "../wg/send.h"
#include "unit/engine_harness.h"

static double seconds_on(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double seconds(void)
{
	return seconds_on(CLOCK_MONOTONIC);
}

static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

static void memory(void)
{
	enum { N = 20000, IPS = 4 };
	static struct h_clock clk = {1000 * SEC, 1700000000ULL * SEC};
	static struct h_side A;
	struct wg_endpoint ep;
	uint64_t seed = 42;
	size_t before, after_peers, after_ips;

	h_side_init(&A, &clk, 7, "10.0.0.1", 1001, 1);
	h_endpoint4(&ep, "10.1.2.3", 51820);
	before = heap_used();
	for (uint32_t i = 0; i < N; i++) {
		uint8_t pub[32];
		struct wg_peer *p;
		test_randbytes(&seed, pub, 32);
		p = wg_device_peer_add(A.dev, pub);
		wg_peer_set_endpoint(p, &ep);
	}
	after_peers = heap_used();
	{
		uint32_t i = 0;
		for (struct wg_peer *p = wg_device_peer_next(A.dev, NULL); p;
		     p = wg_device_peer_next(A.dev, p), i++) {
			for (uint32_t k = 0; k < IPS; k++) {
				uint32_t v = 0x0a000000u + i * IPS + k;
				uint8_t a[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16),
						(uint8_t)(v >> 8), (uint8_t)v};
				wg_peer_allowed_ip_add(p, AF_INET, a, 32);
			}
		}
	}
	after_ips = heap_used();
	printf("memory: %d peers: %.0f bytes/peer (struct wg_peer %zu, goal < 2048)\n", N,
	       (double)(after_peers - before) / N, sizeof(struct wg_peer));
	printf("memory: %d allowed IPs: %.1f bytes/allowed IP\n", N * IPS,
	       (double)(after_ips - after_peers) / (N * IPS));
	printf("memory: a live session adds %zu bytes (struct wg_keypair, with its "
	       "8192-bit replay window), allocated only while it exists\n",
	       sizeof(struct wg_keypair));
	wg_device_free(A.dev);
}

static void handshakes(void)
{
	static struct h_clock clk = {1000 * SEC, 1700000000ULL * SEC};
	static struct h_side A, B;
	struct wg_peer *pA;
	struct h_pkt init;
	double t0, t;
	int n = 0, m = 0, k = 0;

	h_side_init(&A, &clk, 11, "10.0.0.1", 1001, 1);
	h_side_init(&B, &clk, 12, "10.0.0.2", 1002, 2);
	pA = h_connect(&A, &B, NULL, true);
	h_connect(&B, &A, NULL, true);

	/* Full handshakes: initiation, response, confirmation, both sides. */
	t0 = seconds();
	do {
		clk.mono += 6 * SEC;
		clk.wall += 6 * SEC;
		wg_device_clock(A.dev);
		wg_send_handshake_initiation(A.dev, pA, false);
		h_pump(&A, &B, NULL, NULL);
		n++;
		t = seconds() - t0;
	} while (t < 1.0);
	CHECK(pA->keypairs.current != NULL);
	printf("handshake: %.0f complete handshakes/s (both sides, one core)\n", n / t);

	/* Initiator cost, then responder cost (consume + answer) separately:
	 * initiations made first at increasing times, then fed to B. */
	{
		enum { K = 1500 };
		static struct h_pkt inits[K];
		double tr;
		t0 = seconds();
		for (m = 0; m < K; m++) {
			clk.mono += 6 * SEC;
			clk.wall += 6 * SEC;
			wg_device_clock(A.dev);
			wg_send_handshake_initiation(A.dev, pA, false);
			inits[m] = A.out[0];
			A.nout = 0;
		}
		t = seconds() - t0;
		t0 = seconds();
		for (k = 0; k < K; k++) {
			clk.mono += 1 * SEC;
			CHECK(wg_device_receive(B.dev, &A.addr, inits[k].data, inits[k].len) ==
			      WG_OK);
			B.nout = 0;
		}
		tr = seconds() - t0;
		init = inits[K - 1];
		printf("handshake: %.0f initiations created/s, %.0f consumed and answered/s\n",
		       K / t, K / tr);
	}

	/* Rejecting cheap garbage (bad mac1) costs one BLAKE2s. */
	{
		int g = 0;
		init.data[116] ^= 1;
		t0 = seconds();
		do {
			for (int i = 0; i < 1000; i++)
				wg_device_receive(B.dev, &A.addr, init.data, init.len);
			g += 1000;
			t = seconds() - t0;
		} while (t < 0.5);
		printf("handshake: %.0f bad-mac1 initiations dropped/s\n", g / t);
	}
	/* Data path: 1420-byte packets, sent by A and opened by B, one core. */
	{
		uint8_t ip[1420];
		long pkts = 0;
		h_ip4(ip, sizeof(ip), A.tun_ip, B.tun_ip, 0x33);
		clk.mono += 10 * SEC; /* a fresh session, clear of rate limits */
		clk.wall += 10 * SEC;
		wg_device_clock(A.dev);
		wg_send_handshake_initiation(A.dev, pA, false);
		h_pump(&A, &B, NULL, NULL);
		A.nout = 0;
		CHECK(wg_device_send(A.dev, ip, sizeof(ip)) == WG_OK);
		CHECK(A.nout == 1 && A.out[0].data[0] == 4);
		A.nout = 0;
		t0 = seconds();
		do {
			for (int i = 0; i < 256; i++) {
				wg_device_send(A.dev, ip, sizeof(ip));
				wg_device_receive(B.dev, &A.addr, A.out[0].data, A.out[0].len);
				A.nout = 0;
				B.ndelivered = 0;
			}
			pkts += 256;
			t = seconds() - t0;
		} while (t < 1.0);
		printf("data: %.0f packets/s of 1420 bytes encrypted+decrypted (%.2f Gbit/s "
		       "through both engines on one core)\n",
		       pkts / t, pkts * 1420.0 * 8 / t / 1e9);
	}
	wg_device_free(A.dev);
	wg_device_free(B.dev);
}

/* Packets of len bytes per CPU second (this thread's: other load on the
 * machine does not count) through both engines on one core (A
 * seals, B opens), with AmneziaWG at both ends when obfs (s4 and an h4 range:
 * the per-packet work it adds) or plain WireGuard. */
static double data_rate(size_t len, bool obfs)
{
	static struct h_clock clk = {5000 * SEC, 1700000000ULL * SEC};
	static struct h_side A, B;
	static struct wg_obfs_config c;
	struct wg_peer *pA, *pB;
	uint8_t ip[1420];
	const char *why = NULL;
	double t0, t;
	long pkts = 0;

	h_pair_setup(&A, &B, &clk, 21, 22, &pA, &pB);
	wg_obfs_config_init(&c);
	CHECK(wg_obfs_set_key(&c, "s4", 2, "9", 1, &why) == 1);
	CHECK(wg_obfs_set_key(&c, "h4", 2, "423456-433456", 13, &why) == 1);
	CHECK(!obfs ||
	      (!wg_device_set_obfs(A.dev, &c, true) && !wg_device_set_obfs(B.dev, &c, true)));
	h_ip4(ip, len, A.tun_ip, B.tun_ip, 0x33);
	CHECK(wg_device_send(A.dev, ip, len) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	A.nout = 0;
	t0 = seconds_on(CLOCK_THREAD_CPUTIME_ID);
	do {
		for (int i = 0; i < 256; i++) {
			wg_device_send(A.dev, ip, len);
			wg_device_receive(B.dev, &A.addr, A.out[0].data, A.out[0].len);
			A.nout = 0;
			B.ndelivered = 0;
		}
		pkts += 256;
		t = seconds_on(CLOCK_THREAD_CPUTIME_ID) - t0;
	} while (t < 0.5);
	CHECK(B.sent_total > 0 && pA->keypairs.current);
	(void)pB;
	return pkts / t;
}

/* Plain and AmneziaWG side by side, alternating, the best of three each. */
static void data_obfs(void)
{
	static const size_t lens[] = {1420, 64};

	for (int l = 0; l < 2; l++) {
		double best[2] = {0, 0};

		for (int r = 0; r < 6; r++) {
			double v = data_rate(lens[l], r % 2);

			if (v > best[r % 2])
				best[r % 2] = v;
		}
		printf("data %4zu bytes: %.0f packets/CPU-s plain, %.0f with AmneziaWG (s4, h4 "
		       "range): "
		       "%.3f of plain\n",
		       lens[l], best[0], best[1], best[1] / best[0]);
	}
}

/* The split handshake path in batches of 16, as the daemon's handshake
 * thread runs it: the best of many batches per step, in microseconds.
 * prepare and complete run under the daemon's engine lock, consume not. */
static void handshake_split(void)
{
	enum { BATCH = 16, ROUNDS = 300 };
	static struct h_clock clk = {1000 * SEC, 1700000000ULL * SEC};
	static struct h_side A, B;
	static struct wg_handshake_job jobs[BATCH];
	struct wg_peer *pA, *pB;
	struct h_pkt flood, real[ROUNDS];

	h_pair_setup(&A, &B, &clk, 21, 22, &pA, &pB);
	for (int r = 0; r < ROUNDS; r++) {
		clk.mono += 6 * SEC;
		clk.wall += 6 * SEC;
		real[r] = h_grab_initiation(&A, pA);
	}
	/* a flood message: valid mac1, garbage where the static key is */
	flood = real[0];
	memset(flood.data + 8, 0x55, 80);
	wg_cookie_add_macs(A.dev, pA, flood.data, flood.len);
	for (int mode = 0; mode < 3; mode++) {
		double best[3] = {1e9, 1e9, 1e9};

		for (int r = 0; r < ROUNDS; r++) {
			double t[4];
			int n = mode == 2 ? 1 : BATCH;

			clk.mono += 1 * SEC;
			wg_device_set_handshake_queue_len(B.dev, mode == 1 ? 4096 : 0);
			if (mode != 1)
				clk.mono += 2 * SEC; /* load over */
			t[0] = seconds();
			for (int i = 0; i < n; i++) {
				struct wg_endpoint from = A.addr;
				const struct h_pkt *p = mode == 2 ? &real[r] : &flood;

				from.addr.in4.sin_port = htons((uint16_t)(2000 + i));
				wg_device_prepare_handshake(B.dev, &from, p->data, p->len,
							    &jobs[i]);
			}
			t[1] = seconds();
			for (int i = 0; i < n; i++)
				wg_handshake_consume(B.dev, &jobs[i]);
			t[2] = seconds();
			for (int i = 0; i < n; i++)
				wg_device_complete_handshake(B.dev, &jobs[i]);
			t[3] = seconds();
			for (int k = 0; k < 3; k++)
				if (t[k + 1] - t[k] < best[k])
					best[k] = t[k + 1] - t[k];
		}
		printf("handshake split: %-44s locked prepare %5.1f us, complete %5.1f us; "
		       "unlocked consume %6.1f us\n",
		       mode == 0   ? "16 flood initiations (valid mac1):"
		       : mode == 1 ? "16 flood initiations under load (cookies):"
				   : "1 genuine initiation (answered):",
		       best[0] * 1e6, best[2] * 1e6, best[1] * 1e6);
	}
	CHECK(pB->keypairs.next != NULL);
	wg_device_free(A.dev);
	wg_device_free(B.dev);
}

/* Insert and lookup rate of the allowed-IPs trie with 1M random IPv4
 * prefixes (/16../32) spread over 1024 owners. */
static void allowedips_rate(void)
{
	enum { N = 1000000, OWNERS = 1024, LOOKUPS = 2000000 };
	static struct wg_allowedips_owner owners[OWNERS];
	struct wg_allowedips *t = wg_allowedips_new();
	uint64_t seed = 7;
	size_t hits = 0;
	double t0, t1, t2;

	t0 = seconds();
	for (uint32_t i = 0; i < N; i++) {
		uint64_t r = test_rand64(&seed);
		uint8_t a[4] = {(uint8_t)r, (uint8_t)(r >> 8), (uint8_t)(r >> 16),
				(uint8_t)(r >> 24)};
		wg_allowedips_insert(t, AF_INET, a, (uint8_t)(16 + (r >> 32) % 17),
				     &owners[(r >> 40) % OWNERS]);
	}
	t1 = seconds();
	for (uint32_t i = 0; i < LOOKUPS; i++) {
		uint64_t r = test_rand64(&seed);
		uint8_t a[4] = {(uint8_t)r, (uint8_t)(r >> 8), (uint8_t)(r >> 16),
				(uint8_t)(r >> 24)};
		hits += wg_allowedips_lookup(t, AF_INET, a) != NULL;
	}
	t2 = seconds();
	printf("allowed IPs: 1M prefixes inserted at %.2f M/s; %.2f M lookups/s (%zu of %d hit)\n",
	       N / (t1 - t0) / 1e6, LOOKUPS / (t2 - t1) / 1e6, hits, (int)LOOKUPS);
	wg_allowedips_free(t);
}

int main(void)
{
	memory();
	allowedips_rate();
	handshakes();
	handshake_split();
	data_obfs();
	return test_failures ? 1 : 0;
}
