/* Anti-replay window for transport data counters (RFC 6479 style). */
#ifndef WG_REPLAY_H
#define WG_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "messages.h"

/* greatest is one more than the highest counter accepted so far (0 = none
 * yet). bitmap is a ring of 64-bit words indexed by counter / 64; one word
 * is always being recycled, so the usable window is
 * WG_COUNTER_WINDOW_BITS - 64 counters behind the greatest. Not locked:
 * the caller serialises access. */
struct wg_replay {
	uint64_t greatest;
	uint64_t bitmap[WG_COUNTER_WINDOW_BITS / 64];
};

#define WG_REPLAY_WINDOW_SIZE (WG_COUNTER_WINDOW_BITS - 64)

void wg_replay_init(struct wg_replay *r);

/* Called only after the packet authenticated: true = accept (and record),
 * false = duplicate, too old, or counter >= WG_REJECT_AFTER_MESSAGES. */
bool wg_replay_counter_validate(struct wg_replay *r, uint64_t counter);

#endif
