/* The engine while the system RNG is unseeded, and once it is seeded:
 * refused initiations are remembered and sent as soon as the RNG is
 * seeded (staged packets, persistent keepalive, a pending rekey), with no
 * new traffic; the hash keys drawn unseeded are redrawn; the RNG is polled
 * only while something waits for it. */
#include "../../wg/device.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "../../wg/rngwait.h"
#include "engine_harness.h"

static struct h_clock clk = {7000 * SEC, 1750000000ULL * SEC};

enum { N_SIDES = 4 };

/* A has three peers: B (staged packets), C (persistent keepalive) and D
 * (a session whose rekey comes due while the RNG is unseeded). */
static struct h_side A, B, C, D;
static struct h_side *sides[N_SIDES] = {&A, &B, &C, &D};
static struct wg_peer *a_b, *a_c, *a_d;

static void free_all(void)
{
	for (int i = 0; i < N_SIDES; i++) {
		if (sides[i]->dev)
			wg_device_free(sides[i]->dev);
		sides[i]->dev = NULL;
	}
}

/* Ticks every side at each deadline up to dt from now, delivering what
 * they send. */
static void advance_all(uint64_t dt)
{
	uint64_t end = clk.mono + dt;

	for (;;) {
		uint64_t next = UINT64_MAX;

		for (int i = 0; i < N_SIDES; i++)
			wg_device_tick(sides[i]->dev);
		h_pump_n(sides, N_SIDES, NULL, NULL);
		for (int i = 0; i < N_SIDES; i++) {
			uint64_t d = wg_device_next_deadline(sides[i]->dev);
			next = d < next ? d : next;
		}
		if (clk.mono >= end && next > end)
			break;
		if (next > end)
			next = end;
		if (next <= clk.mono)
			next = clk.mono + 1;
		clk.wall += next - clk.mono;
		clk.mono = next;
	}
}

static bool all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

static void setup(void)
{
	free_all();
	h_side_init(&A, &clk, 0xa, "10.0.0.1", 1001, 1);
	h_side_init(&B, &clk, 0xb, "10.0.0.2", 1002, 2);
	h_side_init(&C, &clk, 0xc, "10.0.0.3", 1003, 3);
	h_side_init(&D, &clk, 0xd, "10.0.0.4", 1004, 4);
	a_b = h_connect(&A, &B, NULL, true);
	a_c = h_connect(&A, &C, NULL, true);
	a_d = h_connect(&A, &D, NULL, true);
	/* The peers do not know A's address: only A can start a session
	 * (a client behind NAT). */
	h_connect(&B, &A, NULL, false);
	h_connect(&C, &A, NULL, false);
	h_connect(&D, &A, NULL, false);
}

static void test_seeded_peers_initiate(void)
{
	struct wg_keypair *old_d;
	size_t inits, delivered_b;

	setup();
	/* D: a session from before, then the RNG looks unseeded (early boot
	 * resume, or the test seam of a running daemon). */
	CHECK(h_send_ip(&A, &D, 100, 1) == WG_STAGED);
	advance_all(1 * SEC);
	CHECK(a_d->keypairs.current && D.ndelivered == 1);
	old_d = a_d->keypairs.current;
	A.rng_ready = false;
	advance_all(WG_REKEY_AFTER_TIME);

	inits = A.sent_by_type[WG_MESSAGE_HANDSHAKE_INITIATION];
	/* B: a packet staged, no initiation. */
	CHECK(h_send_ip(&A, &B, 100, 2) == WG_STAGED);
	/* C: persistent keepalive turned on, no initiation. */
	wg_peer_set_persistent_keepalive(a_c, 25);
	/* D: the rekey is due; data still goes with the current keys. */
	CHECK(h_send_ip(&A, &D, 100, 3) == WG_OK);
	CHECK(A.sent_by_type[WG_MESSAGE_HANDSHAKE_INITIATION] == inits);
	/* Long unseeded: still nothing, and the engine polls the RNG. */
	advance_all(30 * SEC);
	CHECK(A.sent_by_type[WG_MESSAGE_HANDSHAKE_INITIATION] == inits);
	CHECK(wg_device_next_deadline(A.dev) <= clk.mono + WG_RNG_POLL_INTERVAL);

	/* Seeded: within one poll interval every waiting peer initiates,
	 * without any new packet from the tunnel. */
	A.rng_ready = true;
	delivered_b = B.ndelivered;
	advance_all(WG_RNG_POLL_INTERVAL);
	CHECK(A.sent_by_type[WG_MESSAGE_HANDSHAKE_INITIATION] == inits + 3);
	CHECK(a_b->keypairs.current != NULL);
	CHECK(B.ndelivered == delivered_b + 1); /* the staged packet */
	CHECK(a_c->keypairs.current != NULL);
	CHECK(a_d->keypairs.current != old_d && a_d->keypairs.previous == old_d);
	/* C's persistent keepalive runs from there on. */
	{
		size_t k = A.sent_by_type[WG_MESSAGE_DATA];
		advance_all(26 * SEC);
		CHECK(A.sent_by_type[WG_MESSAGE_DATA] > k);
	}
}

