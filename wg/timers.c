/* Timers and limits (doc/engine.md; the WireGuard paper, section 6),
 * mirroring the Linux module's rules as deadlines from an explicit now. */
#include "device.h"
#include "peer.h"
#include "timerheap.h"
#include "timers.h"

static void heap_update(struct wg_device *dev, struct wg_peer *p)
{
	uint64_t d = WG_TIMER_OFF;

	for (int t = 0; t < WG_TIMER_COUNT; t++)
		if (p->timer[t] < d)
			d = p->timer[t];
	p->deadline = d;
	/* Out of memory: the timer is lost, as a failed mod_timer would be. */
	if (!wg_timerheap_update(&dev->timerheap, p))
		p->timer[0] = p->timer[1] = p->timer[2] = p->timer[3] = p->timer[4] = p->deadline =
		    WG_TIMER_OFF;
}

void wg_timer_set(struct wg_device *dev, struct wg_peer *p, enum wg_timer t, uint64_t at)
{
	p->timer[t] = at;
	heap_update(dev, p);
}

void wg_timer_del(struct wg_device *dev, struct wg_peer *p, enum wg_timer t)
{
	if (p->timer[t] == WG_TIMER_OFF)
		return;
	p->timer[t] = WG_TIMER_OFF;
	heap_update(dev, p);
}

bool wg_timer_pending(const struct wg_peer *peer, enum wg_timer t)
{
	return peer->timer[t] != WG_TIMER_OFF;
}

void wg_timers_init(struct wg_peer *peer)
{
	for (int t = 0; t < WG_TIMER_COUNT; t++)
		peer->timer[t] = WG_TIMER_OFF;
	peer->deadline = WG_TIMER_OFF;
	peer->heap_pos = WG_HEAP_NONE;
}

void wg_timers_stop(struct wg_device *dev, struct wg_peer *peer)
{
	for (int t = 0; t < WG_TIMER_COUNT; t++)
		peer->timer[t] = WG_TIMER_OFF;
	heap_update(dev, peer);
}

/* 0..333 ms, so that peers retrying at once drift apart. The random words
 * come WG_JITTER_POOL at a time: request/response traffic re-arms the
 * new-handshake timer after every exchange, and drawing each one alone
 * cost a getrandom call per packet sent. */
static uint64_t jitter(struct wg_device *dev)
{
	uint32_t r;

	if (!dev->jitter_left) {
		if (!wg_device_random(dev, dev->jitter_pool, sizeof(dev->jitter_pool)))
			return 0;
		dev->jitter_left = WG_JITTER_POOL;
	}
	r = dev->jitter_pool[--dev->jitter_left];
	return (uint64_t)(r % (WG_REKEY_TIMEOUT_JITTER_MAX / WG_NS_PER_MS + 1)) * WG_NS_PER_MS;
}

/* ---- Events ---- */

void wg_timers_data_sent(struct wg_device *dev, struct wg_peer *peer)
{
	if (!wg_timer_pending(peer, WG_TIMER_NEW_HANDSHAKE))
		wg_timer_set(dev, peer, WG_TIMER_NEW_HANDSHAKE,
			     dev->now + WG_KEEPALIVE_TIMEOUT + WG_REKEY_TIMEOUT + jitter(dev));
}

void wg_timers_data_received(struct wg_device *dev, struct wg_peer *peer)
{
	if (!wg_timer_pending(peer, WG_TIMER_SEND_KEEPALIVE))
		wg_timer_set(dev, peer, WG_TIMER_SEND_KEEPALIVE, dev->now + WG_KEEPALIVE_TIMEOUT);
	else
		peer->need_another_keepalive = true;
}

void wg_timers_any_authenticated_packet_sent(struct wg_device *dev, struct wg_peer *peer)
{
	wg_timer_del(dev, peer, WG_TIMER_SEND_KEEPALIVE);
}

void wg_timers_any_authenticated_packet_received(struct wg_device *dev, struct wg_peer *peer)
{
	wg_timer_del(dev, peer, WG_TIMER_NEW_HANDSHAKE);
}

void wg_timers_any_authenticated_packet_traversal(struct wg_device *dev, struct wg_peer *peer)
{
	if (peer->persistent_keepalive)
		wg_timer_set(dev, peer, WG_TIMER_PERSISTENT_KEEPALIVE,
			     dev->now + (uint64_t)peer->persistent_keepalive * WG_NS_PER_SEC);
}

void wg_timers_handshake_initiated(struct wg_device *dev, struct wg_peer *peer)
{
	wg_timer_set(dev, peer, WG_TIMER_RETRANSMIT_HANDSHAKE,
		     dev->now + WG_REKEY_TIMEOUT + jitter(dev));
}

void wg_timers_handshake_complete(struct wg_device *dev, struct wg_peer *peer)
{
	wg_timer_del(dev, peer, WG_TIMER_RETRANSMIT_HANDSHAKE);
	peer->handshake_attempts = 0;
	peer->sent_lastminute_handshake = false;
	peer->cookie.have_sent_mac1 = false;
	peer->last_handshake_wall_ns = wg_device_wall_ns(dev);
}

void wg_timers_session_derived(struct wg_device *dev, struct wg_peer *peer)
{
	wg_timer_set(dev, peer, WG_TIMER_ZERO_KEY_MATERIAL, dev->now + 3 * WG_REJECT_AFTER_TIME);
}

void wg_timers_persistent_keepalive_changed(struct wg_device *dev, struct wg_peer *peer)
{
	if (!peer->persistent_keepalive)
		wg_timer_del(dev, peer, WG_TIMER_PERSISTENT_KEEPALIVE);
}

/* ---- Decisions ---- */

bool wg_timers_rekey_on_send(const struct wg_keypair *kp, uint64_t now)
{
	return kp && kp->sending_valid &&
	       (kp->send_counter > WG_REKEY_AFTER_MESSAGES ||
		(kp->initiator && now - kp->birth_ns >= WG_REKEY_AFTER_TIME));
}

bool wg_timers_rekey_on_receive(const struct wg_keypair *kp, uint64_t now)
{
	return kp && kp->sending_valid && kp->initiator &&
	       now - kp->birth_ns >= WG_REJECT_AFTER_TIME - WG_KEEPALIVE_TIMEOUT - WG_REKEY_TIMEOUT;
}

bool wg_timers_may_initiate(const struct wg_peer *peer, uint64_t now)
{
	return !peer->has_sent_handshake || now - peer->last_sent_handshake >= WG_REKEY_TIMEOUT;
}

uint64_t wg_timers_next_deadline(const struct wg_device *dev)
{
	const struct wg_peer *top = wg_timerheap_top(&dev->timerheap);

	return top ? top->deadline : WG_TIMER_OFF;
}
