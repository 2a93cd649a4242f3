/* Incoming handshake messages on the split path (wg.h, "Split handshake
 * path"): prepare under the device lock (RNG gate, admission under load),
 * consume without it (mac1, cookie reply, X25519, Noise), complete under it
 * (replay and flood checks, state, keypair). wg_device_receive() runs the
 * three in a row. */
#include <stddef.h>
#include <string.h>

#include <zinc/curve25519.h>
#include <zinc/memzero.h>

#include "bytes.h"
#include "dhbatch.h"
#include "event.h"
#include "handshake.h"
#include "initiation.h"
#include "send.h"

/* What is left to do with a job (job->s.stage). */
enum wg_handshake_stage {
	WG_HS_DECIDED, /* prepare decided: job->s.result, already counted */
	WG_HS_CONSUME, /* the crypto is to be done */
	WG_HS_COOKIE,  /* under load without a valid mac2: a cookie reply if mac1 is valid */
	WG_HS_COMMIT,  /* the crypto passed: commit under the lock */
	WG_HS_REPLIED, /* a cookie reply is in job->out */
	WG_HS_FAILED,  /* the crypto failed: invalid */
	WG_HS_BAD_MAC, /* mac1 failed */
	/* consume's steps, waiting for X25519 results (below) */
	WG_HS_INIT_ES,	 /* initiation: DH(s, re) */
	WG_HS_INIT_SS,	 /* initiation: DH(s, rs) */
	WG_HS_INIT_RESP, /* initiation: our response's three */
	WG_HS_RESP_DH,	 /* response: DH(e, re), DH(s, re) */
};

static const uint8_t *msg_field(const struct wg_handshake_job_state *s, size_t offset)
{
	return s->msg + offset;
}

/* ---- Prepare (under the lock) ---- */

/* Under load only messages with a valid mac2 (a cookie for their source)
 * are admitted, within the per-source rate; the others get a cookie reply
 * from consume if their mac1 is valid. False: dropped. */
static bool admit_under_load(struct wg_device *dev, struct wg_handshake_job_state *s)
{
	if (!wg_cookie_make(dev, s->cookie, &s->from))
		return false;
	if (!wg_cookie_mac2_valid(s->cookie, s->msg, s->len)) {
		s->stage = WG_HS_COOKIE;
		return true;
	}
	if (!wg_ratelimiter_allow(dev->ratelimiter, &s->from.addr.sa, dev->now)) {
		dev->stats.handshakes_ratelimited++;
		return false;
	}
	return true;
}

/* A response answers our initiation: copy what reading it needs. */
static bool prepare_response(struct wg_device *dev, struct wg_handshake_job_state *s)
{
	uint32_t index =
	    wg_le32(msg_field(s, offsetof(struct wg_message_handshake_response, receiver_index)));
	struct wg_index_entry *e = wg_index_lookup(&dev->index, index, WG_INDEX_HANDSHAKE);
	struct wg_handshake *hs;

	if (!e)
		return false;
	hs = &e->peer->handshake;
	if (hs->state != WG_HANDSHAKE_CREATED_INITIATION)
		return false;
	s->peer = e->peer;
	wg_peer_get(s->peer);
	s->serial = hs->serial;
	s->core = hs->secrets->core;
	memcpy(s->e_priv, hs->secrets->ephemeral_private, WG_PUBLIC_KEY_LEN);
	memcpy(s->psk, s->peer->preshared_key, WG_SYMMETRIC_KEY_LEN);
	return true;
}

