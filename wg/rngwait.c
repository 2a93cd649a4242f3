/* Waiting for the system RNG: remembers who needs it, polls it from the
 * tick only while someone does, and catches up once it is seeded. */
#include <string.h>

#include <zinc/memzero.h>

#include "rngwait.h"
#include "send.h"

/* New SipHash keys for the peer table and the rate limiter, and everything
 * keyed by them rehashed; false (keys unchanged) if the RNG fails. */
static bool redraw_hash_keys(struct wg_device *dev)
{
	uint8_t peer_key[WG_SIPHASH_KEY_LEN], rl_key[WG_SIPHASH_KEY_LEN];

	if (!wg_device_random(dev, peer_key, sizeof(peer_key)) ||
	    !wg_device_random(dev, rl_key, sizeof(rl_key)))
		return false;
	memcpy(dev->peer_hash_key, peer_key, sizeof(peer_key));
	wg_pubkey_rehash(dev);
	wg_ratelimiter_rekey(dev->ratelimiter, rl_key);
	zinc_memzero(peer_key, sizeof(peer_key));
	zinc_memzero(rl_key, sizeof(rl_key));
	return true;
}

/* Every peer that was refused an initiation sends one now, as a first
 * attempt: the give-up clock (REKEY_ATTEMPT_TIME) starts here. */
static void initiate_waiting_peers(struct wg_device *dev)
{
	for (struct wg_peer *p = dev->peer_first; p; p = p->list_next) {
		if (!p->rng_wants_initiation)
			continue;
		p->rng_wants_initiation = false;
		wg_send_handshake_initiation(dev, p, false);
	}
}

void wg_rng_run(struct wg_device *dev)
{
	if (dev->rng_poll_at == WG_TIMER_OFF || dev->now < dev->rng_poll_at)
		return;
	dev->rng_poll_at = WG_TIMER_OFF;
	if (!wg_device_rng_ready(dev)) {
		wg_rng_start_polling(dev);
		return;
	}
	if (dev->rng_weak_keys) {
		dev->rng_weak_keys = false;
		if (!redraw_hash_keys(dev))
			wg_rng_wait_for_keys(dev);
	}
	/* A refusal in here (the RNG flapping, a test seam) polls again. */
	initiate_waiting_peers(dev);
}
