/* Handshake rate limiter: a token bucket per IPv4 address and per IPv6 /64
 * (WG_RATELIMIT_PACKETS_PER_SECOND, burst WG_RATELIMIT_BURST), in a bounded
 * table keyed by SipHash with a secret key. Not locked: the device's
 * caller serializes calls (the daemon's engine lock).
 * Never reads a clock: the caller passes monotonic nanoseconds. */
#ifndef WG_RATELIMITER_H
#define WG_RATELIMITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "siphash.h"

struct wg_ratelimiter;

/* hash_key: random bytes. NULL on allocation failure. */
struct wg_ratelimiter *wg_ratelimiter_new(const uint8_t hash_key[WG_SIPHASH_KEY_LEN]);
void wg_ratelimiter_free(struct wg_ratelimiter *rl);

/* true = allowed; src is a sockaddr_in or sockaddr_in6 (v4-mapped v6 treated
 * as v4). Unknown families are refused, and so are new sources while the
 * table is full (WG_RATELIMIT_MAX_ENTRIES). */
bool wg_ratelimiter_allow(struct wg_ratelimiter *rl, const struct sockaddr *src, uint64_t now_ns);

/* Drops entries idle for WG_RATELIMIT_ENTRY_TIMEOUT or longer (their bucket
 * would be full again anyway). Call about once a second. */
void wg_ratelimiter_gc(struct wg_ratelimiter *rl, uint64_t now_ns);

/* A new hash key; the entries are rehashed (their tokens kept). */
void wg_ratelimiter_rekey(struct wg_ratelimiter *rl, const uint8_t hash_key[WG_SIPHASH_KEY_LEN]);

size_t wg_ratelimiter_count(const struct wg_ratelimiter *rl);

#endif
