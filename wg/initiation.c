/* Our handshake initiations (rekey, retry, staged packets, keepalives, a
 * cookie reply's early retry) as jobs of the split handshake path, so that
 * a caller can do their X25519 work off its lock (doc/engine.md). */
#include <stddef.h>
#include <string.h>

#include <zinc/curve25519.h>
#include <zinc/memzero.h>

#include "cookie.h"
#include "dhbatch.h"
#include "event.h"
#include "identity.h"
#include "initiation.h"
#include "noise.h"
#include "rngwait.h"
#include "timers.h"

/* What is left of a job of ours (job->s.stage). */
enum { INIT_FAILED, INIT_DH, INIT_READY };

static bool initiation_allowed(struct wg_device *dev, struct wg_peer *peer, bool early)
{
	/* None without identity or address; none from a weak RNG, but then
	 * one as soon as it is seeded. */
	if (peer->dead || !dev->identity || !peer->has_endpoint)
		return false;
	if (!wg_device_rng_ready(dev)) {
		wg_rng_wait_for_initiation(dev, peer);
		return false;
	}
	return early || wg_timers_may_initiate(peer, dev->now);
}

/* Under the lock: the timestamp and our ephemeral (its public key is left
 * to consume, computed once), references on the peer and identity. */
static bool prepare_one(struct wg_device *dev, struct wg_peer *peer, struct wg_handshake_job *job)
{
	struct wg_handshake_job_state *s = &job->s;

	memset(job, 0, sizeof(*job));
	if (!initiation_allowed(dev, peer, peer->init_early))
		return false;
	wg_noise_tai64n(s->timestamp, wg_device_wall_ns(dev));
	if (!wg_device_random(dev, s->e_priv, WG_PUBLIC_KEY_LEN))
		return false;
	zinc_curve25519_clamp_secret(s->e_priv);
	s->own = true;
	s->type = WG_MESSAGE_HANDSHAKE_INITIATION;
	s->stage = INIT_DH;
	s->len = sizeof(struct wg_message_handshake_initiation);
	s->msg[0] = WG_MESSAGE_HANDSHAKE_INITIATION;
	memcpy(s->remote_static, peer->public_key, WG_PUBLIC_KEY_LEN);
	s->peer = peer;
	wg_peer_get(peer);
	s->id = dev->identity;
	wg_identity_get(s->id);
	return true;
}

size_t wg_initiation_dh_ops(struct wg_handshake_job_state *s, uint8_t **out, const uint8_t **secret,
			    const uint8_t **point)
{
	if (s->stage != INIT_DH)
		return 0;
	/* e's public key, DH(e, rs), DH(s, rs) */
	out[0] = s->dh[0], secret[0] = s->e_priv, point[0] = wg_dh_basepoint;
	out[1] = s->dh[1], secret[1] = s->e_priv, point[1] = s->remote_static;
	out[2] = s->dh[2], secret[2] = s->id->static_private, point[2] = s->remote_static;
	return 3;
}

void wg_initiation_dh_done(struct wg_handshake_job_state *s)
{
	const size_t eph = offsetof(struct wg_message_handshake_initiation, unencrypted_ephemeral);
	bool ok;

	if (s->stage != INIT_DH)
		return;
	wg_noise_core_init(&s->core, (const uint8_t *)WG_IDENTIFIER, sizeof(WG_IDENTIFIER) - 1,
			   s->remote_static);
	/* a zero DH(s, rs) fails here, as Linux's zero precomputation does */
	ok = wg_noise_core_write_msg1_dh(&s->core, s->msg + eph, s->dh[0], s->dh[1],
					 s->id->static_public, s->dh[2], s->timestamp,
					 WG_TIMESTAMP_LEN);
	zinc_memzero(s->dh, sizeof(s->dh));
	s->stage = ok ? INIT_READY : INIT_FAILED;
}

