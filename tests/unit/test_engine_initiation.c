/* Engine: our initiations as split handshake jobs (io.initiations_pending,
 * wg_device_prepare_initiations): the same bytes as the all-locked path for
 * the same RNG and clock, refused at complete after a private key change or
 * the peer's removal, and no X25519 in any call a caller makes under its
 * lock (counted by wrapping zinc's X25519 at link time, this binary only:
 * see the Makefile). */
#include "../../wg/device.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "engine_harness.h"

static struct h_clock clk = {1000 * SEC, 1700000000ULL * SEC};
static struct h_side A, B;
static struct wg_peer *pA, *pB;

/* X25519 calls made while "the lock" is held (calls into A's device other
 * than consume) and without it. */
static bool locked;
static unsigned x_locked, x_free;

bool __real_zinc_curve25519(uint8_t out[32], const uint8_t secret[32], const uint8_t point[32]);
bool __real_zinc_curve25519_generate_public(uint8_t pub[32], const uint8_t secret[32]);

bool __wrap_zinc_curve25519(uint8_t out[32], const uint8_t secret[32], const uint8_t point[32])
{
	*(locked ? &x_locked : &x_free) += 1;
	return __real_zinc_curve25519(out, secret, point);
}

bool __wrap_zinc_curve25519_generate_public(uint8_t pub[32], const uint8_t secret[32])
{
	*(locked ? &x_locked : &x_free) += 1;
	return __real_zinc_curve25519_generate_public(pub, secret);
}

size_t __real_zinc_curve25519_batch(size_t n, uint8_t *const out[], const uint8_t *const secret[],
				    const uint8_t *const point[], bool ok[]);
size_t __wrap_zinc_curve25519_batch(size_t n, uint8_t *const out[], const uint8_t *const secret[],
				    const uint8_t *const point[], bool ok[])
{
	*(locked ? &x_locked : &x_free) += (unsigned)n;
	return __real_zinc_curve25519_batch(n, out, secret, point, ok);
}

/* A's initiations from the seeds of pair(): the first, one 6 s later, and
 * one a staged packet started 6 s after that, as the all-locked code built
 * them (main at d9962e2, before initiations became jobs). */
static const char *const golden[3] = {
    "01000000d6b79c9246ceeb7d1f0571a45c9b15a0d30d12e216e4f45d3d8954148a9a3114c337263b801fed23aa1505"
    "1cd4a5931406a587dcf544a8afc6aaea2c08784c8fd2add1848c3e532590fbe46ae452fb42bb166c3cabd63b4b41bf"
    "f9c79bd7c8f3ea19e8c26e70abb26f54505838e6cb23a80483ab7ee5aec664285efa922ec995000000000000000000"
    "00000000000000",
    "01000000b1356c70cbdaa041c888eb7a43cae69c9ecf83a50171cdd10cade15ae7f25935d191474f9ae517fc7750dd"
    "13b77b5d5fd4c3b56f16e25eebd1a6d0c12a50c005ca7fd838e74229c9c8efce5142f16d6c287eb08da5fe41d2a41c"
    "b899facf4948cdcc5098cc4378809b11e982fa4322dfdbaa842b8d8abbdb5cceddef124a8364000000000000000000"
    "00000000000000",
    "0100000048b82140071f01058a93c80e02c1d3180c573aa21e4a0bd3720c009cfa4361d03a22d11340527b666ca27c"
    "df669575c68289ab33f5b5993abda94e5bc2ef0822e333b7e29f8730a0726efbe5ccb4044be95b018c69f6d088599d"
    "9f91a2123392d4c1c6c8884f49f220da09c454431d142ee82bbc71a6642a2161ac3738310327000000000000000000"
    "00000000000000",
};

static size_t pending_calls;

static void pending(void *ctx)
{
	CHECK(ctx == &A);
	pending_calls++;
}

static void pair(bool deferred)
{
	h_deferred = deferred ? &A : NULL;
	h_pending_hook = pending;
	pending_calls = 0;
	clk = (struct h_clock){1000 * SEC, 1700000000ULL * SEC};
	h_pair_setup(&A, &B, &clk, 0x1111, 0x2222, &pA, &pB);
}

static void check_golden(const struct h_pkt *p, int i)
{
	uint8_t want[WG_HANDSHAKE_MAX_LEN];

	CHECK(p->len == sizeof(want));
	test_unhex(want, sizeof(want), golden[i]);
	CHECK_MEM(p->data, want, sizeof(want), "initiation bytes");
}

/* What the daemon's handshake thread does with A's queued initiations:
 * prepare and complete under the lock, consume without it; the messages
 * go to A's outbox. Returns how many were prepared; *r: the last result. */
static size_t run_jobs(int *r)
{
	static struct wg_handshake_job jobs[8];
	size_t n;

	locked = true;
	n = wg_device_prepare_initiations(A.dev, jobs, 8);
	locked = false;
	wg_handshake_consume_batch(A.dev, jobs, n);
	locked = true;
	for (size_t i = 0; i < n; i++) {
		*r = wg_device_complete_handshake(A.dev, &jobs[i]);
		if (jobs[i].out_len) {
			CHECK(jobs[i].ds == WG_HANDSHAKE_DS); /* AF41, as the module's */
			h_send(&A, &jobs[i].to, jobs[i].out, jobs[i].out_len, jobs[i].ds);
		}
	}
	locked = false;
	return n;
}

