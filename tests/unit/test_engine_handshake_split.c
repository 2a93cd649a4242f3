/* Engine: the split handshake path (prepare under the lock, consume without
 * it, complete under it): byte-identical answers to the old all-locked path,
 * answers returned in the job (never through io.send), and every change that
 * can happen while a job is computed without the lock refused at complete:
 * a private key change, a removed peer, a replayed or duplicate initiation,
 * our own initiation replaced. */
#include "../../wg/device.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "engine_harness.h"

static struct h_clock clk = {1000 * SEC, 1700000000ULL * SEC};
static struct h_side A, B;
static struct wg_peer *pA, *pB; /* B as A's peer, A as B's peer */

/* B's response to A's first initiation and A's keepalive answering it, as
 * the engine produced them with every step under the lock (the code before
 * the split, commit 65d34b5), from the seeds of h_pair_setup below. */
static const char *const golden_response[2] = {
    "0200000068c19b1cd6b79c9270eca04f408348d5b6c77c1ecefa35b22760a3ae050dd3ea7d012e88bd9e1003"
    "64db1c3e39390d379935049a03191dd547bb413244495c37607f205886e5d18200000000000000000000000000"
    "000000",
    "0200000068c19b1cd6b79c9270eca04f408348d5b6c77c1ecefa35b22760a3ae050dd3ea7d012e88bd9e1003"
    "95ff0d24a05efeee6ee298f3732825dca5d81b09ddbf5bd45f9fd0e6f4fa2262000000000000000000000000"
    "00000000",
};
static const char *const golden_keepalive[2] = {
    "0400000068c19b1c0000000000000000360620e143c1acbd279d9fdfbbda3738",
    "0400000068c19b1c0000000000000000d453b839b459d46e75ded610ca5d5974",
};

static void pair(void)
{
	h_pair_setup(&A, &B, &clk, 0x1111, 0x2222, &pA, &pB);
}

static uint64_t invalid(struct h_side *s)
{
	struct wg_device_stats st;

	wg_device_get_stats(s->dev, &st);
	return st.packets_invalid;
}

/* prepare + consume of a datagram at s, as the daemon does them. */
static void prepare_consume(struct h_side *s, const struct wg_endpoint *from, const struct h_pkt *p,
			    struct wg_handshake_job *job)
{
	wg_device_prepare_handshake(s->dev, from, p->data, p->len, job);
	wg_handshake_consume(s->dev, job);
}

/* The job's answer as a datagram in flight. */
static struct h_pkt answer(const struct wg_handshake_job *job)
{
	struct h_pkt p;

	memset(&p, 0, sizeof(p));
	p.to = job->to;
	p.len = job->out_len;
	memcpy(p.data, job->out, job->out_len);
	return p;
}

static void test_identical_to_locked_path(void)
{
	uint8_t psk[32], want[128];

	memset(psk, 0x5c, sizeof(psk));
	for (int k = 0; k < 2; k++) {
		struct wg_handshake_job job;
		struct h_pkt ini, resp;

		pair();
		if (k) {
			wg_peer_set_preshared_key(pA, psk);
			wg_peer_set_preshared_key(pB, psk);
		}
		ini = h_grab_initiation(&A, pA);
		prepare_consume(&B, &A.addr, &ini, &job);
		CHECK(wg_device_complete_handshake(B.dev, &job) == WG_OK);
		/* returned, not sent */
		CHECK(B.sent_total == 0);
		CHECK(job.out_len == 92 &&
		      test_unhex(want, sizeof(want), golden_response[k]) == 92);
		CHECK_MEM(job.out, want, 92, "response as the locked path made it");
		CHECK(!memcmp(&job.to.addr.in4, &A.addr.addr.in4, sizeof(struct sockaddr_in)));
		/* A reads it on the split path too; its keepalive shows the keys */
		resp = answer(&job);
		prepare_consume(&A, &B.addr, &resp, &job);
		CHECK(wg_device_complete_handshake(A.dev, &job) == WG_OK);
		CHECK(job.out_len == 0 && A.nout == 1 && A.out[0].len == 32);
		CHECK(test_unhex(want, sizeof(want), golden_keepalive[k]) == 32);
		CHECK_MEM(A.out[0].data, want, 32, "keepalive as the locked path made it");
		/* and B takes it: the session is confirmed */
		CHECK(wg_device_receive(B.dev, &A.addr, A.out[0].data, A.out[0].len) == WG_OK);
		A.nout = 0;
		CHECK(h_send_ip(&B, &A, 100, 7) == WG_OK);
		h_pump(&A, &B, NULL, NULL);
		CHECK(A.ndelivered == 1);
	}
}

