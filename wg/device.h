/* The device: static identity, peers, receiver indices, load state. Internal. */
#ifndef WG_DEVICE_H
#define WG_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zinc/random.h>

#include "wg/wg.h"
#include "allowedips.h"
#include "cookie.h"
#include "identity.h"
#include "index.h"
#include "messages.h"
#include "obfs.h"
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

	/* initiation.c: peers waiting for wg_device_prepare_initiations */
	struct wg_peer *init_first, *init_last;

	struct wg_timerheap timerheap; /* peers by earliest deadline */
	/* timers.c: random words for timer jitter, drawn WG_JITTER_POOL at a
	 * time; jitter_left of them not used yet */
	uint32_t jitter_pool[WG_JITTER_POOL];
	unsigned int jitter_left;

	bool load_seen;
	uint64_t last_under_load;

	struct wg_obfs obfs; /* AmneziaWG (obfs.c) */

	struct wg_device_stats stats;
	uint8_t *scratch; /* one message: header + max packet + padding + tag */
};

enum {
	WG_SCRATCH_SIZE = WG_OBFS_MAX_DATAGRAM + WG_DATA_HEADER_LEN + WG_MAX_PACKET +
			  WG_MESSAGE_PADDING_MULTIPLE + WG_AUTHTAG_LEN
};

/* The injected environment (wg_env): clock, wall time, RNG. */
static inline void wg_device_clock(struct wg_device *dev)
{
	dev->now = dev->env.now_ns(dev->env.ctx);
}
static inline uint64_t wg_device_wall_ns(struct wg_device *dev)
{
	return dev->env.wall_ns(dev->env.ctx);
}
static inline bool wg_device_random(const struct wg_device *dev, void *buf, size_t len)
{
	if (dev->env.get_random)
		return dev->env.get_random(dev->env.ctx, buf, len);
	return zinc_get_random_bytes(buf, len);
}
static inline bool wg_device_rng_ready(struct wg_device *dev)
{
	if (dev->env.rng_ready)
		return dev->env.rng_ready(dev->env.ctx);
	return zinc_rng_is_initialized();
}

bool wg_device_under_load(struct wg_device *dev);

#endif