void wg_device_prepare_handshake(struct wg_device *dev, const struct wg_endpoint *from,
				 const uint8_t *pkt, size_t len, struct wg_handshake_job *job)
{
	struct wg_handshake_job_state *s = &job->s;
	int type = wg_obfs_handshake_type(dev, pkt, len);

	memset(job, 0, sizeof(*job));
	s->stage = WG_HS_DECIDED;
	s->result = WG_ERR_DROPPED;
	wg_device_clock(dev);
	if (type < WG_MESSAGE_HANDSHAKE_INITIATION || type > WG_MESSAGE_HANDSHAKE_COOKIE || !from) {
		dev->stats.packets_invalid++;
		dev->stats.dropped_invalid++;
		s->result = WG_ERR_INVALID;
		return;
	}
	s->type = type;
	s->from = *from;
	s->len = len;
	memcpy(s->msg, pkt, len);
	/* Before any work: an answer must never come from weak randomness. */
	if (!wg_device_rng_ready(dev)) {
		dev->stats.handshakes_dropped_rng++;
		wg_event_refused(dev, WG_EVENT_RNG_UNSEEDED, from, NULL);
		return;
	}
	if (type == WG_MESSAGE_HANDSHAKE_COOKIE) {
		/* one XChaCha20-Poly1305 of 16 bytes: not worth a round trip */
		struct wg_message_handshake_cookie msg;
		struct wg_peer *initiator;

		memcpy(&msg, pkt, sizeof(msg));
		if (!wg_cookie_consume_reply(dev, &msg, &initiator)) {
			dev->stats.packets_invalid++;
			dev->stats.dropped_invalid++;
			return;
		}
		s->result = WG_OK;
		/* The responder is under load: retry with mac2 now (send.c). */
		if (initiator)
			wg_send_handshake_initiation_cookie_retry(dev, initiator);
		return;
	}
	if (!dev->identity) {
		dev->stats.packets_invalid++;
		dev->stats.dropped_invalid++;
		return;
	}
	s->stage = WG_HS_CONSUME;
	if (wg_device_under_load(dev) && !admit_under_load(dev, s)) {
		s->stage = WG_HS_DECIDED;
		return;
	}
	if (s->stage == WG_HS_CONSUME && type == WG_MESSAGE_HANDSHAKE_RESPONSE &&
	    !prepare_response(dev, s)) {
		s->stage = WG_HS_DECIDED;
		dev->stats.packets_invalid++;
		dev->stats.dropped_no_session++;
		return;
	}
	s->id = dev->identity;
	wg_identity_get(s->id);
}

/* ---- Consume (any thread, no lock) ----
 * In steps, each waiting for X25519 results that wg_handshake_consume_batch
 * computes for all its jobs at once: an initiation DH(s, re) to read the
 * static key, then DH(s, rs) to read the timestamp, then (authentic: only
 * the peer's static key makes that timestamp) our response's ephemeral and
 * its DH(e, re), DH(e, rs), so that complete has only hashing left; a
 * response its DH(e, re), DH(s, re); ours wg/initiation.c's three. */

static const size_t INI_EPH =
    offsetof(struct wg_message_handshake_initiation, unencrypted_ephemeral);
static const size_t RESP_EPH =
    offsetof(struct wg_message_handshake_response, unencrypted_ephemeral);

/* The cookie reply, when mac1 shows the sender knows our public key. */
static bool consume_cookie(const struct wg_device *dev, struct wg_handshake_job *job)
{
	struct wg_handshake_job_state *s = &job->s;
	struct wg_message_handshake_cookie reply;
	uint8_t nonce[WG_COOKIE_NONCE_LEN];

	if (!wg_device_random(dev, nonce, sizeof(nonce)))
		return false;
	wg_cookie_seal_reply(&reply, s->msg, s->len, s->cookie, s->id->cookie_key, nonce);
	memcpy(job->out, &reply, sizeof(reply));
	job->out_len = sizeof(reply);
	job->to = s->from;
	job->ds = 0; /* as the module's wg_socket_send_buffer_as_reply_to_skb */
	return true;
}

