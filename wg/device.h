/* The device: static identity, peers, receiver indices, load state. Internal. */
#ifndef WG_DEVICE_H
#define WG_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wg/wg.h"
#include "allowedips.h"
#include "cookie.h"
#include "identity.h"
#include "index.h"
#include "messages.h"
#include "ratelimiter.h"
#include "siphash.h"
#include "timerheap.h"

struct wg_peer;

enum {
	WG_JITTER_POOL = 16, /* timer jitter words drawn from the RNG at once */
};

struct wg_device {
	struct wg_env env;
	struct wg_io io;
	uint64_t now; /* monotonic ns, read once per API call */

	bool has_identity;
	uint8_t static_private[WG_PUBLIC_KEY_LEN];
	uint8_t static_public[WG_PUBLIC_KEY_LEN];
	struct wg_identity *identity; /* their snapshot (identity.h); NULL without */
	uint32_t mtu;

	struct wg_cookie_checker cookie_checker;
	struct wg_ratelimiter *ratelimiter;
	uint64_t ratelimiter_gc_at;
	struct wg_allowedips *allowedips;
	struct wg_index_table index;

	struct wg_peer *peer_first, *peer_last;
	size_t peer_count;
	struct wg_peer **peer_buckets;
	size_t peer_mask;
	uint8_t peer_hash_key[WG_SIPHASH_KEY_LEN];

	/* rngwait.c: hash keys drawn unseeded; next look at the RNG */
	bool rng_weak_keys;
	uint64_t rng_poll_at;

	struct wg_timerheap timerheap; /* peers by earliest deadline */
	/* timers.c: random words for timer jitter, drawn WG_JITTER_POOL at a
	 * time; jitter_left of them not used yet */
	uint32_t jitter_pool[WG_JITTER_POOL];
	unsigned int jitter_left;

	bool load_seen;
	uint64_t last_under_load;

	struct wg_device_stats stats;
	uint8_t *scratch; /* one message: header + max packet + padding + tag */
};

enum {
	WG_SCRATCH_SIZE =
	    WG_DATA_HEADER_LEN + WG_MAX_PACKET + WG_MESSAGE_PADDING_MULTIPLE + WG_AUTHTAG_LEN
};

/* Refreshes dev->now from the injected clock. */
void wg_device_clock(struct wg_device *dev);
uint64_t wg_device_wall_ns(struct wg_device *dev);
bool wg_device_random(const struct wg_device *dev, void *buf, size_t len);
bool wg_device_rng_ready(struct wg_device *dev);
/* New SipHash keys for the peer table and the rate limiter, and everything
 * keyed by them rehashed; false (keys unchanged) if the RNG fails. */
bool wg_device_redraw_hash_keys(struct wg_device *dev);
bool wg_device_under_load(struct wg_device *dev);
struct wg_peer *wg_device_lookup_peer_internal(struct wg_device *dev,
					       const uint8_t pub[WG_PUBLIC_KEY_LEN]);
/* Sends a datagram to the peer's endpoint, counting tx bytes. */
bool wg_device_send_to_peer(struct wg_device *dev, struct wg_peer *peer, const uint8_t *pkt,
			    size_t len);

/* The source or destination address of an IPv4/IPv6 packet; false if the
 * packet is too short or not IP. */
bool wg_ip_addr(const uint8_t *pkt, size_t len, bool src, int *family, const uint8_t **addr);
/* The peer that owns addr in allowed IPs, or NULL. */
struct wg_peer *wg_device_route(struct wg_device *dev, int family, const uint8_t *addr);

/* handshake.c: a handshake message through the split path, in one call;
 * answers go out through io.send. */
int wg_receive_handshake(struct wg_device *dev, const struct wg_endpoint *from, const uint8_t *pkt,
			 size_t len);

/* send.c */
void wg_send_handshake_initiation(struct wg_device *dev, struct wg_peer *peer, bool is_retry);
/* At once, with mac2, after a cookie reply to our initiation (once per attempt). */
void wg_send_handshake_initiation_cookie_retry(struct wg_device *dev, struct wg_peer *peer);
void wg_send_keepalive(struct wg_device *dev, struct wg_peer *peer);
/* Sends staged packets with the current keypair, or starts a handshake. */
void wg_send_staged(struct wg_device *dev, struct wg_peer *peer);

/* Little-endian helpers. */
static inline uint32_t wg_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void wg_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
static inline uint64_t wg_le64(const uint8_t *p)
{
	return (uint64_t)wg_le32(p) | (uint64_t)wg_le32(p + 4) << 32;
}
static inline void wg_put_le64(uint8_t *p, uint64_t v)
{
	wg_put_le32(p, (uint32_t)v);
	wg_put_le32(p + 4, (uint32_t)(v >> 32));
}

#define wg_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#endif
