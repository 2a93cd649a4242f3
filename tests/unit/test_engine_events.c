/* Engine events (wg_io.event): the sequence of a handshake, a retry and a
 * give-up, rotation, roaming, peers added and removed, and the refused
 * messages (unknown key, bad mac1, cookie reply, unseeded RNG). */
#include "../../wg/device.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "engine_harness.h"

#include <stdio.h>

static struct h_clock clk = {5000 * SEC, 1750000000ULL * SEC};
static struct h_side A, B, C;
static struct wg_peer *pA, *pB; /* A's view of B, B's view of A */

static const char *const kind_names[WG_EVENT_KIND_COUNT] = {
    [WG_EVENT_INITIATION_SENT] = "initiation_sent",
    [WG_EVENT_HANDSHAKE_RETRY] = "retry",
    [WG_EVENT_HANDSHAKE_GIVEUP] = "giveup",
    [WG_EVENT_INITIATION_RECEIVED] = "initiation_received",
    [WG_EVENT_RESPONSE_RECEIVED] = "response_received",
    [WG_EVENT_HANDSHAKE_COMPLETE] = "complete",
    [WG_EVENT_KEYPAIR_ROTATED] = "rotated",
    [WG_EVENT_PEER_ADDED] = "peer_added",
    [WG_EVENT_PEER_REMOVED] = "peer_removed",
    [WG_EVENT_ENDPOINT_CHANGED] = "endpoint_changed",
    [WG_EVENT_UNKNOWN_PEER] = "unknown_peer",
    [WG_EVENT_BAD_MAC1] = "bad_mac1",
    [WG_EVENT_COOKIE_SENT] = "cookie_sent",
    [WG_EVENT_RNG_UNSEEDED] = "rng_unseeded",
};

/* The side's events are exactly want[0..n), in order. */
static void expect_events(const struct h_side *s, const char *who, const enum wg_event_kind *want,
			  size_t n)
{
	bool same = s->nevents == n;

	for (size_t i = 0; same && i < n; i++)
		same = s->events[i].kind == want[i];
	CHECK(same);
	if (same)
		return;
	fprintf(stderr, "  %s: got", who);
	for (size_t i = 0; i < s->nevents; i++)
		fprintf(stderr, " %s", kind_names[s->events[i].kind]);
	fprintf(stderr, "\n  %s: want", who);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %s", kind_names[want[i]]);
	fprintf(stderr, "\n");
}

static size_t count_kind(const struct h_side *s, enum wg_event_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nevents; i++)
		n += s->events[i].kind == kind;
	return n;
}

static void setup(void)
{
	h_pair_setup(&A, &B, &clk, 0xa11ce, 0xb0b, &pA, &pB);
	CHECK(A.nevents == 1 && A.events[0].kind == WG_EVENT_PEER_ADDED && A.events[0].peer == pA &&
	      !memcmp(A.event_key[0], B.pub, 32));
	A.nevents = B.nevents = 0;
}

static void test_handshake(void)
{
	static const enum wg_event_kind a_want[] = {
	    WG_EVENT_INITIATION_SENT, WG_EVENT_RESPONSE_RECEIVED, WG_EVENT_HANDSHAKE_COMPLETE,
	    WG_EVENT_KEYPAIR_ROTATED};
	static const enum wg_event_kind b_want[] = {
	    WG_EVENT_INITIATION_RECEIVED, WG_EVENT_HANDSHAKE_COMPLETE, WG_EVENT_KEYPAIR_ROTATED};

	setup();
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	expect_events(&A, "A", a_want, sizeof(a_want) / sizeof(a_want[0]));
	expect_events(&B, "B", b_want, sizeof(b_want) / sizeof(b_want[0]));
	CHECK(A.events[0].peer == pA && A.events[0].attempt == 0);
	CHECK(A.events[2].initiator && A.events[3].initiator);
	CHECK(B.events[0].peer == pB && !memcmp(B.event_key[0], A.pub, 32));
	CHECK(!B.events[1].initiator && !B.events[2].initiator);
	/* the first session: the tunnel comes up (logged at info) */
	CHECK(A.events[2].fresh && B.events[1].fresh);
	/* the endpoint is the peer's */
	CHECK(A.event_endpoint[0].addr.in4.sin_port == htons(1002));
}

/* Nothing answers: a retry every REKEY_TIMEOUT, then one give-up after
 * REKEY_ATTEMPT_TIME, then silence. */
static void test_retry_giveup(void)
{
	size_t sent, retries;

	setup();
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	A.nout = 0;
	h_advance(&A, &B, 6 * SEC, h_drop_all, NULL);
	CHECK(A.nevents == 3);
	CHECK(A.events[1].kind == WG_EVENT_HANDSHAKE_RETRY && A.events[1].attempt == 1);
	CHECK(A.events[2].kind == WG_EVENT_INITIATION_SENT && A.events[2].attempt == 1);
	CHECK(count_kind(&A, WG_EVENT_HANDSHAKE_GIVEUP) == 0);
	h_advance(&A, &B, 90 * SEC, h_drop_all, NULL);
	sent = count_kind(&A, WG_EVENT_INITIATION_SENT);
	retries = count_kind(&A, WG_EVENT_HANDSHAKE_RETRY);
	CHECK(retries == sent - 1);
	CHECK(sent >= 16 && sent <= 19); /* ~90 s / 5.0-5.33 s */
	CHECK(count_kind(&A, WG_EVENT_HANDSHAKE_GIVEUP) == 1);
	CHECK(A.events[A.nevents - 1].kind == WG_EVENT_HANDSHAKE_GIVEUP);
	CHECK(A.events[A.nevents - 1].peer == pA);
	CHECK(B.nevents == 0);
	A.nevents = 0;
	h_advance(&A, &B, 60 * SEC, h_drop_all, NULL);
	CHECK(A.nevents == 0);
}

