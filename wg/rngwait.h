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

#include "device.h"
#include "peer.h"

#define WG_RNG_POLL_INTERVAL (250 * WG_NS_PER_MS)

static inline void wg_rng_start_polling(struct wg_device *dev)
{
	if (dev->rng_poll_at == WG_TIMER_OFF)
		dev->rng_poll_at = dev->now + WG_RNG_POLL_INTERVAL;
}
/* The device's hash keys were drawn while unseeded: redraw once seeded. */
static inline void wg_rng_wait_for_keys(struct wg_device *dev)
{
	dev->rng_weak_keys = true;
	wg_rng_start_polling(dev);
}
/* The peer's initiation was refused for the RNG: initiate once seeded. */
static inline void wg_rng_wait_for_initiation(struct wg_device *dev, struct wg_peer *peer)
{
	peer->rng_wants_initiation = true;
	wg_rng_start_polling(dev);
}
/* From the tick: looks at the RNG when due, acts once it is seeded. */
void wg_rng_run(struct wg_device *dev);

#endif