/* The message is ours to send: macs, timers, counters, event. */
static void initiation_sent(struct wg_device *dev, struct wg_peer *peer,
			    struct wg_message_handshake_initiation *msg)
{
	/* Each regular attempt may be followed by one early retry. */
	peer->sent_cookie_retry = peer->init_early;
	dev->stats.handshake_initiations_sent++;
	wg_obfs_put_header(dev, (uint8_t *)msg, WG_MESSAGE_HANDSHAKE_INITIATION);
	wg_cookie_add_macs(dev, peer, (uint8_t *)msg, sizeof(*msg));
	wg_timers_any_authenticated_packet_traversal(dev, peer);
	wg_timers_any_authenticated_packet_sent(dev, peer);
	peer->last_sent_handshake = dev->now;
	peer->has_sent_handshake = true;
	wg_timers_handshake_initiated(dev, peer);
	wg_event_peer_attempt(dev, WG_EVENT_INITIATION_SENT, peer, peer->handshake_attempts);
}

int wg_initiation_complete(struct wg_device *dev, struct wg_handshake_job *job)
{
	struct wg_handshake_job_state *s = &job->s;
	struct wg_peer *peer = s->peer;
	struct wg_message_handshake_initiation msg;
	bool ok = s->stage == INIT_READY && s->id == dev->identity && !peer->dead &&
		  peer->has_endpoint && wg_noise_commit_own_initiation(dev, peer, s, &msg);

	peer->init_queued = false;
	job->out_len = 0;
	if (ok) {
		initiation_sent(dev, peer, &msg);
		wg_obfs_send_junk(dev, peer); /* AmneziaWG: ahead of the initiation */
		job->out_len = wg_obfs_frame(dev, WG_MESSAGE_HANDSHAKE_INITIATION, &msg,
					     sizeof(msg), job->out);
		peer->tx_bytes += job->out_len;
		job->to = peer->endpoint;
		job->ds = WG_HANDSHAKE_DS;
	}
	wg_identity_put(s->id);
	wg_peer_put(peer);
	zinc_memzero(s, sizeof(*s));
	return ok ? WG_OK : WG_ERR_DROPPED;
}

/* Without io.initiations_pending: the three steps now, under the caller's
 * lock, as an embedder without threads wants. */
static void initiate_now(struct wg_device *dev, struct wg_peer *peer)
{
	struct wg_handshake_job job;
	uint8_t *out[WG_DH_PER_JOB] = {0};
	const uint8_t *secret[WG_DH_PER_JOB] = {0}, *point[WG_DH_PER_JOB] = {0};

	if (!prepare_one(dev, peer, &job))
		return;
	wg_dh_batch(wg_initiation_dh_ops(&job.s, out, secret, point), out, secret, point);
	wg_initiation_dh_done(&job.s);
	if (wg_initiation_complete(dev, &job) == WG_OK)
		dev->io.send(dev->io.ctx, &job.to, job.out, job.out_len, job.ds);
	zinc_memzero(&job, sizeof(job));
}

void wg_initiation_request(struct wg_device *dev, struct wg_peer *peer, bool early)
{
	bool was_empty = !dev->init_first;

	if (!dev->io.initiations_pending) {
		peer->init_early = early;
		initiate_now(dev, peer);
		return;
	}
	if (peer->init_queued || !initiation_allowed(dev, peer, early))
		return;
	peer->init_queued = true;
	peer->init_early = early;
	peer->init_next = NULL;
	wg_peer_get(peer);
	if (dev->init_last)
		dev->init_last->init_next = peer;
	else
		dev->init_first = peer;
	dev->init_last = peer;
	if (was_empty)
		dev->io.initiations_pending(dev->io.ctx);
}

static struct wg_peer *queue_pop(struct wg_device *dev)
{
	struct wg_peer *peer = dev->init_first;

	if (!peer)
		return NULL;
	dev->init_first = peer->init_next;
	if (!dev->init_first)
		dev->init_last = NULL;
	peer->init_next = NULL;
	return peer;
}

size_t wg_device_prepare_initiations(struct wg_device *dev, struct wg_handshake_job *jobs,
				     size_t max)
{
	struct wg_peer *peer;
	size_t n = 0;

	wg_device_clock(dev);
	while (n < max && (peer = queue_pop(dev))) {
		if (prepare_one(dev, peer, &jobs[n]))
			n++;
		else
			peer->init_queued = false;
		wg_peer_put(peer); /* the queue's; a prepared job holds its own */
	}
	return n;
}

void wg_initiation_queue_clear(struct wg_device *dev)
{
	struct wg_peer *peer;

	while ((peer = queue_pop(dev))) {
		peer->init_queued = false;
		wg_peer_put(peer);
	}
}
