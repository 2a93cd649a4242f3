/* Per-peer timers as pure decisions from an explicit now (no clock reads):
 * events set or clear deadlines, wg_expiry_run() fires the due ones. A heap
 * of peers keyed by their earliest deadline keeps tick cost O(log peers). */
#ifndef WG_TIMERS_H
#define WG_TIMERS_H

#include <stdbool.h>
#include <stdint.h>

struct wg_device;
struct wg_peer;
struct wg_keypair;

enum wg_timer {
	WG_TIMER_RETRANSMIT_HANDSHAKE,
	WG_TIMER_SEND_KEEPALIVE,
	WG_TIMER_NEW_HANDSHAKE,
	WG_TIMER_ZERO_KEY_MATERIAL,
	WG_TIMER_PERSISTENT_KEEPALIVE,
	WG_TIMER_COUNT,
};

#define WG_TIMER_OFF UINT64_MAX

void wg_timers_init(struct wg_peer *peer);
/* Clears every timer of the peer and takes it out of the heap. */
void wg_timers_stop(struct wg_device *dev, struct wg_peer *peer);

/* Events (now is dev->now). */
void wg_timers_data_sent(struct wg_device *dev, struct wg_peer *peer);
void wg_timers_data_received(struct wg_device *dev, struct wg_peer *peer);
void wg_timers_any_authenticated_packet_sent(struct wg_device *dev, struct wg_peer *peer);
void wg_timers_any_authenticated_packet_received(struct wg_device *dev, struct wg_peer *peer);
void wg_timers_any_authenticated_packet_traversal(struct wg_device *dev, struct wg_peer *peer);
void wg_timers_handshake_initiated(struct wg_device *dev, struct wg_peer *peer);
void wg_timers_handshake_complete(struct wg_device *dev, struct wg_peer *peer);
void wg_timers_session_derived(struct wg_device *dev, struct wg_peer *peer);
void wg_timers_persistent_keepalive_changed(struct wg_device *dev, struct wg_peer *peer);

/* Rekey decisions. */
bool wg_timers_rekey_on_send(const struct wg_keypair *kp, uint64_t now);
bool wg_timers_rekey_on_receive(const struct wg_keypair *kp, uint64_t now);
/* Handshake rate limit: at most one initiation per REKEY_TIMEOUT. */
bool wg_timers_may_initiate(const struct wg_peer *peer, uint64_t now);

/* Sets or clears one timer, keeping the heap in order. */
void wg_timer_set(struct wg_device *dev, struct wg_peer *p, enum wg_timer t, uint64_t at);
void wg_timer_del(struct wg_device *dev, struct wg_peer *p, enum wg_timer t);
bool wg_timer_pending(const struct wg_peer *peer, enum wg_timer t);
/* The earliest absolute deadline, WG_TIMER_OFF if none. */
uint64_t wg_timers_next_deadline(const struct wg_device *dev);
/* From the tick: runs the action of every due timer at dev->now (expiry.c). */
void wg_expiry_run(struct wg_device *dev);

#endif