/* A session older than REKEY_AFTER_TIME: the next send rekeys and A's
 * current keypair rotates; B's rotates with the first packet on it. */
static void test_rotation(void)
{
	setup();
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	A.nevents = B.nevents = 0;
	h_advance(&A, &B, 121 * SEC, NULL, NULL);
	CHECK(count_kind(&A, WG_EVENT_KEYPAIR_ROTATED) == 0);
	CHECK(h_send_ip(&A, &B, 100, 2) == WG_OK);
	h_pump(&A, &B, NULL, NULL);
	CHECK(count_kind(&A, WG_EVENT_INITIATION_SENT) == 1);
	CHECK(count_kind(&A, WG_EVENT_KEYPAIR_ROTATED) == 1);
	CHECK(count_kind(&B, WG_EVENT_KEYPAIR_ROTATED) == 1);
	/* a rekey is no new tunnel */
	for (size_t i = 0; i < A.nevents; i++)
		CHECK(A.events[i].kind != WG_EVENT_HANDSHAKE_COMPLETE || !A.events[i].fresh);
	CHECK(count_kind(&A, WG_EVENT_HANDSHAKE_COMPLETE) == 1);
}

/* Roaming: an authenticated packet from a new address moves the endpoint
 * (one event); forged ones and the same address again do not. */
static void test_roaming(void)
{
	struct wg_endpoint moved, bogus;
	uint8_t junk[64];

	setup();
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	h_pump(&A, &B, NULL, NULL);
	B.nevents = 0;
	h_endpoint4(&moved, "10.0.0.11", 4444);
	A.nout = 0;
	CHECK(h_send_ip(&A, &B, 100, 2) == WG_OK);
	CHECK(wg_device_receive(B.dev, &moved, A.out[0].data, A.out[0].len) == WG_OK);
	CHECK(B.nevents == 1 && B.events[0].kind == WG_EVENT_ENDPOINT_CHANGED);
	CHECK(B.events[0].peer == pB && B.event_endpoint[0].addr.in4.sin_port == htons(4444));
	A.nout = 0;
	CHECK(h_send_ip(&A, &B, 100, 3) == WG_OK);
	CHECK(wg_device_receive(B.dev, &moved, A.out[0].data, A.out[0].len) == WG_OK);
	h_endpoint4(&bogus, "10.0.0.66", 6666);
	memset(junk, 0, sizeof(junk));
	junk[0] = 4;
	memcpy(junk + 4, A.out[0].data + 4, 4); /* right index, bad tag */
	CHECK(wg_device_receive(B.dev, &bogus, junk, sizeof(junk)) == WG_ERR_DROPPED);
	CHECK(B.nevents == 1);
	A.nout = 0;
}

static void test_peer_removed(void)
{
	setup();
	wg_device_peer_remove(A.dev, pA);
	CHECK(A.nevents == 1 && A.events[0].kind == WG_EVENT_PEER_REMOVED &&
	      !memcmp(A.event_key[0], B.pub, 32));
	/* freeing the device is not news */
	A.nevents = 0;
	wg_device_free(A.dev);
	A.dev = NULL;
	CHECK(A.nevents == 0);
}

/* Refused handshake messages: each one event with its source. */
static void test_refused(void)
{
	struct wg_endpoint from;
	struct h_pkt init;
	uint8_t garbage[148];

	setup();
	h_endpoint4(&from, "10.0.0.77", 7777);
	/* bad mac1 */
	memset(garbage, 0x5a, sizeof(garbage));
	garbage[0] = 1;
	garbage[1] = garbage[2] = garbage[3] = 0;
	CHECK(wg_device_receive(B.dev, &from, garbage, sizeof(garbage)) == WG_ERR_DROPPED);
	CHECK(B.nevents == 1 && B.events[0].kind == WG_EVENT_BAD_MAC1 && !B.events[0].peer);
	CHECK(B.event_endpoint[0].addr.in4.sin_port == htons(7777));
	/* an authentic initiation from a key B does not know */
	h_side_init(&C, &clk, 0xc0c, "10.0.0.3", 1003, 3);
	h_connect(&C, &B, NULL, true);
	B.nevents = 0;
	init = h_grab_initiation(&C, wg_device_peer_lookup(C.dev, B.pub));
	CHECK(wg_device_receive(B.dev, &C.addr, init.data, init.len) == WG_ERR_DROPPED);
	CHECK(B.nevents == 1 && B.events[0].kind == WG_EVENT_UNKNOWN_PEER);
	CHECK(!memcmp(B.event_key[0], C.pub, 32));
	CHECK(B.event_endpoint[0].addr.in4.sin_port == htons(1003));
	/* under load: a cookie reply */
	B.nevents = 0;
	wg_device_set_handshake_queue_len(B.dev, 4096);
	init = h_grab_initiation(&A, pA);
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	CHECK(B.nevents == 1 && B.events[0].kind == WG_EVENT_COOKIE_SENT);
	wg_device_set_handshake_queue_len(B.dev, 0);
	/* the RNG not seeded */
	B.nevents = 0;
	B.rng_ready = false;
	CHECK(wg_device_receive(B.dev, &A.addr, init.data, init.len) == WG_ERR_DROPPED);
	CHECK(B.nevents == 1 && B.events[0].kind == WG_EVENT_RNG_UNSEEDED);
	B.rng_ready = true;
	wg_device_free(C.dev);
	C.dev = NULL;
}

int main(void)
{
	test_handshake();
	test_retry_giveup();
	test_rotation();
	test_roaming();
	test_refused();
	test_peer_removed();
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	return test_finish("test_engine_events");
}
