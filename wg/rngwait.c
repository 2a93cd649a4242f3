/* Waiting for the system RNG: remembers who needs it, polls it from the
 * tick only while someone does, and catches up once it is seeded. */
#include "rngwait.h"

#include "device.h"
#include "peer.h"
#include "timers.h"

static void start_polling(struct wg_device *dev)
{
	if (dev->rng_poll_at == WG_TIMER_OFF)
		dev->rng_poll_at = dev->now + WG_RNG_POLL_INTERVAL;
}

void wg_rng_wait_for_keys(struct wg_device *dev)
{
	dev->rng_weak_keys = true;
	start_polling(dev);
}

void wg_rng_wait_for_initiation(struct wg_device *dev, struct wg_peer *peer)
{
	peer->rng_wants_initiation = true;
	start_polling(dev);
}

uint64_t wg_rng_deadline(const struct wg_device *dev)
{
	return dev->rng_poll_at;
}

/* Every peer that was refused an initiation sends one now, as a first
 * attempt: the give-up clock (REKEY_ATTEMPT_TIME) starts here. */
static void initiate_waiting_peers(struct wg_device *dev)
{
	for (struct wg_peer *p = dev->peer_first; p; p = p->list_next) {
		if (!p->rng_wants_initiation)
			continue;
		p->rng_wants_initiation = false;
		wg_send_handshake_initiation(dev, p, false);
	}
}

void wg_rng_run(struct wg_device *dev)
{
	if (dev->rng_poll_at == WG_TIMER_OFF || dev->now < dev->rng_poll_at)
		return;
	dev->rng_poll_at = WG_TIMER_OFF;
	if (!wg_device_rng_ready(dev)) {
		start_polling(dev);
		return;
	}
	if (dev->rng_weak_keys) {
		dev->rng_weak_keys = false;
		if (!wg_device_redraw_hash_keys(dev))
			wg_rng_wait_for_keys(dev);
	}
	/* A refusal in here (the RNG flapping, a test seam) polls again. */
	initiate_waiting_peers(dev);
}
