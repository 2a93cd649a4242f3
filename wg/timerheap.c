/* Binary heap of peers by earliest deadline (contract in timerheap.h). */
#include <stdlib.h>

#include "peer.h"
#include "timerheap.h"
#include "timers.h"

static void heap_place(struct wg_timerheap *h, size_t i, struct wg_peer *p)
{
	h->slot[i] = p;
	p->heap_pos = i;
}

static void sift_up(struct wg_timerheap *h, size_t i)
{
	struct wg_peer *p = h->slot[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (h->slot[parent]->deadline <= p->deadline)
			break;
		heap_place(h, i, h->slot[parent]);
		i = parent;
	}
	heap_place(h, i, p);
}

static void sift_down(struct wg_timerheap *h, size_t i)
{
	struct wg_peer *p = h->slot[i];

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->len)
			break;
		if (c + 1 < h->len && h->slot[c + 1]->deadline < h->slot[c]->deadline)
			c++;
		if (p->deadline <= h->slot[c]->deadline)
			break;
		heap_place(h, i, h->slot[c]);
		i = c;
	}
	heap_place(h, i, p);
}

void wg_timerheap_remove(struct wg_timerheap *h, struct wg_peer *p)
{
	size_t i = p->heap_pos;
	struct wg_peer *last;

	if (i == WG_HEAP_NONE)
		return;
	p->heap_pos = WG_HEAP_NONE;
	last = h->slot[--h->len];
	if (last == p)
		return;
	heap_place(h, i, last);
	sift_up(h, i);
	sift_down(h, last->heap_pos);
}

static bool heap_push(struct wg_timerheap *h, struct wg_peer *p)
{
	if (h->len == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : WG_HEAP_INITIAL_CAP;
		struct wg_peer **s = realloc(h->slot, cap * sizeof(*s));
		if (!s)
			return false;
		h->slot = s;
		h->cap = cap;
	}
	heap_place(h, h->len++, p);
	sift_up(h, p->heap_pos);
	return true;
}

bool wg_timerheap_update(struct wg_timerheap *h, struct wg_peer *p)
{
	if (p->deadline == WG_TIMER_OFF) {
		wg_timerheap_remove(h, p);
		return true;
	}
	if (p->heap_pos == WG_HEAP_NONE)
		return heap_push(h, p);
	sift_up(h, p->heap_pos);
	sift_down(h, p->heap_pos);
	return true;
}

struct wg_peer *wg_timerheap_top(const struct wg_timerheap *h)
{
	return h->len ? h->slot[0] : NULL;
}

void wg_timerheap_free(struct wg_timerheap *h)
{
	free(h->slot);
	h->slot = NULL;
	h->len = h->cap = 0;
}
