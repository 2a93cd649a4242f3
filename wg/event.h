/* Reporting events to the caller (wg_io.event, wg.h). Internal. */
#ifndef WG_EVENT_H
#define WG_EVENT_H

#include "wg/wg.h"

struct wg_device;

/* A peer's event: its public key and endpoint (if any) filled in. */
void wg_event_peer(struct wg_device *dev, enum wg_event_kind kind, struct wg_peer *peer);
/* The same with an attempt number or role. */
void wg_event_peer_attempt(struct wg_device *dev, enum wg_event_kind kind, struct wg_peer *peer,
			   uint32_t attempt);
void wg_event_peer_role(struct wg_device *dev, enum wg_event_kind kind, struct wg_peer *peer,
			bool initiator);
/* A refused message from `from`; public_key: UNKNOWN_PEER's sender, else NULL. */
void wg_event_refused(struct wg_device *dev, enum wg_event_kind kind,
		      const struct wg_endpoint *from, const uint8_t *public_key);

#endif