/* mac1 (else done), and a cookie reply under load; the first step. */
static void consume_begin(const struct wg_device *dev, struct wg_handshake_job *job)
{
	struct wg_handshake_job_state *s = &job->s;

	if (s->own || (s->stage != WG_HS_CONSUME && s->stage != WG_HS_COOKIE))
		return;
	if (!wg_cookie_mac1_valid(s->id->mac1_key, s->msg, s->len)) {
		s->stage = WG_HS_BAD_MAC;
	} else if (s->stage == WG_HS_COOKIE) {
		s->stage = consume_cookie(dev, job) ? WG_HS_REPLIED : WG_HS_DECIDED;
	} else if (s->type == WG_MESSAGE_HANDSHAKE_INITIATION) {
		wg_noise_core_init(&s->core, (const uint8_t *)WG_IDENTIFIER,
				   sizeof(WG_IDENTIFIER) - 1, s->id->static_public);
		memcpy(s->remote_ephemeral, msg_field(s, INI_EPH), WG_PUBLIC_KEY_LEN);
		s->stage = WG_HS_INIT_ES;
	} else {
		s->stage = WG_HS_RESP_DH;
	}
}

/* The X25519 operations the job's step waits for (WG_DH_PER_JOB at most). */
static size_t consume_ops(struct wg_handshake_job_state *s, uint8_t **out, const uint8_t **secret,
			  const uint8_t **point)
{
	const uint8_t *s_priv = s->id ? s->id->static_private : NULL;

	if (s->own)
		return wg_initiation_dh_ops(s, out, secret, point);
	switch (s->stage) {
	case WG_HS_INIT_ES:
		out[0] = s->dh[0], secret[0] = s_priv, point[0] = s->remote_ephemeral;
		return 1;
	case WG_HS_INIT_SS:
		out[0] = s->dh[1], secret[0] = s_priv, point[0] = s->remote_static;
		return 1;
	case WG_HS_INIT_RESP:
		out[0] = s->resp_e_pub, secret[0] = s->e_priv, point[0] = wg_dh_basepoint;
		out[1] = s->resp_ee, secret[1] = s->e_priv, point[1] = s->remote_ephemeral;
		out[2] = s->resp_se, secret[2] = s->e_priv, point[2] = s->remote_static;
		return 3;
	case WG_HS_RESP_DH:
		out[0] = s->dh[0], secret[0] = s->e_priv, point[0] = msg_field(s, RESP_EPH);
		out[1] = s->dh[1], secret[1] = s_priv, point[1] = msg_field(s, RESP_EPH);
		return 2;
	default:
		return 0;
	}
}

/* The step after the job's X25519 results arrived. */
static void consume_step(const struct wg_device *dev, struct wg_handshake_job_state *s)
{
	const size_t ts = offsetof(struct wg_message_handshake_initiation, encrypted_timestamp);
	uint8_t empty[1];
	bool ok;

	if (s->own) {
		wg_initiation_dh_done(s);
		return;
	}
	switch (s->stage) {
	case WG_HS_INIT_ES:
		ok = wg_noise_core_read_msg1_static_dh(&s->core, msg_field(s, INI_EPH), s->dh[0],
						       s->remote_static);
		s->stage = ok ? WG_HS_INIT_SS : WG_HS_FAILED;
		break;
	case WG_HS_INIT_SS:
		/* a zero DH(s, rs) fails as in Linux */
		ok = wg_noise_core_read_msg1_payload(&s->core, msg_field(s, ts),
						     WG_ENCRYPTED_LEN(WG_TIMESTAMP_LEN), s->dh[1],
						     s->timestamp) &&
		     wg_device_random(dev, s->e_priv, WG_PUBLIC_KEY_LEN);
		zinc_curve25519_clamp_secret(s->e_priv);
		s->stage = ok ? WG_HS_INIT_RESP : WG_HS_FAILED;
		break;
	case WG_HS_INIT_RESP:
		ok = !wg_is_zero(s->resp_ee, WG_PUBLIC_KEY_LEN) &&
		     !wg_is_zero(s->resp_se, WG_PUBLIC_KEY_LEN);
		zinc_memzero(s->e_priv, WG_PUBLIC_KEY_LEN);
		s->stage = ok ? WG_HS_COMMIT : WG_HS_FAILED;
		break;
	case WG_HS_RESP_DH:
		ok = wg_noise_core_read_msg2_dh(&s->core, msg_field(s, RESP_EPH),
						WG_PUBLIC_KEY_LEN + WG_ENCRYPTED_LEN(0), s->dh[0],
						s->dh[1], s->psk, empty);
		s->stage = ok ? WG_HS_COMMIT : WG_HS_FAILED;
		break;
	default:
		return;
	}
	zinc_memzero(s->dh, sizeof(s->dh));
}

