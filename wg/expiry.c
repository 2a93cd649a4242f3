/* What a peer does when one of its timers expires (timers.c keeps the
 * deadlines): retransmit or give up a handshake, send keepalives, start a
 * new handshake, erase keys. */
#include <string.h>

#include "event.h"
#include "send.h"
#include "timerheap.h"
#include "timers.h"

static void clear_endpoint_src(struct wg_peer *peer)
{
	memset(&peer->endpoint.src6, 0, sizeof(peer->endpoint.src6));
	peer->endpoint.src_ifindex = 0;
}

static void expired_retransmit_handshake(struct wg_device *dev, struct wg_peer *peer)
{
	if (dev->now - peer->first_handshake_attempt >= WG_REKEY_ATTEMPT_TIME) {
		/* Give up: drop what waited for this handshake; erase keys later. */
		dev->stats.handshakes_timed_out++;
		wg_timer_del(dev, peer, WG_TIMER_SEND_KEEPALIVE);
		wg_staged_purge(peer);
		if (!wg_timer_pending(peer, WG_TIMER_ZERO_KEY_MATERIAL))
			wg_timer_set(dev, peer, WG_TIMER_ZERO_KEY_MATERIAL,
				     dev->now + 3 * WG_REJECT_AFTER_TIME);
		wg_event_peer(dev, WG_EVENT_HANDSHAKE_GIVEUP, peer);
		return;
	}
	peer->handshake_attempts++;
	wg_event_peer_attempt(dev, WG_EVENT_HANDSHAKE_RETRY, peer, peer->handshake_attempts);
	/* The local source may be why no answer came: let routing pick again. */
	clear_endpoint_src(peer);
	wg_send_handshake_initiation(dev, peer, true);
}

static void expired_send_keepalive(struct wg_device *dev, struct wg_peer *peer)
{
	wg_send_keepalive(dev, peer);
	if (peer->need_another_keepalive) {
		peer->need_another_keepalive = false;
		wg_timer_set(dev, peer, WG_TIMER_SEND_KEEPALIVE, dev->now + WG_KEEPALIVE_TIMEOUT);
	}
}

static void expired_new_handshake(struct wg_device *dev, struct wg_peer *peer)
{
	clear_endpoint_src(peer);
	wg_send_handshake_initiation(dev, peer, false);
}

static void expired_zero_key_material(struct wg_device *dev, struct wg_peer *peer)
{
	wg_noise_handshake_clear(dev, peer);
	wg_noise_keypairs_clear(dev, peer);
}

static void expired_persistent_keepalive(struct wg_device *dev, struct wg_peer *peer)
{
	if (peer->persistent_keepalive)
		wg_send_keepalive(dev, peer);
}

static void (*const expiry[WG_TIMER_COUNT])(struct wg_device *, struct wg_peer *) = {
    [WG_TIMER_RETRANSMIT_HANDSHAKE] = expired_retransmit_handshake,
    [WG_TIMER_SEND_KEEPALIVE] = expired_send_keepalive,
    [WG_TIMER_NEW_HANDSHAKE] = expired_new_handshake,
    [WG_TIMER_ZERO_KEY_MATERIAL] = expired_zero_key_material,
    [WG_TIMER_PERSISTENT_KEEPALIVE] = expired_persistent_keepalive,
};

void wg_expiry_run(struct wg_device *dev)
{
	struct wg_peer *peer;

	while ((peer = wg_timerheap_top(&dev->timerheap)) && peer->deadline <= dev->now) {
		for (int t = 0; t < WG_TIMER_COUNT; t++) {
			if (peer->timer[t] > dev->now)
				continue;
			wg_timer_del(dev, peer, (enum wg_timer)t);
			expiry[t](dev, peer);
		}
	}
}
