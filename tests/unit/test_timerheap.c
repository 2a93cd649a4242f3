/* Timer heap on its own: random inserts, removes and re-keys of peers'
 * deadlines, checked after every step against a plain array model (top is
 * the model's minimum, the heap order and every peer's slot index hold),
 * then drained in order. */
#include <stdbool.h>
#include <stdint.h>

#include "test.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "../../wg/timerheap.h"

#define NPEERS 200
#define STEPS 20000
/* Few distinct deadlines, so that ties are common. */
#define DEADLINE_SPAN 64

static struct wg_peer peers[NPEERS];
static uint64_t model[NPEERS]; /* WG_TIMER_OFF: absent */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void check_against_model(const struct wg_timerheap *h)
{
	uint64_t min = WG_TIMER_OFF;
	size_t present = 0;
	const struct wg_peer *top = wg_timerheap_top(h);

	for (size_t i = 0; i < NPEERS; i++) {
		if (model[i] == WG_TIMER_OFF) {
			CHECK(peers[i].heap_pos == WG_HEAP_NONE);
			continue;
		}
		present++;
		if (model[i] < min)
			min = model[i];
		CHECK(peers[i].heap_pos < h->len && h->slot[peers[i].heap_pos] == &peers[i]);
	}
	CHECK(h->len == present);
	CHECK(top ? top->deadline == min : min == WG_TIMER_OFF);
	for (size_t i = 1; i < h->len; i++)
		CHECK(h->slot[(i - 1) / 2]->deadline <= h->slot[i]->deadline);
}

int main(void)
{
	struct wg_timerheap h = {0};
	uint64_t last = 0;

	for (size_t i = 0; i < NPEERS; i++) {
		peers[i].deadline = WG_TIMER_OFF;
		peers[i].heap_pos = WG_HEAP_NONE;
		model[i] = WG_TIMER_OFF;
	}
	check_against_model(&h);

	for (int step = 0; step < STEPS; step++) {
		size_t i = rnd() % NPEERS;
		/* one in three clears (a remove when present), else insert or re-key */
		uint64_t d = rnd() % 3 == 0 ? WG_TIMER_OFF : rnd() % DEADLINE_SPAN;

		peers[i].deadline = d;
		model[i] = d;
		CHECK(wg_timerheap_update(&h, &peers[i]));
		if (rnd() % 16 == 0) { /* direct remove, as wg_timers_stop() ends up doing */
			size_t j = rnd() % NPEERS;
			wg_timerheap_remove(&h, &peers[j]);
			peers[j].deadline = model[j] = WG_TIMER_OFF;
		}
		check_against_model(&h);
	}

	/* Drain: tops come out in non-decreasing order. */
	for (struct wg_peer *p; (p = wg_timerheap_top(&h));) {
		CHECK(p->deadline >= last);
		last = p->deadline;
		p->deadline = WG_TIMER_OFF;
		model[p - peers] = WG_TIMER_OFF;
		CHECK(wg_timerheap_update(&h, p));
	}
	check_against_model(&h);

	wg_timerheap_free(&h);
	CHECK(h.slot == NULL && h.len == 0 && h.cap == 0);
	return test_finish("test_timerheap");
}
