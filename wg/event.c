/* Events to the caller: one struct filled from the peer, one callback. */
#include "event.h"

#include "device.h"
#include "peer.h"

static void emit(struct wg_device *dev, const struct wg_event *ev)
{
	if (dev->io.event)
		dev->io.event(dev->io.ctx, ev);
}

static void peer_event(struct wg_device *dev, struct wg_event *ev, struct wg_peer *peer)
{
	ev->peer = peer;
	ev->public_key = peer->public_key;
	ev->endpoint = peer->has_endpoint ? &peer->endpoint : NULL;
	emit(dev, ev);
}

void wg_event_peer(struct wg_device *dev, enum wg_event_kind kind, struct wg_peer *peer)
{
	struct wg_event ev = {.kind = kind};

	peer_event(dev, &ev, peer);
}

void wg_event_peer_attempt(struct wg_device *dev, enum wg_event_kind kind, struct wg_peer *peer,
			   uint32_t attempt)
{
	struct wg_event ev = {.kind = kind, .attempt = attempt};

	peer_event(dev, &ev, peer);
}

void wg_event_peer_role(struct wg_device *dev, enum wg_event_kind kind, struct wg_peer *peer,
			bool initiator)
{
	uint64_t last = peer->last_handshake_wall_ns;
	struct wg_event ev = {.kind = kind,
			      .initiator = initiator,
			      .fresh =
				  !last || wg_device_wall_ns(dev) - last > WG_REJECT_AFTER_TIME};

	peer_event(dev, &ev, peer);
}

void wg_event_refused(struct wg_device *dev, enum wg_event_kind kind,
		      const struct wg_endpoint *from, const uint8_t *public_key)
{
	struct wg_event ev = {.kind = kind, .endpoint = from, .public_key = public_key};

	emit(dev, &ev);
}
