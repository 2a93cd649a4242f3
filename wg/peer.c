/* Peers: lifetime, configuration API, endpoint. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zinc/memzero.h>

#include "bytes.h"
#include "device.h"
#include "event.h"
#include "peer.h"
#include "send.h"

struct wg_peer *wg_peer_create(struct wg_device *dev, const uint8_t pub[WG_PUBLIC_KEY_LEN])
{
	struct wg_peer *peer = calloc(1, sizeof(*peer));

	if (!peer)
		return NULL;
	peer->dev = dev;
	peer->refcount = 1;
	memcpy(peer->public_key, pub, WG_PUBLIC_KEY_LEN);
	wg_noise_handshake_init(peer);
	wg_cookie_maker_init(&peer->cookie);
	wg_timers_init(peer);
	return peer;
}

void wg_peer_kill(struct wg_device *dev, struct wg_peer *peer)
{
	peer->dead = true;
	wg_timers_stop(dev, peer);
	wg_staged_purge(peer);
	wg_allowedips_remove_by_owner(dev->allowedips, &peer->aips);
	wg_noise_handshake_clear(dev, peer);
	wg_noise_keypairs_clear(dev, peer);
	zinc_memzero(peer->preshared_key, WG_SYMMETRIC_KEY_LEN);
	wg_cookie_maker_wipe(&peer->cookie);
	wg_peer_put(peer);
}

/* ---- Endpoint ---- */

static bool endpoint_valid(const struct wg_endpoint *ep)
{
	return ep && (ep->addr.sa.sa_family == AF_INET || ep->addr.sa.sa_family == AF_INET6);
}

/* Same address and port (the sticky source may differ). */
static bool same_address(const struct wg_endpoint *a, const struct wg_endpoint *b)
{
	if (a->addr.sa.sa_family != b->addr.sa.sa_family)
		return false;
	if (a->addr.sa.sa_family == AF_INET)
		return a->addr.in4.sin_port == b->addr.in4.sin_port &&
		       a->addr.in4.sin_addr.s_addr == b->addr.in4.sin_addr.s_addr;
	return a->addr.in6.sin6_port == b->addr.in6.sin6_port &&
	       a->addr.in6.sin6_scope_id == b->addr.in6.sin6_scope_id &&
	       !memcmp(&a->addr.in6.sin6_addr, &b->addr.in6.sin6_addr, sizeof(struct in6_addr));
}

void wg_peer_set_endpoint_from(struct wg_peer *peer, const struct wg_endpoint *from)
{
	bool moved;

	if (!endpoint_valid(from))
		return;
	moved = !peer->has_endpoint || !same_address(&peer->endpoint, from);
	if (moved)
		peer->dev->stats.endpoint_changes++;
	peer->endpoint = *from;
	peer->has_endpoint = true;
	if (moved)
		wg_event_peer(peer->dev, WG_EVENT_ENDPOINT_CHANGED, peer);
}

/* ---- Public configuration API ---- */

void wg_peer_set_preshared_key(struct wg_peer *peer, const uint8_t psk[WG_SYMMETRIC_KEY_LEN])
{
	if (!psk || wg_is_zero(psk, WG_SYMMETRIC_KEY_LEN)) {
		zinc_memzero(peer->preshared_key, WG_SYMMETRIC_KEY_LEN);
		peer->has_preshared_key = false;
		return;
	}
	memcpy(peer->preshared_key, psk, WG_SYMMETRIC_KEY_LEN);
	peer->has_preshared_key = true;
}

void wg_peer_set_endpoint(struct wg_peer *peer, const struct wg_endpoint *ep)
{
	if (!endpoint_valid(ep)) {
		memset(&peer->endpoint, 0, sizeof(peer->endpoint));
		peer->has_endpoint = false;
		return;
	}
	peer->endpoint = *ep;
	peer->has_endpoint = true;
}

void wg_peer_set_persistent_keepalive(struct wg_peer *peer, uint16_t seconds)
{
	struct wg_device *dev = peer->dev;
	bool was_off = peer->persistent_keepalive == 0;

	wg_device_clock(dev);
	peer->persistent_keepalive = seconds;
	wg_timers_persistent_keepalive_changed(dev, peer);
	if (seconds && was_off && peer->has_endpoint && dev->has_identity)
		wg_send_keepalive(dev, peer);
}

int wg_peer_allowed_ip_add(struct wg_peer *peer, int family, const void *addr, uint8_t cidr)
{
	int r = wg_allowedips_insert(peer->dev->allowedips, family, addr, cidr, &peer->aips);

	if (r == 0)
		return WG_OK;
	return r == -ENOMEM ? WG_ERR_NOMEM : WG_ERR_INVALID;
}

int wg_peer_allowed_ip_remove(struct wg_peer *peer, int family, const void *addr, uint8_t cidr)
{
	return wg_allowedips_remove(peer->dev->allowedips, family, addr, cidr, &peer->aips)
		   ? WG_ERR_INVALID
		   : WG_OK;
}

void wg_peer_allowed_ips_clear(struct wg_peer *peer)
{
	wg_allowedips_remove_by_owner(peer->dev->allowedips, &peer->aips);
}

void wg_peer_allowed_ips_foreach(struct wg_peer *peer,
				 bool (*fn)(void *ctx, int family, const void *addr, uint8_t cidr),
				 void *ctx)
{
	wg_allowedips_foreach(&peer->aips, fn, ctx);
}

void wg_peer_get_info(const struct wg_peer *peer, struct wg_peer_info *info)
{
	memset(info, 0, sizeof(*info));
	memcpy(info->public_key, peer->public_key, WG_PUBLIC_KEY_LEN);
	info->has_preshared_key = peer->has_preshared_key;
	if (peer->has_preshared_key)
		memcpy(info->preshared_key, peer->preshared_key, WG_SYMMETRIC_KEY_LEN);
	info->has_endpoint = peer->has_endpoint;
	if (peer->has_endpoint)
		info->endpoint = peer->endpoint;
	info->last_handshake_wall_ns = peer->last_handshake_wall_ns;
	info->rx_bytes = peer->rx_bytes;
	info->tx_bytes = peer->tx_bytes;
	info->persistent_keepalive = peer->persistent_keepalive;
}