/* The private key changes while the crypto runs without the lock: the job
 * computed with the old key is refused, for both message types. */
static void test_key_change_refused(void)
{
	struct wg_handshake_job job;
	struct h_pkt ini, resp;
	uint8_t other[32];
	uint64_t inv;

	memset(other, 0x42, sizeof(other));
	pair();
	ini = h_grab_initiation(&A, pA);
	prepare_consume(&B, &A.addr, &ini, &job);
	wg_device_set_private_key(B.dev, other);
	inv = invalid(&B);
	CHECK(wg_device_complete_handshake(B.dev, &job) == WG_ERR_DROPPED);
	CHECK(job.out_len == 0 && invalid(&B) == inv + 1);
	CHECK(pB->handshake.state == WG_HANDSHAKE_ZEROED && !pB->keypairs.next);
	/* set back to the same key: a new identity all the same (the key
	 * change dropped every handshake in between) */
	prepare_consume(&B, &A.addr, &ini, &job);
	wg_device_set_private_key(B.dev, B.priv);
	CHECK(wg_device_complete_handshake(B.dev, &job) == WG_ERR_DROPPED);
	/* unchanged key (set again to the same value): accepted */
	prepare_consume(&B, &A.addr, &ini, &job);
	wg_device_set_private_key(B.dev, B.priv);
	CHECK(wg_device_complete_handshake(B.dev, &job) == WG_OK && job.out_len == 92);

	/* the initiator's side: A's key changes while it reads the response */
	resp = answer(&job);
	prepare_consume(&A, &B.addr, &resp, &job);
	wg_device_set_private_key(A.dev, other);
	CHECK(wg_device_complete_handshake(A.dev, &job) == WG_ERR_DROPPED);
	CHECK(!pA->keypairs.current && A.nout == 0);
	/* a removed key: refused too, and nothing to prepare afterwards */
	pair();
	ini = h_grab_initiation(&A, pA);
	prepare_consume(&B, &A.addr, &ini, &job);
	wg_device_set_private_key(B.dev, NULL);
	CHECK(wg_device_complete_handshake(B.dev, &job) == WG_ERR_DROPPED && job.out_len == 0);
	prepare_consume(&B, &A.addr, &ini, &job);
	CHECK(wg_device_complete_handshake(B.dev, &job) == WG_ERR_DROPPED);
}

/* The peer is removed while its message is computed. */
static void test_peer_removed_refused(void)
{
	struct wg_handshake_job job;
	struct h_pkt ini, resp;

	pair();
	ini = h_grab_initiation(&A, pA);
	prepare_consume(&B, &A.addr, &ini, &job);
	wg_device_peer_remove(B.dev, pB);
	CHECK(wg_device_complete_handshake(B.dev, &job) == WG_ERR_DROPPED && job.out_len == 0);

	/* a response whose peer goes away: the job's reference keeps the
	 * peer's memory until complete (ASan would see a use after free) */
	pair();
	ini = h_grab_initiation(&A, pA);
	CHECK(wg_device_receive(B.dev, &A.addr, ini.data, ini.len) == WG_OK && B.nout == 1);
	resp = B.out[0];
	B.nout = 0;
	prepare_consume(&A, &B.addr, &resp, &job);
	wg_device_peer_remove(A.dev, pA);
	CHECK(wg_device_complete_handshake(A.dev, &job) == WG_ERR_DROPPED);
	CHECK(A.nout == 0 && wg_device_peer_count(A.dev) == 0);
}

/* Two jobs of one initiation in flight at once (a duplicate on the wire):
 * the first to complete wins, the second is a replay. A replay later too. */
