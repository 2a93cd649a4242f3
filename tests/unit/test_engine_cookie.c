/* Engine cookies: mac1 alone without load; under load a message without a
 * valid mac2 gets a cookie reply and is not processed; the cookie is then
 * used and accepted; stale cookies are not; replies only for messages we
 * still await; the rate limiter applies to valid mac2 messages; a cookie
 * reply to our initiation makes us retry at once, once per attempt. */
#include "../../wg/device.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "engine_harness.h"

static struct h_clock clk = {9000 * SEC, 1770000000ULL * SEC};
static struct h_side A, B;
static struct wg_peer *pA, *pB;

static void setup(void)
{
	h_pair_setup(&A, &B, &clk, 0xc00c1e, 0xc00c2e, &pA, &pB);
}

static void tick(uint64_t dt)
{
	clk.mono += dt;
	clk.wall += dt;
}

static struct h_pkt grab_initiation(void)
{
	return h_grab_initiation(&A, pA);
}

static const uint8_t zero16[16];

static void load(struct wg_device *dev)
{
	wg_device_set_handshake_queue_len(dev, WG_UNDER_LOAD_QUEUE_LEN);
}

static void test_no_load(void)
{
	struct h_pkt init;
	struct wg_device_stats st;

	setup();
	init = grab_initiation();
	CHECK(!memcmp(init.data + 132, zero16, 16)); /* no cookie: mac2 zero */
	memset(init.data + 132, 0xee, 16);	     /* garbage mac2 is ignored */
	B.nout = 0;
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_OK);
	CHECK(B.nout == 1 && B.out[0].data[0] == 2);
	/* Queue below 1/8 of 4096: not under load. */
	wg_device_set_handshake_queue_len(B.dev, 511);
	tick(1 * SEC);
	init = grab_initiation();
	B.nout = 0;
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_OK);
	CHECK(B.nout == 1 && B.out[0].data[0] == 2);
	wg_device_get_stats(B.dev, &st);
	CHECK(st.cookie_replies_sent == 0);
}

static void test_under_load(void)
{
	struct h_pkt init, reply;
	struct wg_device_stats st;

	setup();
	load(B.dev);
	init = grab_initiation();
	B.nout = 0;
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	CHECK(B.nout == 1 && B.out[0].len == 64 && B.out[0].data[0] == 3);
	CHECK(B.sent_by_type[2] == 0); /* not processed */
	CHECK(pB->handshake.state == WG_HANDSHAKE_ZEROED);
	wg_device_get_stats(B.dev, &st);
	CHECK(st.cookie_replies_sent == 1);
	reply = B.out[0];
	B.nout = 0;
	/* A takes the cookie (its initiation is outstanding). */
	CHECK(wg_device_receive(A.dev, &B.addr, reply.data, reply.len) == WG_OK);
	CHECK(pA->cookie.has_cookie);
	/* The same reply again: A no longer awaits one. */
	CHECK(wg_device_receive(A.dev, &B.addr, reply.data, reply.len) == WG_ERR_DROPPED);
	/* A's retry carries mac2 and is processed under load. */
	tick(200 * MS);
	load(B.dev);
	init = grab_initiation();
	CHECK(memcmp(init.data + 132, zero16, 16) != 0);
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_OK);
	CHECK(B.nout == 1 && B.out[0].data[0] == 2);
	h_pump(&A, &B, NULL, NULL);
	CHECK(pA->keypairs.current != NULL);
	/* The cookie is bound to the source address: from elsewhere it fails. */
	{
		struct wg_endpoint other;
		h_endpoint4(&other, "10.0.0.9", 1001);
		tick(100 * MS);
		load(B.dev);
		init = grab_initiation();
		B.nout = 0;
		CHECK(wg_device_receive(B.dev, &other, init.data, init.len) == WG_ERR_DROPPED);
		CHECK(B.nout == 1 && B.out[0].data[0] == 3);
		B.nout = 0;
	}
	/* Load is sticky for 1 s, then gone. */
	tick(900 * MS);
	init = grab_initiation();
	init.data[132] ^= 1; /* break mac2 */
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	CHECK(B.nout == 1 && B.out[0].data[0] == 3);
	B.nout = 0;
	tick(200 * MS);
	init = grab_initiation();
	init.data[132] ^= 1;
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_OK);
	CHECK(B.nout == 1 && B.out[0].data[0] == 2);
}

