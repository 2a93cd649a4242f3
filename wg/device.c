/* The device: identity, peer table, environment, load state, tick. */
#include <stdlib.h>
#include <string.h>

#include <zinc/curve25519.h>
#include <zinc/memzero.h>

#include "bytes.h"
#include "device.h"
#include "event.h"
#include "initiation.h"
#include "peer.h"
#include "rngwait.h"
#include "timers.h"

/* ---- Lifetime ---- */

struct wg_device *wg_device_new(const struct wg_env *env, const struct wg_io *io)
{
	struct wg_device *dev;
	uint8_t rl_key[WG_SIPHASH_KEY_LEN];
	bool weak_keys = false;

	if (!env || !env->now_ns || !env->wall_ns || !io || !io->send)
		return NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->env = *env;
	dev->io = *io;
	dev->mtu = WG_DEFAULT_MTU;
	wg_obfs_init(&dev->obfs);
	dev->rng_poll_at = WG_TIMER_OFF;
	/* Without randomness yet the hash keys stay zero until the RNG is
	 * seeded: still correct, only weaker against collision flooding. */
	if (!wg_device_random(dev, dev->peer_hash_key, sizeof(dev->peer_hash_key)) ||
	    !wg_device_random(dev, rl_key, sizeof(rl_key))) {
		memset(dev->peer_hash_key, 0, sizeof(dev->peer_hash_key));
		memset(rl_key, 0, sizeof(rl_key));
		weak_keys = true;
	}
	dev->ratelimiter = wg_ratelimiter_new(rl_key);
	dev->allowedips = wg_allowedips_new();
	dev->scratch = malloc(WG_SCRATCH_SIZE);
	if (!dev->ratelimiter || !dev->allowedips || !dev->scratch || wg_pubkey_init(dev) ||
	    wg_index_init(&dev->index)) {
		wg_device_free(dev);
		return NULL;
	}
	wg_device_clock(dev);
	if (weak_keys)
		wg_rng_wait_for_keys(dev);
	return dev;
}

void wg_device_free(struct wg_device *dev)
{
	if (!dev)
		return;
	dev->io.event = NULL; /* tearing down is not news; the caller's ctx may be gone */
	if (dev->peer_buckets)
		wg_device_peers_clear(dev);
	wg_initiation_queue_clear(dev);
	wg_ratelimiter_free(dev->ratelimiter);
	wg_allowedips_free(dev->allowedips);
	wg_index_destroy(&dev->index);
	wg_identity_put(dev->identity);
	free(dev->peer_buckets);
	wg_timerheap_free(&dev->timerheap);
	if (dev->scratch) {
		zinc_memzero(dev->scratch, WG_SCRATCH_SIZE);
		free(dev->scratch);
	}
	zinc_memzero(dev, sizeof(*dev));
	free(dev);
}

/* ---- Peer table ---- */

struct wg_peer *wg_device_peer_lookup(struct wg_device *dev, const uint8_t pub[WG_PUBLIC_KEY_LEN])
{
	return wg_pubkey_lookup(dev, pub);
}

struct wg_peer *wg_device_peer_add(struct wg_device *dev, const uint8_t pub[WG_PUBLIC_KEY_LEN])
{
	struct wg_peer *peer = wg_pubkey_lookup(dev, pub);

	if (peer)
		return peer;
	if (dev->peer_count >= WG_MAX_PEERS)
		return NULL;
	if (dev->has_identity && !memcmp(pub, dev->static_public, WG_PUBLIC_KEY_LEN))
		return NULL;
	peer = wg_peer_create(dev, pub);
	if (!peer)
		return NULL;
	wg_pubkey_insert(dev, peer);
	peer->list_prev = dev->peer_last;
	if (dev->peer_last)
		dev->peer_last->list_next = peer;
	else
		dev->peer_first = peer;
	dev->peer_last = peer;
	dev->peer_count++;
	wg_event_peer(dev, WG_EVENT_PEER_ADDED, peer);
	return peer;
}

void wg_device_peer_remove(struct wg_device *dev, struct wg_peer *peer)
{
	wg_pubkey_remove(dev, peer);
	if (peer->list_prev)
		peer->list_prev->list_next = peer->list_next;
	else
		dev->peer_first = peer->list_next;
	if (peer->list_next)
		peer->list_next->list_prev = peer->list_prev;
	else
		dev->peer_last = peer->list_prev;
	peer->list_prev = peer->list_next = NULL;
	dev->peer_count--;
	wg_event_peer(dev, WG_EVENT_PEER_REMOVED, peer);
	wg_peer_kill(dev, peer);
}

void wg_device_peers_clear(struct wg_device *dev)
{
	while (dev->peer_first)
		wg_device_peer_remove(dev, dev->peer_first);
}

size_t wg_device_peer_count(const struct wg_device *dev)
{
	return dev->peer_count;
}

