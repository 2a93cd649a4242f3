/* Sliding replay window: a ring of words, whole words cleared as the window
 * advances, so an update costs O(1) amortised instead of shifting a bitmap. */
#include <string.h>

#include "replay.h"

enum {
	RING_WORDS = WG_COUNTER_WINDOW_BITS / 64,
};

_Static_assert((RING_WORDS & (RING_WORDS - 1)) == 0, "ring size must be a power of two");

void wg_replay_init(struct wg_replay *r)
{
	memset(r, 0, sizeof(*r));
}

bool wg_replay_counter_validate(struct wg_replay *r, uint64_t counter)
{
	uint64_t pos, word, cur_word, mask, steps;

	if (counter >= WG_REJECT_AFTER_MESSAGES)
		return false;
	/* Work with counter + 1 so that greatest == 0 can mean "nothing yet";
	 * no overflow: counter < UINT64_MAX - 8192. */
	pos = counter + 1;
	if (pos + WG_REPLAY_WINDOW_SIZE < r->greatest)
		return false; /* too old */

	word = pos / 64;
	if (pos > r->greatest) {
		/* Advance: zero every word between the old head and the new
		 * one (at most the whole ring). */
		cur_word = r->greatest / 64;
		steps = word - cur_word;
		if (steps > RING_WORDS)
			steps = RING_WORDS;
		for (uint64_t i = 1; i <= steps; i++)
			r->bitmap[(cur_word + i) & (RING_WORDS - 1)] = 0;
		r->greatest = pos;
	}
	mask = 1ULL << (pos & 63);
	word &= RING_WORDS - 1;
	if (r->bitmap[word] & mask)
		return false; /* duplicate */
	r->bitmap[word] |= mask;
	return true;
}