static void take_cookie(void)
{
	struct h_pkt init;
	load(B.dev);
	init = grab_initiation();
	B.nout = 0;
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	CHECK(B.nout == 1 && B.out[0].data[0] == 3);
	CHECK(wg_device_receive(A.dev, &B.addr, B.out[0].data, 64) == WG_OK);
	B.nout = 0;
}

static void test_stale_cookie(void)
{
	struct h_pkt init, held;

	/* A's side: a cookie older than 120 - 5 s is not used any more. */
	setup();
	take_cookie();
	tick(114 * SEC);
	init = grab_initiation();
	CHECK(memcmp(init.data + 132, zero16, 16) != 0);
	tick(2 * SEC);
	init = grab_initiation();
	CHECK(!memcmp(init.data + 132, zero16, 16));

	/* B's side: its secret is replaced after 120 s, so a mac2 made with a
	 * cookie from the old secret no longer validates. */
	setup();
	take_cookie();
	tick(10 * MS);
	held = grab_initiation(); /* valid mac2 now */
	tick(121 * SEC);
	load(B.dev);
	CHECK(wg_device_receive(B.dev, &A.addr, held.data, held.len) == WG_ERR_DROPPED);
	CHECK(B.nout == 1 && B.out[0].data[0] == 3);
	B.nout = 0;
}

static void test_reply_only_when_awaited(void)
{
	struct h_pkt init, reply;
	struct wg_device_stats st;

	setup();
	load(B.dev);
	init = grab_initiation();
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	reply = B.out[0];
	B.nout = 0;
	/* Unknown receiver index. */
	reply.data[4] ^= 1;
	CHECK(wg_device_receive(A.dev, &B.addr, reply.data, 64) == WG_ERR_DROPPED);
	reply.data[4] ^= 1;
	/* Tampered cookie. */
	reply.data[40] ^= 1;
	CHECK(wg_device_receive(A.dev, &B.addr, reply.data, 64) == WG_ERR_DROPPED);
	reply.data[40] ^= 1;
	CHECK(!pA->cookie.has_cookie);
	/* After the handshake completed, no longer awaited. */
	tick(2 * SEC);
	pA->has_sent_handshake = false;
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	CHECK(pA->keypairs.current != NULL);
	CHECK(wg_device_receive(A.dev, &B.addr, reply.data, 64) == WG_ERR_DROPPED);
	wg_device_get_stats(A.dev, &st);
	CHECK(st.packets_invalid == 3);
	CHECK(!pA->cookie.has_cookie);
}

/* The initiator answers our response with a cookie: accepted while our
 * keypair is unconfirmed. */
static void test_cookie_for_response(void)
{
	struct h_pkt init;

	setup();
	init = grab_initiation();
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_OK);
	CHECK(B.nout == 1 && B.out[0].data[0] == 2);
	load(A.dev);
	A.nout = 0;
	CHECK(wg_device_receive(A.dev, &B.addr, B.out[0].data, 92) == WG_ERR_DROPPED);
	CHECK(A.nout == 1 && A.out[0].data[0] == 3);
	CHECK(pA->keypairs.current == NULL);
	CHECK(wg_device_receive(B.dev, &A.addr, A.out[0].data, 64) == WG_OK);
	CHECK(pB->cookie.has_cookie);
	A.nout = B.nout = 0;
}

static void test_ratelimit(void)
{
	struct h_pkt init;
	struct wg_device_stats st;
	int ok = 0;

	setup();
	take_cookie();
	tick(10 * MS);
	init = grab_initiation();
	for (int i = 0; i < 20; i++) {
		struct h_pkt copy = init;
		load(B.dev);
		(void)wg_device_receive(B.dev, &A.addr, copy.data, copy.len);
	}
	wg_device_get_stats(B.dev, &st);
	CHECK(st.handshakes_ratelimited >= 14);
	CHECK(st.handshakes_ratelimited <= 15);
	ok = (int)B.sent_by_type[2];
	CHECK(ok == 1); /* first accepted, the other allowed ones are replays */
	/* Another source is not affected. */
	{
		struct wg_endpoint other;
		h_endpoint4(&other, "10.0.1.1", 1001);
		CHECK(wg_device_receive(B.dev, &other, init.data, init.len) == WG_ERR_DROPPED);
		wg_device_get_stats(B.dev, &st);
		CHECK(st.cookie_replies_sent >= 2); /* cookie is per source: reply, not limit */
	}
}

