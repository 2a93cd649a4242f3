/* Waiting for the system RNG (early boot). While it is unseeded the engine
 * answers no handshake and sends no initiation; a peer whose initiation was
 * refused for that reason is remembered, and the device's hash keys, drawn
 * while unseeded, are marked weak. While either holds, the tick looks at
 * env.rng_ready every WG_RNG_POLL_INTERVAL; once seeded it redraws the keys
 * and every remembered peer initiates, with no new traffic needed (the
 * Linux module's handshake worker blocks until the RNG is ready, then
 * sends). Nothing is polled once nothing waits. */
#ifndef WG_RNGWAIT_H
#define WG_RNGWAIT_H

#include <stdint.h>

#include "messages.h"

#define WG_RNG_POLL_INTERVAL (250 * WG_NS_PER_MS)

struct wg_device;
struct wg_peer;

/* The device's hash keys were drawn while unseeded: redraw once seeded. */
void wg_rng_wait_for_keys(struct wg_device *dev);
/* The peer's initiation was refused for the RNG: initiate once seeded. */
void wg_rng_wait_for_initiation(struct wg_device *dev, struct wg_peer *peer);
/* Absolute time of the next look at the RNG, WG_TIMER_OFF if none. */
uint64_t wg_rng_deadline(const struct wg_device *dev);
/* From the tick: looks at the RNG when due, acts once it is seeded. */
void wg_rng_run(struct wg_device *dev);

#endif