enum { DH_CHUNK = 16 * WG_DH_PER_JOB }; /* operations per wg_dh_batch call */

void wg_handshake_consume_batch(const struct wg_device *dev, struct wg_handshake_job *jobs,
				size_t n)
{
	uint8_t *out[DH_CHUNK] = {0};
	const uint8_t *secret[DH_CHUNK] = {0}, *point[DH_CHUNK] = {0};
	size_t k, total;

	for (size_t i = 0; i < n; i++)
		consume_begin(dev, &jobs[i]);
	do {
		k = total = 0;
		for (size_t i = 0; i < n; i++) {
			size_t m;

			if (k + WG_DH_PER_JOB > DH_CHUNK) {
				wg_dh_batch(k, out, secret, point);
				k = 0;
			}
			m = consume_ops(&jobs[i].s, out + k, secret + k, point + k);
			k += m;
			total += m;
		}
		wg_dh_batch(k, out, secret, point);
		for (size_t i = 0; total && i < n; i++)
			consume_step(dev, &jobs[i].s);
	} while (total);
}

void wg_handshake_consume(const struct wg_device *dev, struct wg_handshake_job *job)
{
	wg_handshake_consume_batch(dev, job, 1);
}

/* ---- Complete (under the lock) ---- */

static void after_handshake_received(struct wg_device *dev, struct wg_peer *peer, size_t len)
{
	peer->rx_bytes += len;
	wg_timers_any_authenticated_packet_received(dev, peer);
	wg_timers_any_authenticated_packet_traversal(dev, peer);
}

/* The response, returned in the job rather than sent (wg.h). */
static void respond(struct wg_device *dev, struct wg_peer *peer, struct wg_handshake_job *job)
{
	struct wg_message_handshake_response msg;

	peer->last_sent_handshake = dev->now;
	peer->has_sent_handshake = true;
	if (!wg_noise_create_response(dev, peer, &job->s, &msg))
		return;
	wg_obfs_put_header(dev, (uint8_t *)&msg, WG_MESSAGE_HANDSHAKE_RESPONSE);
	wg_cookie_add_macs(dev, peer, (uint8_t *)&msg, sizeof(msg));
	if (!wg_noise_begin_session(dev, peer))
		return;
	dev->stats.handshakes_responded++;
	wg_event_peer_role(dev, WG_EVENT_HANDSHAKE_COMPLETE, peer, false);
	wg_timers_session_derived(dev, peer);
	wg_timers_any_authenticated_packet_traversal(dev, peer);
	wg_timers_any_authenticated_packet_sent(dev, peer);
	if (!peer->has_endpoint)
		return;
	job->out_len =
	    wg_obfs_frame(dev, WG_MESSAGE_HANDSHAKE_RESPONSE, &msg, sizeof(msg), job->out);
	job->to = peer->endpoint;
	job->ds = WG_HANDSHAKE_DS;
	peer->tx_bytes += job->out_len;
}

static int commit_initiation(struct wg_device *dev, struct wg_handshake_job *job)
{
	struct wg_peer *peer = wg_noise_commit_initiation(dev, &job->s);

	if (!peer) {
		/* authentic, from a key we do not know: worth telling (a peer
		 * not configured here, or given the wrong key) */
		if (!wg_pubkey_lookup(dev, job->s.remote_static))
			wg_event_refused(dev, WG_EVENT_UNKNOWN_PEER, &job->s.from,
					 job->s.remote_static);
		return WG_ERR_DROPPED;
	}
	wg_peer_set_endpoint_from(peer, &job->s.from);
	wg_event_peer(dev, WG_EVENT_INITIATION_RECEIVED, peer);
	respond(dev, peer, job);
	after_handshake_received(dev, peer, job->s.len);
	return WG_OK;
}

