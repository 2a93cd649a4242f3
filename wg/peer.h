/* The peer: identity, handshake, keypairs, cookie state, timers, staged
 * packets. Internal to the engine. */
#ifndef WG_PEER_H
#define WG_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <zinc/memzero.h>

#include "wg/wg.h"
#include "allowedips.h"
#include "cookie.h"
#include "noise.h"
#include "timers.h"

/* Packets waiting for a handshake: a fixed ring of copies, allocated only
 * while something is staged; the oldest is dropped when full. */
struct wg_staged {
	uint16_t head, count;
	struct {
		uint8_t *data;
		uint32_t len;
	} slot[WG_MAX_STAGED_PACKETS];
};

struct wg_peer {
	struct wg_device *dev;
	struct wg_peer *list_prev, *list_next; /* insertion order */
	struct wg_peer *hash_next;	       /* by public key */
	uint32_t refcount;		       /* device list + keypairs */
	bool dead;

	uint8_t public_key[WG_PUBLIC_KEY_LEN];
	uint8_t preshared_key[WG_PUBLIC_KEY_LEN];
	bool has_preshared_key;

	struct wg_handshake handshake;
	struct wg_keypairs keypairs;
	struct wg_cookie_maker cookie;
	struct wg_allowedips_owner aips;

	bool has_endpoint;
	struct wg_endpoint endpoint;
	struct wg_staged *staged;

	uint64_t timer[WG_TIMER_COUNT]; /* absolute deadlines, WG_TIMER_OFF */
	uint64_t deadline;		/* min of timer[] */
	size_t heap_pos;		/* SIZE_MAX: not in the heap */
	uint64_t last_sent_handshake;
	uint64_t first_handshake_attempt;
	uint32_t handshake_attempts;
	bool has_sent_handshake;
	bool need_another_keepalive;
	bool sent_lastminute_handshake;
	bool sent_cookie_retry;	   /* the current attempt's early retry is spent (send.c) */
	bool rng_wants_initiation; /* refused while unseeded (rngwait.c) */
	/* initiation.c: queued or being computed (init_next: the queue's
	 * link); init_early: it is a cookie reply's early retry */
	bool init_queued, init_early;
	struct wg_peer *init_next;
	uint16_t persistent_keepalive;
	/* routing loops refused (loop.c): reported once per WG_LOOP_REPORT_INTERVAL */
	bool loop_reported;
	uint64_t loop_reported_at;
	uint32_t loop_drops; /* since the last report */

	uint64_t last_handshake_wall_ns;
	uint64_t rx_bytes, tx_bytes;
};

struct wg_peer *wg_peer_create(struct wg_device *dev, const uint8_t pub[WG_PUBLIC_KEY_LEN]);
/* Unlinks nothing: the device does that; wipes keys, drops staged packets,
 * releases the device's reference. */
void wg_peer_kill(struct wg_device *dev, struct wg_peer *peer);
static inline void wg_peer_get(struct wg_peer *peer)
{
	peer->refcount++;
}
/* The last reference frees the peer (wiped). */
static inline void wg_peer_put(struct wg_peer *peer)
{
	if (!peer || --peer->refcount)
		return;
	zinc_memzero(peer, sizeof(*peer));
	free(peer);
}

/* Roaming: the endpoint becomes the source of an authenticated packet. */
void wg_peer_set_endpoint_from(struct wg_peer *peer, const struct wg_endpoint *from);

#endif