struct wg_peer *wg_device_peer_next(struct wg_device *dev, struct wg_peer *prev)
{
	return prev ? prev->list_next : dev->peer_first;
}

/* ---- Identity ---- */

/* Makes dev->identity a snapshot of the current static key. */
static void identity_renew(struct wg_device *dev)
{
	wg_identity_put(dev->identity);
	/* Out of memory: handshakes are refused until the key is set again. */
	dev->identity = dev->has_identity ? wg_identity_new(dev->static_private, dev->static_public,
							    &dev->cookie_checker)
					  : NULL;
}

void wg_device_set_private_key(struct wg_device *dev, const uint8_t key[WG_PUBLIC_KEY_LEN])
{
	uint8_t priv[WG_PUBLIC_KEY_LEN], pub[WG_PUBLIC_KEY_LEN];
	struct wg_peer *peer, *next;

	wg_device_clock(dev);
	if (!key || wg_is_zero(key, WG_PUBLIC_KEY_LEN)) {
		dev->has_identity = false;
		zinc_memzero(dev->static_private, WG_PUBLIC_KEY_LEN);
		zinc_memzero(dev->static_public, WG_PUBLIC_KEY_LEN);
		zinc_memzero(pub, WG_PUBLIC_KEY_LEN);
	} else {
		memcpy(priv, key, WG_PUBLIC_KEY_LEN);
		zinc_curve25519_clamp_secret(priv);
		if (dev->has_identity && zinc_memeq(priv, dev->static_private, WG_PUBLIC_KEY_LEN)) {
			zinc_memzero(priv, sizeof(priv));
			return;
		}
		if (!zinc_curve25519_generate_public(pub, priv))
			memset(pub, 0, WG_PUBLIC_KEY_LEN);
		/* A peer with our own public key cannot exist (Linux does the same). */
		peer = wg_pubkey_lookup(dev, pub);
		if (peer)
			wg_device_peer_remove(dev, peer);
		memcpy(dev->static_private, priv, WG_PUBLIC_KEY_LEN);
		memcpy(dev->static_public, pub, WG_PUBLIC_KEY_LEN);
		dev->has_identity = true;
		zinc_memzero(priv, sizeof(priv));
	}
	wg_cookie_checker_precompute(&dev->cookie_checker, dev->static_public);
	identity_renew(dev);
	for (peer = dev->peer_first; peer; peer = next) {
		next = peer->list_next;
		wg_noise_expire_current_keypairs(dev, peer);
	}
}

bool wg_device_get_private_key(const struct wg_device *dev, uint8_t key[WG_PUBLIC_KEY_LEN])
{
	if (!dev->has_identity)
		return false;
	memcpy(key, dev->static_private, WG_PUBLIC_KEY_LEN);
	return true;
}

bool wg_device_get_public_key(const struct wg_device *dev, uint8_t pub[WG_PUBLIC_KEY_LEN])
{
	if (!dev->has_identity)
		return false;
	memcpy(pub, dev->static_public, WG_PUBLIC_KEY_LEN);
	return true;
}

void wg_device_set_mtu(struct wg_device *dev, uint32_t mtu)
{
	dev->mtu = mtu > WG_MAX_PACKET ? WG_MAX_PACKET : mtu;
}

/* ---- Load, stats, tick ---- */

void wg_device_set_handshake_queue_len(struct wg_device *dev, size_t len)
{
	if (len < WG_UNDER_LOAD_QUEUE_LEN)
		return;
	wg_device_clock(dev);
	dev->load_seen = true;
	dev->last_under_load = dev->now;
}

bool wg_device_under_load(struct wg_device *dev)
{
	return dev->load_seen && dev->now - dev->last_under_load < WG_UNDER_LOAD_AFTER_TIME;
}

void wg_device_get_stats(const struct wg_device *dev, struct wg_device_stats *stats)
{
	*stats = dev->stats;
}

uint64_t wg_device_tick(struct wg_device *dev)
{
	uint64_t next;

	wg_device_clock(dev);
	wg_rng_run(dev);
	if (dev->now >= dev->ratelimiter_gc_at) {
		wg_ratelimiter_gc(dev->ratelimiter, dev->now);
		dev->ratelimiter_gc_at = dev->now + WG_NS_PER_SEC;
	}
	wg_expiry_run(dev);
	next = wg_device_next_deadline(dev);
	if (wg_ratelimiter_count(dev->ratelimiter) && dev->ratelimiter_gc_at < next)
		next = dev->ratelimiter_gc_at;
	return next == WG_TIMER_OFF ? UINT64_MAX : next - dev->now;
}

uint64_t wg_device_next_deadline(const struct wg_device *dev)
{
	uint64_t timers = wg_timers_next_deadline(dev), rng = dev->rng_poll_at;

	return rng < timers ? rng : timers;
}
