/* Binary min-heap of peers ordered by peer->deadline, the earliest first.
 * The heap owns only its array of pointers (grown by doubling, freed by
 * wg_timerheap_free()); the peers are the caller's and each carries its own
 * slot index in peer->heap_pos (WG_HEAP_NONE when absent), so removing or
 * re-keying a peer needs no search. Insert, remove and re-key are
 * O(log peers), top is O(1). It does no protocol logic: which deadline a peer
 * has is decided by timers.c, which calls wg_timerheap_update() after
 * changing it. */
#ifndef WG_TIMERHEAP_H
#define WG_TIMERHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wg_peer;

#define WG_HEAP_NONE SIZE_MAX
/* First allocation, in peers; doubled on each growth. */
#define WG_HEAP_INITIAL_CAP 16

struct wg_timerheap {
	struct wg_peer **slot;
	size_t len, cap;
};

/* Puts the peer where its current deadline belongs: out of the heap when the
 * deadline is WG_TIMER_OFF, in (or moved) otherwise. False only when growing
 * the array failed; the peer is then not in the heap. */
bool wg_timerheap_update(struct wg_timerheap *h, struct wg_peer *peer);
void wg_timerheap_remove(struct wg_timerheap *h, struct wg_peer *peer);
/* The peer with the earliest deadline, NULL when empty. */
struct wg_peer *wg_timerheap_top(const struct wg_timerheap *h);
void wg_timerheap_free(struct wg_timerheap *h);

#endif
