/* Replay window: a scripted sequence (in order, reordering inside the
 * window, duplicates, too old, jumps past the window, the reject limit),
 * full-window sweeps, and a comparison against a naive set-based model. */
#include <stdbool.h>
#include <stdint.h>

#include "test.h"
#include "../../wg/replay.h"

#define W WG_REPLAY_WINDOW_SIZE
#define LIM (W + 1)
#define REJ WG_REJECT_AFTER_MESSAGES

struct step {
	uint64_t counter;
	bool accept;
};

static const struct step script[] = {
    {0, true},	/* first packet */
    {1, true},	/* in order */
    {1, false}, /* duplicate */
    {9, true},	/* small jump ahead */
    {8, true},	/* out of order, in window */
    {7, true},
    {7, false},	 /* duplicate of a reordered one */
    {LIM, true}, /* jump: 0 falls out of the window */
    {LIM - 1, true},
    {LIM - 1, false},
    {LIM - 2, true},
    {2, true}, /* exactly at the trailing edge */
    {2, false},
    {LIM + 16, true},
    {3, false}, /* now too old */
    {LIM + 16, false},
    {LIM * 4, true},		 /* jump far beyond the window */
    {LIM * 4 - (LIM - 1), true}, /* oldest still in the window */
    {10, false},		 /* ancient */
    {LIM * 4 - LIM, false},	 /* one past the trailing edge */
    {LIM * 4 - (LIM + 1), false},
    {LIM * 4 - (LIM - 2), true},
    {LIM * 4 + 1 - LIM, false}, /* already seen */
    {0, false},
    {REJ, false},    /* the limit itself */
    {REJ - 1, true}, /* last allowed counter */
    {REJ, false},
    {REJ - 1, false},
    {REJ - 2, true},
    {REJ + 1, false},
    {REJ + 2, false},
    {UINT64_MAX, false},
    {REJ - 2, false},
    {REJ - 3, true},
    {REJ - 1 - W, true}, /* trailing edge near the limit */
    {REJ - 2 - W, false},
    {0, false},
};

static void run_script(void)
{
	struct wg_replay r;

	wg_replay_init(&r);
	for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
		bool got = wg_replay_counter_validate(&r, script[i].counter);
		if (got != script[i].accept)
			fprintf(stderr, "script step %zu: counter %llu got %d\n", i + 1,
				(unsigned long long)script[i].counter, got);
		CHECK(got == script[i].accept);
	}
}

/* Every counter of a full window, forwards and backwards, then the edges. */
static void run_sweeps(void)
{
	struct wg_replay r;
	uint64_t i;
	int bad;

	wg_replay_init(&r);
	bad = 0;
	for (i = 1; i <= W; i++)
		bad += !wg_replay_counter_validate(&r, i);
	CHECK(bad == 0);
	CHECK(wg_replay_counter_validate(&r, 0)); /* W behind: still inside */
	CHECK(!wg_replay_counter_validate(&r, 0));

	wg_replay_init(&r);
	bad = 0;
	for (i = 2; i <= W + 1; i++)
		bad += !wg_replay_counter_validate(&r, i);
	CHECK(bad == 0);
	CHECK(wg_replay_counter_validate(&r, 1));
	CHECK(!wg_replay_counter_validate(&r, 0)); /* W + 1 behind: too old */

	wg_replay_init(&r);
	bad = 0;
	for (i = W + 1; i-- > 0;)
		bad += !wg_replay_counter_validate(&r, i);
	CHECK(bad == 0);

	wg_replay_init(&r);
	bad = 0;
	for (i = W + 2; i-- > 1;)
		bad += !wg_replay_counter_validate(&r, i);
	CHECK(bad == 0);
	CHECK(!wg_replay_counter_validate(&r, 0));

	wg_replay_init(&r);
	bad = 0;
	for (i = W + 1; i-- > 1;)
		bad += !wg_replay_counter_validate(&r, i);
	CHECK(bad == 0);
	CHECK(wg_replay_counter_validate(&r, W + 1));
	CHECK(!wg_replay_counter_validate(&r, 0));

	wg_replay_init(&r);
	bad = 0;
	for (i = W + 1; i-- > 1;)
		bad += !wg_replay_counter_validate(&r, i);
	CHECK(bad == 0);
	CHECK(wg_replay_counter_validate(&r, 0));
	CHECK(wg_replay_counter_validate(&r, W + 1));
	/* Everything just accepted is now a duplicate. */
	bad = 0;
	for (i = 0; i <= W + 1; i++)
		bad += wg_replay_counter_validate(&r, i);
	CHECK(bad == 0);
}

/* Naive model: accept iff below the limit, not seen, and greatest - c <= W.
 * Counters are drawn near a moving head so every case is exercised, and
 * bits in recycled ring words must not leak into later decisions. */
#define MODEL_SPAN (1ULL << 26)
static uint64_t seen[MODEL_SPAN / 64];

static void run_model(void)
{
	struct wg_replay r;
	uint64_t s = 0x9e3779b97f4a7c15ULL, head = 0, greatest = 0;
	bool any = false;
	int mismatches = 0, ops = 0;

	wg_replay_init(&r);
	memset(seen, 0, sizeof(seen));
	for (; ops < 400000; ops++) {
		uint64_t x = test_rand64(&s), c;
		if ((x & 255) == 0) /* jump ahead by up to 2 windows */
			c = head + (x >> 8) % (2 * W + 200);
		else if ((x & 7) == 1) /* around the trailing edge */
			c = head > W + 2 ? head - W - 2 + (x >> 8) % 5 : 0;
		else if ((x & 7) == 2) /* recent: likely duplicates */
			c = head > 16 ? head - (x >> 8) % 16 : head;
		else /* near the head, reordered */
			c = head + 64 > (x >> 8) % (W + 200) ? head + 64 - (x >> 8) % (W + 200) : 0;
		if (c >= MODEL_SPAN)
			break;
		bool dup = seen[c / 64] >> (c % 64) & 1;
		bool expect = !dup && (!any || c + W >= greatest);
		bool got = wg_replay_counter_validate(&r, c);
		if (got != expect && mismatches++ < 5)
			fprintf(stderr, "model: counter %llu got %d want %d\n",
				(unsigned long long)c, got, expect);
		if (got) {
			seen[c / 64] |= 1ULL << (c % 64);
			if (!any || c > greatest)
				greatest = c;
			any = true;
		}
		if (c > head)
			head = c;
	}
	CHECK(mismatches == 0);
	CHECK(ops == 400000);
	CHECK(head > 8 * W); /* the run advanced past many windows */
}

int main(void)
{
	run_script();
	run_sweeps();
	run_model();
	return test_finish("test_replay");
}