/* The give-up clock starts at the initiation actually sent: a peer that
 * waited longer than REKEY_ATTEMPT_TIME for the RNG still retries. */
static void test_seeded_late_retries(void)
{
	size_t inits;

	setup();
	A.rng_ready = false;
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	advance_all(WG_REKEY_ATTEMPT_TIME + 10 * SEC);
	B.rng_ready = false; /* B drops it: A must retry */
	A.rng_ready = true;
	inits = A.sent_by_type[WG_MESSAGE_HANDSHAKE_INITIATION];
	advance_all(WG_RNG_POLL_INTERVAL);
	CHECK(A.sent_by_type[WG_MESSAGE_HANDSHAKE_INITIATION] == inits + 1);
	B.rng_ready = true;
	advance_all(WG_REKEY_TIMEOUT + WG_REKEY_TIMEOUT_JITTER_MAX);
	CHECK(A.sent_by_type[WG_MESSAGE_HANDSHAKE_INITIATION] == inits + 2);
	CHECK(B.ndelivered == 1);
}

/* Nothing to wait for: no wake-ups, seeded or not, once caught up. */
static void test_polls_only_while_waiting(void)
{
	setup();
	CHECK(wg_device_next_deadline(A.dev) == UINT64_MAX);
	/* A device made while unseeded polls until it can redraw its keys. */
	free_all();
	h_side_init(&A, &clk, 0xa, "10.0.0.1", 1001, 1);
	A.rng_ready = false;
	wg_device_free(A.dev);
	{
		struct wg_env env = {h_now, h_wall, h_random, h_rng_ready, &A};
		struct wg_io io = {h_send, h_deliver, &A, h_event, NULL};
		A.dev = wg_device_new(&env, &io);
	}
	CHECK(A.dev != NULL);
	CHECK(wg_device_tick(A.dev) <= WG_RNG_POLL_INTERVAL);
	clk.mono += 10 * SEC;
	CHECK(wg_device_tick(A.dev) <= WG_RNG_POLL_INTERVAL);
	A.rng_ready = true;
	clk.mono += WG_RNG_POLL_INTERVAL;
	CHECK(wg_device_tick(A.dev) == UINT64_MAX);
	CHECK(wg_device_next_deadline(A.dev) == UINT64_MAX);
}

/* Keys drawn while unseeded are zero; once seeded they are drawn again and
 * the peer table still finds every peer under the new key. */
static void test_hash_keys_redrawn(void)
{
	struct wg_env env = {h_now, h_wall, h_random, h_rng_ready, &A};
	struct wg_io io = {h_send, h_deliver, &A, h_event, NULL};
	enum { N_PEERS = 100 };
	uint8_t pubs[N_PEERS][32];
	uint64_t rng = 0x5eed;
	bool found = true;

	free_all();
	memset(&A, 0, sizeof(A));
	A.clock = &clk;
	A.rng = 0x1234;
	A.rng_ready = false;
	A.dev = wg_device_new(&env, &io);
	CHECK(A.dev != NULL);
	CHECK(all_zero(A.dev->peer_hash_key, sizeof(A.dev->peer_hash_key)));
	for (int i = 0; i < N_PEERS; i++) {
		test_randbytes(&rng, pubs[i], 32);
		CHECK(wg_device_peer_add(A.dev, pubs[i]) != NULL);
	}
	A.rng_ready = true;
	clk.mono += WG_RNG_POLL_INTERVAL;
	wg_device_tick(A.dev);
	CHECK(!all_zero(A.dev->peer_hash_key, sizeof(A.dev->peer_hash_key)));
	for (int i = 0; i < N_PEERS; i++)
		found &= wg_device_peer_lookup(A.dev, pubs[i]) != NULL;
	CHECK(found);
	CHECK(wg_device_peer_count(A.dev) == N_PEERS);
	/* removal walks the new chains too */
	wg_device_peer_remove(A.dev, wg_device_peer_lookup(A.dev, pubs[0]));
	CHECK(wg_device_peer_lookup(A.dev, pubs[0]) == NULL);
	CHECK(wg_device_peer_lookup(A.dev, pubs[1]) != NULL);
}

int main(void)
{
	test_seeded_peers_initiate();
	test_seeded_late_retries();
	test_polls_only_while_waiting();
	test_hash_keys_redrawn();
	free_all();
	return test_finish("test_engine_rngwait");
}