/* Same bytes: inline (no hook) and as jobs. */
static void test_same_bytes(bool deferred)
{
	int r = WG_ERR_INVALID;

	pair(deferred);
	for (int i = 0; i < 3; i++) {
		A.nout = 0;
		if (i < 2) {
			pA->has_sent_handshake = false;
			wg_device_clock(A.dev);
			wg_send_handshake_initiation(A.dev, pA, false);
		} else {
			CHECK(h_send_ip(&A, &B, 100, 7) == WG_STAGED);
		}
		if (deferred) {
			CHECK(A.nout == 0); /* nothing from the call itself */
			CHECK(pending_calls == (size_t)i + 1);
			CHECK(run_jobs(&r) == 1 && r == WG_OK);
		}
		CHECK(A.nout == 1);
		check_golden(&A.out[0], i);
		clk.mono += 6 * SEC;
		clk.wall += 6 * SEC;
	}
	CHECK(!deferred || pending_calls == 3);
}

/* B's datagrams to A: handshake messages on A's split path (consume
 * without the lock), data under it; A's to B as they come. Until quiet. */
static void pump(void)
{
	static struct h_pkt batch[H_MAX_OUT];
	int r;

	for (int round = 0; round < 16; round++) {
		size_t na, nb;

		run_jobs(&r);
		na = A.nout;
		memcpy(batch, A.out, na * sizeof(batch[0]));
		A.nout = 0;
		for (size_t i = 0; i < na; i++)
			wg_device_receive(B.dev, &A.addr, batch[i].data, batch[i].len);
		nb = B.nout;
		if (!na && !nb)
			return;
		memcpy(batch, B.out, nb * sizeof(batch[0]));
		B.nout = 0;
		for (size_t i = 0; i < nb; i++) {
			struct wg_handshake_job job;

			locked = true;
			if (batch[i].data[0] == WG_MESSAGE_DATA) {
				wg_device_receive(A.dev, &B.addr, batch[i].data, batch[i].len);
				locked = false;
				continue;
			}
			wg_device_prepare_handshake(A.dev, &B.addr, batch[i].data, batch[i].len,
						    &job);
			locked = false;
			wg_handshake_consume(A.dev, &job);
			locked = true;
			wg_device_complete_handshake(A.dev, &job);
			if (job.out_len)
				h_send(&A, &job.to, job.out, job.out_len, job.ds);
			locked = false;
		}
	}
}

static void a_send(void)
{
	locked = true;
	h_send_ip(&A, &B, 100, 1);
	locked = false;
}

static void a_tick(uint64_t dt)
{
	clk.mono += dt;
	clk.wall += dt;
	locked = true;
	wg_device_tick(A.dev);
	locked = false;
	wg_device_tick(B.dev);
}

/* A staged packet's initiation, a rekey after REKEY_AFTER_TIME, retries
 * while B does not answer, keepalives: with the hook, every X25519 of A's
 * happens in consume; without it (the old path) some come from calls under
 * the lock, which is what the count would show had any slipped back. */
static void test_no_dh_under_lock(bool deferred)
{
	struct wg_device_stats st;

	pair(deferred);
	x_locked = x_free = 0;
	a_send();
	pump();
	CHECK(B.ndelivered == 1);
	a_tick(SEC);
	a_send(); /* session in use */
	pump();
	CHECK(B.ndelivered == 2);
	wg_device_peer_remove(B.dev, pB); /* B stops answering: retries */
	a_tick(WG_REKEY_AFTER_TIME / WG_NS_PER_SEC * SEC);
	a_send(); /* rekey on send */
	pump();
	for (int i = 0; i < 4; i++) {
		a_tick(6 * SEC);
		a_send();
		pump();
	}
	wg_device_get_stats(A.dev, &st);
	CHECK(st.handshakes_completed == 1);
	CHECK(st.handshake_initiations_sent >= 5);
	if (deferred)
		CHECK(x_locked == 0 && x_free > 0);
	else
		CHECK(x_locked > 0);
}

/* Prepared, then the key changes or the peer goes: nothing is sent. */
static void test_refusals(void)
{
	static const uint8_t other[WG_PUBLIC_KEY_LEN] = {1, 2, 3};
	struct wg_handshake_job job;
	struct wg_device_stats st;
	int r = WG_OK;

	pair(true);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	CHECK(wg_device_prepare_initiations(A.dev, &job, 1) == 1);
	wg_handshake_consume(A.dev, &job);
	wg_device_set_private_key(A.dev, other);
	CHECK(wg_device_complete_handshake(A.dev, &job) == WG_ERR_DROPPED);
	CHECK(job.out_len == 0);
	wg_device_get_stats(A.dev, &st);
	CHECK(st.handshake_initiations_sent == 0);
	/* not stuck: the next packet queues the peer again */
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	CHECK(run_jobs(&r) == 1 && r == WG_OK && A.nout == 1);

	pair(true);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	CHECK(wg_device_prepare_initiations(A.dev, &job, 1) == 1);
	wg_device_peer_remove(A.dev, pA);
	wg_handshake_consume(A.dev, &job);
	CHECK(wg_device_complete_handshake(A.dev, &job) == WG_ERR_DROPPED);
	CHECK(job.out_len == 0 && A.nout == 0);

	/* removed while queued: not prepared; queued at free: released */
	pair(true);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED);
	wg_device_peer_remove(A.dev, pA);
	CHECK(wg_device_prepare_initiations(A.dev, &job, 1) == 0);
	pA = h_connect(&A, &B, NULL, true);
	CHECK(h_send_ip(&A, &B, 100, 1) == WG_STAGED); /* main frees A with it queued */
}

int main(void)
{
	test_same_bytes(false);
	test_same_bytes(true);
	test_no_dh_under_lock(false);
	test_no_dh_under_lock(true);
	test_refusals();
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	return test_finish("test_engine_initiation");
}