/* A cookie reply for our initiation: one initiation at once, with a mac2 the
 * loaded responder accepts; a replayed, forged or second reply sends nothing
 * more; the next attempt (after REKEY_TIMEOUT) gets its own early retry. */
static struct h_pkt cookie_reply_to(struct h_pkt *init, const struct wg_endpoint *from)
{
	struct h_pkt reply;

	load(B.dev);
	B.nout = 0;
	CHECK(wg_device_receive(B.dev, from, init->data, init->len) == WG_ERR_DROPPED);
	CHECK(B.nout == 1 && B.out[0].len == 64 && B.out[0].data[0] == 3);
	reply = B.out[0];
	B.nout = 0;
	return reply;
}

static void test_early_retry(void)
{
	struct h_pkt init, reply, forged, retry, reply2;
	struct wg_endpoint other;
	size_t sent;

	setup();
	h_endpoint4(&other, "10.0.0.9", 1001);
	init = grab_initiation();
	reply = cookie_reply_to(&init, &A.addr);
	forged = reply;
	forged.data[40] ^= 1;
	A.nout = 0;
	CHECK(wg_device_receive(A.dev, &B.addr, forged.data, 64) == WG_ERR_DROPPED);
	CHECK(A.nout == 0);
	tick(1 * MS);
	CHECK(wg_device_receive(A.dev, &B.addr, reply.data, 64) == WG_OK);
	CHECK(A.nout == 1 && A.out[0].len == 148 && A.out[0].data[0] == 1);
	retry = A.out[0];
	CHECK(memcmp(retry.data + 132, zero16, 16) != 0); /* mac2 */
	A.nout = 0;
	/* Replayed: refused, nothing sent. */
	CHECK(wg_device_receive(A.dev, &B.addr, reply.data, 64) == WG_ERR_DROPPED);
	CHECK(A.nout == 0);
	/* A second valid reply (to the retry, from a source whose cookie it
	 * lacks) is taken but sends nothing until the next attempt. */
	reply2 = cookie_reply_to(&retry, &other);
	CHECK(wg_device_receive(A.dev, &B.addr, reply2.data, 64) == WG_OK);
	CHECK(A.nout == 0);
	sent = A.sent_by_type[1];
	tick(WG_REKEY_TIMEOUT - 10 * MS);
	(void)wg_device_tick(A.dev);
	CHECK(A.sent_by_type[1] == sent);
	/* The retry's mac2 is valid under load: B answers. */
	load(B.dev);
	B.nout = 0;
	CHECK(wg_device_receive(B.dev, &A.addr, retry.data, retry.len) == WG_OK);
	CHECK(B.nout == 1 && B.out[0].data[0] == 2);
	B.nout = 0;
	/* No answer reaches A: the retransmission after REKEY_TIMEOUT (+ jitter)
	 * is a new attempt, and its cookie reply allows one early retry again. */
	tick(WG_REKEY_TIMEOUT_JITTER_MAX + 20 * MS);
	(void)wg_device_tick(A.dev);
	CHECK(A.sent_by_type[1] == sent + 1 && A.nout == 1);
	init = A.out[0];
	A.nout = 0;
	tick(1 * MS);
	reply = cookie_reply_to(&init, &A.addr); /* A holds the cookie of `other` */
	CHECK(wg_device_receive(A.dev, &B.addr, reply.data, 64) == WG_OK);
	CHECK(A.sent_by_type[1] == sent + 2 && A.nout == 1);
	A.nout = 0;
}

int main(void)
{
	test_no_load();
	test_under_load();
	test_stale_cookie();
	test_reply_only_when_awaited();
	test_cookie_for_response();
	test_ratelimit();
	test_early_retry();
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	return test_finish("test_engine_cookie");
}
