/* Engine timers with a fake clock: rekey, reject, retries and give-up,
 * keepalives, new handshake without reply, key erasure, simultaneous
 * initiations, restarted peer, a suspend (the clock jumps). */
#include "../../wg/bytes.h"
#include "../../wg/device.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "engine_harness.h"

static struct h_clock clk = {5000 * SEC, 1750000000ULL * SEC};
static struct h_side A, B;
static struct wg_peer *pA, *pB; /* A's view of B, B's view of A */

static void setup(void)
{
	if (A.dev)
		wg_device_free(A.dev);
	if (B.dev)
		wg_device_free(B.dev);
	h_side_init(&A, &clk, 0xa11ce, "10.0.0.1", 1001, 1);
	h_side_init(&B, &clk, 0xb0b, "10.0.0.2", 1002, 2);
	pA = h_connect(&A, &B, NULL, true);
	pB = h_connect(&B, &A, NULL, true);
}

/* A initiates and both sides exchange one packet. */
static void establish(void)
{
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	CHECK(h_send_ip(&B, &A, 100, 2) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(pA->keypairs.current && pB->keypairs.current);
}

static bool drop_b_to_a(struct h_side *from, struct h_side *to, struct h_pkt *p, void *ctx)
{
	(void)to, (void)p, (void)ctx;
	return from != &B;
}

static void test_rekey_after_time(void)
{
	struct wg_keypair *first;
	size_t inits;

	setup();
	establish();
	first = pA->keypairs.current;
	inits = A.sent_by_type[1];
	h_advance(&A, &B, 119 * SEC, NULL, NULL);
	CHECK(h_send_ip(&A, &B, 100, 3) == WG_OK);
	CHECK(A.sent_by_type[1] == inits); /* not yet */
	h_advance(&A, &B, 2 * SEC, NULL, NULL);
	CHECK(h_send_ip(&A, &B, 100, 4) == WG_OK); /* old keys still send */
	CHECK(A.sent_by_type[1] == inits + 1);	   /* and a rekey starts */
	h_pump(&A, &B, NULL, NULL);
	CHECK(pA->keypairs.current != first);
	CHECK(pA->keypairs.previous == first);
	B.ndelivered = 0;
	CHECK(h_send_ip(&A, &B, 100, 5) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(B.ndelivered == 1);
	/* The responder does not rekey on age (only the initiator does). */
	setup();
	establish();
	inits = B.sent_by_type[1];
	h_advance(&A, &B, 125 * SEC, NULL, NULL);
	CHECK(B.sent_by_type[1] == inits);
	CHECK(h_send_ip(&B, &A, 100, 1) == WG_OK);
	CHECK(B.sent_by_type[1] == inits);
}

static void test_reject_after_time(void)
{
	struct wg_tx_job job;
	uint8_t buf[H_PKT];
	size_t n;

	setup();
	establish();
	/* A message sealed at 179 s but delivered after 180 s is refused. */
	h_advance(&A, &B, 179 * SEC, NULL, NULL);
	h_ip4(buf + 16, 64, A.tun_ip, B.tun_ip, 9);
	CHECK(wg_device_prepare_tx(A.dev, buf + 16, 64, &job) == WG_OK);
	n = wg_tx_seal(A.dev, &job, buf + 16, buf);
	wg_device_complete_tx(A.dev, &job, true);
	A.nout = 0;
	h_advance(&A, &B, 2 * SEC, h_drop_all, NULL);
	B.ndelivered = 0;
	CHECK(wg_device_receive(B.dev, &A.addr, buf, n) == WG_ERR_DROPPED);
	CHECK(B.ndelivered == 0);
	/* And past 180 s nothing is sent with the old keypair: staged instead
	 * (the rekey started at 179 s was lost; its retry brings the tunnel up). */
	A.nout = 0;
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	CHECK(A.nout == 0);
	h_advance(&A, &B, 6 * SEC, NULL, NULL);
	CHECK(B.ndelivered == 1); /* new handshake, staged packet delivered */
}

static void test_retry_and_give_up(void)
{
	size_t inits;

	setup();
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	CHECK(h_send_ip(&A, &B, 100, 2) == WG_STAGED);
	CHECK(A.sent_by_type[1] == 1); /* one initiation per REKEY_TIMEOUT */
	h_advance(&A, &B, 4900 * MS, h_drop_all, NULL);
	CHECK(A.sent_by_type[1] == 1);
	h_advance(&A, &B, 500 * MS, h_drop_all, NULL);
	CHECK(A.sent_by_type[1] == 2); /* retry after 5 s + jitter (<= 333 ms) */
	h_advance(&A, &B, (85 - 5) * SEC, h_drop_all, NULL);
	inits = A.sent_by_type[1];
	CHECK(inits >= 15 && inits <= 18);
	CHECK(wg_staged_count(pA) == 2);
	h_advance(&A, &B, 12 * SEC, h_drop_all, NULL);
	CHECK(wg_staged_count(pA) == 0); /* given up: staged dropped */
	inits = A.sent_by_type[1];
	CHECK(inits >= 17 && inits <= 19);
	h_advance(&A, &B, 60 * SEC, h_drop_all, NULL);
	CHECK(A.sent_by_type[1] == inits); /* no more retries */
	/* New data starts over. */
	CHECK(h_send_ip(&A, &B, 100, 3) == WG_STAGED);
	CHECK(A.sent_by_type[1] == inits + 1);
	h_pump(&A, &B, NULL, NULL);
	CHECK(B.ndelivered == 1 && B.delivered[0].data[99] == 3);
}

static void test_passive_keepalive(void)
{
	size_t data;

	setup();
	establish();
	h_advance(&A, &B, 11 * SEC, NULL, NULL); /* settle the keepalives of establish() */
	CHECK(h_send_ip(&A, &B, 100, 7) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	data = B.sent_by_type[4];
	h_advance(&A, &B, 9900 * MS, NULL, NULL);
	CHECK(B.sent_by_type[4] == data);
	h_advance(&A, &B, 200 * MS, NULL, NULL);
	CHECK(B.sent_by_type[4] == data + 1); /* a keepalive at 10 s */
	CHECK(B.ndelivered == 1 || B.ndelivered == 2);
	/* Sending anything in between cancels it. */
	CHECK(h_send_ip(&A, &B, 100, 8) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	h_advance(&A, &B, 5 * SEC, NULL, NULL);
	CHECK(h_send_ip(&B, &A, 100, 9) == WG_OK);
	data = B.sent_by_type[4];
	h_advance(&A, &B, 20 * SEC, NULL, NULL);
	CHECK(B.sent_by_type[4] == data);
}

static void test_persistent_keepalive(void)
{
	size_t k;

	setup();
	/* Turning it on sends at once (and so brings the tunnel up). */
	wg_peer_set_persistent_keepalive(pA, 25);
	CHECK(A.sent_by_type[1] == 1);
	h_pump(&A, &B, NULL, NULL);
	CHECK(pA->keypairs.current != NULL);
	k = A.sent_by_type[4];
	h_advance(&A, &B, 24 * SEC, NULL, NULL);
	CHECK(A.sent_by_type[4] == k);
	h_advance(&A, &B, 2 * SEC, NULL, NULL);
	CHECK(A.sent_by_type[4] == k + 1);
	h_advance(&A, &B, 50 * SEC, NULL, NULL);
	CHECK(A.sent_by_type[4] == k + 3);
	wg_peer_set_persistent_keepalive(pA, 0);
	h_advance(&A, &B, 100 * SEC, NULL, NULL);
	CHECK(A.sent_by_type[4] == k + 3);
}

static void test_new_handshake_without_reply(void)
{
	size_t inits;

	setup();
	establish();
	h_advance(&A, &B, 11 * SEC, NULL, NULL);
	inits = A.sent_by_type[1];
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_OK);
	h_advance(&A, &B, 14 * SEC, drop_b_to_a, NULL);
	CHECK(A.sent_by_type[1] == inits);
	h_advance(&A, &B, 1400 * MS, drop_b_to_a, NULL);
	CHECK(A.sent_by_type[1] == inits + 1); /* 15 s (+jitter) without reply */
}

/* Request/response traffic re-arms the new-handshake timer after every
 * exchange; its jitter comes from a pool, not one RNG call per packet sent
 * (a getrandom system call each in the daemon), and still varies within
 * 0..333 ms. */
static void test_jitter_pool(void)
{
	enum { EXCHANGES = 64 };
	uint64_t first = 0;
	bool varied = false;
	size_t calls;

	setup();
	establish();
	calls = A.random_calls;
	for (int i = 0; i < EXCHANGES; i++) {
		uint64_t j;

		CHECK(h_send_ip(&A, &B, 100, 10 + i) == WG_OK);
		j = pA->timer[WG_TIMER_NEW_HANDSHAKE] - clk.mono -
		    (WG_KEEPALIVE_TIMEOUT + WG_REKEY_TIMEOUT);
		CHECK(j <= WG_REKEY_TIMEOUT_JITTER_MAX);
		if (!i)
			first = j;
		varied |= j != first;
		h_pump(&A, &B, NULL, NULL);
		CHECK(h_send_ip(&B, &A, 100, 10 + i) == WG_OK);
		h_pump(&A, &B, NULL, NULL);
		CHECK(pA->timer[WG_TIMER_NEW_HANDSHAKE] == WG_TIMER_OFF);
		h_advance(&A, &B, 10 * MS, NULL, NULL);
	}
	CHECK(varied);
	CHECK(A.random_calls - calls <= EXCHANGES / WG_JITTER_POOL + 1);
}

static void test_zero_keys(void)
{
	setup();
	establish();
	h_advance(&A, &B, 539 * SEC, NULL, NULL);
	CHECK(pA->keypairs.current != NULL && pB->keypairs.current != NULL);
	h_advance(&A, &B, 2 * SEC, NULL, NULL);
	CHECK(!pA->keypairs.current && !pA->keypairs.previous && !pA->keypairs.next);
	CHECK(!pB->keypairs.current && !pB->keypairs.previous && !pB->keypairs.next);
	CHECK(pA->handshake.state == WG_HANDSHAKE_ZEROED);
	/* The tunnel comes back on demand. */
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	CHECK(pA->keypairs.current != NULL);
}

static void test_simultaneous(void)
{
	setup();
	CHECK(h_send_ip(&A, &B, 100, 0xaa) == WG_STAGED);
	CHECK(h_send_ip(&B, &A, 100, 0xbb) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	h_advance(&A, &B, 30 * SEC, NULL, NULL);
	CHECK(B.ndelivered >= 1 && B.delivered[0].data[99] == 0xaa);
	CHECK(A.ndelivered >= 1 && A.delivered[0].data[99] == 0xbb);
	A.ndelivered = B.ndelivered = 0;
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_OK);
	CHECK(h_send_ip(&B, &A, 100, 2) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(A.ndelivered == 1 && B.ndelivered == 1);
}

static void restart_b(void)
{
	uint8_t priv[32];
	memcpy(priv, B.priv, 32);
	wg_device_free(B.dev);
	B.dev = NULL;
	h_side_init(&B, &clk, 0xb0b2, "10.0.0.2", 1002, 2);
	/* same identity as before */
	memcpy(B.priv, priv, 32);
	zinc_curve25519_generate_public(B.pub, B.priv);
	wg_device_set_private_key(B.dev, B.priv);
	pB = h_connect(&B, &A, NULL, true);
}

static void test_restarted_peer(void)
{
	/* A keeps sending into the void until it notices (15 s) and rehandshakes. */
	setup();
	establish();
	restart_b();
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(B.ndelivered == 0);
	h_advance(&A, &B, 16 * SEC, NULL, NULL);
	CHECK(h_send_ip(&A, &B, 100, 2) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(B.ndelivered >= 1 && B.delivered[B.ndelivered - 1].data[99] == 2);
	/* The restarted side speaking first recovers at once. */
	setup();
	establish();
	h_advance(&A, &B, 1 * SEC, NULL, NULL);
	restart_b();
	CHECK(h_send_ip(&B, &A, 100, 3) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	CHECK(A.ndelivered >= 2 && A.delivered[A.ndelivered - 1].data[99] == 3);
}

static void test_message_limits(void)
{
	size_t inits;

	setup();
	establish();
	h_advance(&A, &B, 6 * SEC, NULL, NULL); /* past the handshake rate limit */
	inits = A.sent_by_type[1];
	/* Past REKEY_AFTER_MESSAGES: still sends, and starts a rekey. */
	pA->keypairs.current->send_counter = WG_REKEY_AFTER_MESSAGES + 1;
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_OK);
	CHECK(A.sent_by_type[1] == inits + 1);
	A.nout = 0;
	/* The responder rekeys on message count too. */
	inits = B.sent_by_type[1];
	pB->keypairs.current->send_counter = WG_REKEY_AFTER_MESSAGES + 1;
	CHECK(h_send_ip(&B, &A, 100, 1) == WG_OK);
	CHECK(B.sent_by_type[1] == inits + 1);
	B.nout = 0;
	/* The last allowed nonce goes out; after it nothing does. */
	h_advance(&A, &B, 6 * SEC, h_drop_all, NULL);
	pA->keypairs.current->send_counter = WG_REJECT_AFTER_MESSAGES - 1;
	A.nout = 0;
	CHECK(h_send_ip(&A, &B, 100, 2) == WG_OK);
	CHECK(A.nout >= 1 && A.out[0].data[0] == 4);
	CHECK(h_send_ip(&A, &B, 100, 3) == WG_STAGED);
	A.nout = 0;
}

/* A 10-minute suspend: the daemon's clock (CLOCK_BOOTTIME) jumps by the
 * time slept, and no timer ran meanwhile. The first packet after resume
 * finds keys older than REJECT_AFTER_TIME: it is staged and a handshake
 * starts; nothing is sealed with the old keypair, neither by that send nor
 * by the timers that fire late, and the new session carries the packet. */
static void test_suspend(void)
{
	const uint64_t suspend = 10 * 60 * SEC;
	uint32_t old_a, old_b; /* receiver index each side's old keys send to */

	setup();
	establish();
	old_a = pA->keypairs.current->remote_index;
	old_b = pB->keypairs.current->remote_index;
	A.nout = B.nout = 0;
	clk.mono += suspend;
	clk.wall += suspend;
	B.ndelivered = 0;
	CHECK(h_send_ip(&A, &B, 100, 7) == WG_STAGED);
	CHECK(A.nout == 1 && A.out[0].data[0] == WG_MESSAGE_HANDSHAKE_INITIATION);
	CHECK(h_send_ip(&B, &A, 100, 8) == WG_STAGED);
	for (size_t i = 0; i < B.nout; i++)
		CHECK(B.out[i].data[0] != WG_MESSAGE_DATA);
	/* the overdue timers fire now, then the handshake runs */
	wg_device_tick(A.dev);
	wg_device_tick(B.dev);
	for (size_t i = 0; i < A.nout; i++)
		CHECK(A.out[i].data[0] != WG_MESSAGE_DATA || wg_le32(A.out[i].data + 4) != old_a);
	for (size_t i = 0; i < B.nout; i++)
		CHECK(B.out[i].data[0] != WG_MESSAGE_DATA || wg_le32(B.out[i].data + 4) != old_b);
	h_advance(&A, &B, WG_REKEY_TIMEOUT + WG_REKEY_TIMEOUT_JITTER_MAX, NULL, NULL);
	CHECK(B.ndelivered >= 1 && B.delivered[0].len == 100 && B.delivered[0].data[20] == 7);
	CHECK(pA->keypairs.current && pA->keypairs.current->remote_index != old_a);
}

int main(void)
{
	test_message_limits();
	test_rekey_after_time();
	test_reject_after_time();
	test_retry_and_give_up();
	test_passive_keepalive();
	test_persistent_keepalive();
	test_new_handshake_without_reply();
	test_jitter_pool();
	test_zero_keys();
	test_simultaneous();
	test_restarted_peer();
	test_suspend();
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	return test_finish("test_engine_timers");
}