static int commit_response(struct wg_device *dev, struct wg_handshake_job *job)
{
	struct wg_peer *peer = job->s.peer;

	if (!wg_noise_commit_response(&job->s)) {
		/* our initiation was replaced or answered meanwhile */
		dev->stats.dropped_no_session++;
		return WG_ERR_DROPPED;
	}
	wg_peer_set_endpoint_from(peer, &job->s.from);
	wg_event_peer(dev, WG_EVENT_RESPONSE_RECEIVED, peer);
	if (wg_noise_begin_session(dev, peer)) {
		dev->stats.handshakes_completed++;
		wg_event_peer_role(dev, WG_EVENT_HANDSHAKE_COMPLETE, peer, true);
		wg_event_peer_role(dev, WG_EVENT_KEYPAIR_ROTATED, peer, true);
		wg_timers_session_derived(dev, peer);
		wg_timers_handshake_complete(dev, peer);
		/* Staged packets confirm the session; a keepalive if there are none. */
		wg_send_keepalive(dev, peer);
	}
	after_handshake_received(dev, peer, job->s.len);
	return WG_OK;
}

int wg_device_complete_handshake(struct wg_device *dev, struct wg_handshake_job *job)
{
	struct wg_handshake_job_state *s = &job->s;
	int r = WG_ERR_DROPPED;

	wg_device_clock(dev);
	if (s->own)
		return wg_initiation_complete(dev, job);
	switch (s->stage) {
	case WG_HS_DECIDED:
		r = s->result;
		break;
	case WG_HS_REPLIED:
		/* AmneziaWG framing here, under the lock: consume may not read it */
		wg_obfs_put_header(dev, job->out, WG_MESSAGE_HANDSHAKE_COOKIE);
		job->out_len = wg_obfs_frame(dev, WG_MESSAGE_HANDSHAKE_COOKIE, job->out,
					     job->out_len, job->out);
		dev->stats.cookie_replies_sent++;
		wg_event_refused(dev, WG_EVENT_COOKIE_SENT, &s->from, NULL);
		break;
	case WG_HS_COMMIT:
		/* a job computed with a private key since replaced is refused */
		if (s->id == dev->identity)
			r = s->type == WG_MESSAGE_HANDSHAKE_INITIATION ? commit_initiation(dev, job)
								       : commit_response(dev, job);
		else
			dev->stats.dropped_invalid++;
		if (r != WG_OK)
			dev->stats.packets_invalid++;
		break;
	case WG_HS_BAD_MAC:
		dev->stats.packets_invalid++;
		dev->stats.dropped_bad_mac++;
		wg_event_refused(dev, WG_EVENT_BAD_MAC1, &s->from, NULL);
		break;
	default: /* WG_HS_FAILED; WG_HS_CONSUME and _COOKIE: consume was not called */
		dev->stats.packets_invalid++;
		dev->stats.dropped_invalid++;
		break;
	}
	if (r != WG_OK)
		dev->stats.handshakes_rejected++;
	wg_identity_put(s->id);
	wg_peer_put(s->peer);
	zinc_memzero(s, sizeof(*s));
	return r;
}

int wg_receive_handshake(struct wg_device *dev, const struct wg_endpoint *from, const uint8_t *pkt,
			 size_t len)
{
	struct wg_handshake_job job;
	int r;

	wg_device_prepare_handshake(dev, from, pkt, len, &job);
	wg_handshake_consume(dev, &job);
	r = wg_device_complete_handshake(dev, &job);
	if (job.out_len)
		dev->io.send(dev->io.ctx, &job.to, job.out, job.out_len, job.ds);
	return r;
}