static void test_replay_refused(void)
{
	struct wg_handshake_job j1, j2;
	struct h_pkt ini, ini2;

	pair();
	ini = h_grab_initiation(&A, pA);
	prepare_consume(&B, &A.addr, &ini, &j1);
	prepare_consume(&B, &A.addr, &ini, &j2);
	CHECK(wg_device_complete_handshake(B.dev, &j2) == WG_OK && j2.out_len == 92);
	CHECK(wg_device_complete_handshake(B.dev, &j1) == WG_ERR_DROPPED && j1.out_len == 0);
	clk.mono += SEC;
	clk.wall += SEC;
	prepare_consume(&B, &A.addr, &ini, &j1);
	CHECK(wg_device_complete_handshake(B.dev, &j1) == WG_ERR_DROPPED);
	/* a newer initiation completed first makes an older one in flight stale */
	ini = h_grab_initiation(&A, pA);
	clk.mono += SEC;
	clk.wall += SEC;
	ini2 = h_grab_initiation(&A, pA);
	prepare_consume(&B, &A.addr, &ini, &j1);
	prepare_consume(&B, &A.addr, &ini2, &j2);
	CHECK(wg_device_complete_handshake(B.dev, &j2) == WG_OK);
	CHECK(wg_device_complete_handshake(B.dev, &j1) == WG_ERR_DROPPED);
}

/* A response in flight to an initiation we have replaced (a retry) or that
 * was answered already is refused. */
static void test_response_superseded(void)
{
	struct wg_handshake_job job;
	struct h_pkt ini, resp;

	pair();
	ini = h_grab_initiation(&A, pA);
	CHECK(wg_device_receive(B.dev, &A.addr, ini.data, ini.len) == WG_OK && B.nout == 1);
	resp = B.out[0];
	B.nout = 0;
	prepare_consume(&A, &B.addr, &resp, &job);
	(void)h_grab_initiation(&A, pA); /* the retry: a new handshake state */
	CHECK(wg_device_complete_handshake(A.dev, &job) == WG_ERR_DROPPED);
	CHECK(!pA->keypairs.current && A.nout == 0);

	/* answered meanwhile (the same response twice in flight) */
	pair();
	ini = h_grab_initiation(&A, pA);
	CHECK(wg_device_receive(B.dev, &A.addr, ini.data, ini.len) == WG_OK && B.nout == 1);
	resp = B.out[0];
	B.nout = 0;
	{
		struct wg_handshake_job j2;

		prepare_consume(&A, &B.addr, &resp, &job);
		prepare_consume(&A, &B.addr, &resp, &j2);
		CHECK(wg_device_complete_handshake(A.dev, &job) == WG_OK);
		CHECK(wg_device_complete_handshake(A.dev, &j2) == WG_ERR_DROPPED);
		CHECK(pA->keypairs.current && !pA->keypairs.previous);
	}
}

/* Under load a valid mac1 alone earns a cookie reply, returned in the job;
 * a job that prepare decided is a no-op for consume and complete. */
static void test_cookie_reply_returned(void)
{
	struct wg_handshake_job job;
	struct h_pkt ini;
	struct wg_device_stats st;

	pair();
	ini = h_grab_initiation(&A, pA);
	wg_device_set_handshake_queue_len(B.dev, 4096);
	prepare_consume(&B, &A.addr, &ini, &job);
	CHECK(wg_device_complete_handshake(B.dev, &job) == WG_ERR_DROPPED);
	CHECK(job.out_len == 64 && job.out[0] == 3 && B.sent_total == 0);
	wg_device_get_stats(B.dev, &st);
	CHECK(st.cookie_replies_sent == 1 && st.packets_invalid == 0);
	/* the one-call path sends it through io.send */
	CHECK(wg_device_receive(B.dev, &A.addr, ini.data, ini.len) == WG_ERR_DROPPED);
	CHECK(B.sent_total == 1 && B.out[0].len == 64);
	/* a bad mac1 is caught without the lock when not under load */
	clk.mono += 2 * SEC;
	clk.wall += 2 * SEC;
	ini.data[116] ^= 1;
	wg_device_prepare_handshake(B.dev, &A.addr, ini.data, ini.len, &job);
	CHECK(invalid(&B) == 0); /* left to consume */
	wg_handshake_consume(B.dev, &job);
	CHECK(wg_device_complete_handshake(B.dev, &job) == WG_ERR_DROPPED);
	CHECK(invalid(&B) == 1);
}

int main(void)
{
	test_identical_to_locked_path();
	test_key_change_refused();
	test_peer_removed_refused();
	test_replay_refused();
	test_response_superseded();
	test_cookie_reply_returned();
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	return test_finish("test_engine_handshake_split");
}
