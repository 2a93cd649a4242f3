/* The lock checks (debug and sanitizer builds) and the engine lock's hold
 * times (bench builds): enginelock.h. */
#include "enginelock.h"

#ifdef ZT_LOCK_CHECKS
#include <stdio.h>
#include <stdlib.h>

enum { HELD_MAX = 4 }; /* locks one thread holds at once: engine, udp */

static _Thread_local const pthread_mutex_t *held[HELD_MAX];

void zt_lock_note(const pthread_mutex_t *m, bool taken)
{
	for (int i = 0; i < HELD_MAX; i++) {
		if (held[i] == (taken ? NULL : m)) {
			held[i] = taken ? m : NULL;
			return;
		}
	}
	fprintf(stderr, "zinctun: lock checks: %p not tracked\n", (const void *)m);
	abort();
}

void zt_lock_check(const pthread_mutex_t *m, const char *lock, const char *where)
{
	for (int i = 0; i < HELD_MAX; i++)
		if (held[i] == m)
			return;
	fprintf(stderr, "zinctun: %s: %s is not held\n", where, lock);
	abort();
}
#endif

#ifdef ZT_LOCK_STATS
#include "clock.h"
#include "log.h"

void zt_lockstat_acquired(struct zt_lockstat *s, const char *where)
{
	s->where = where;
	s->since = zt_mono_ns();
	s->since_cpu = zt_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void zt_lockstat_released(struct zt_lockstat *s)
{
	uint64_t cpu = zt_clock_ns(CLOCK_THREAD_CPUTIME_ID) - s->since_cpu;
	uint64_t held = zt_mono_ns() - s->since;

	s->holds++;
	s->slow += held > ZT_LOCK_SLOW_NS;
	s->slow_cpu += cpu > ZT_LOCK_SLOW_NS;
	if (held > s->max_ns) {
		s->max_ns = held;
		s->max_where = s->where;
	}
	if (cpu > s->max_cpu_ns) {
		s->max_cpu_ns = cpu;
		s->max_cpu_where = s->where;
	}
}

struct zt_lockstat zt_lockstat_take(struct zt_lockstat *s)
{
	struct zt_lockstat copy = *s;

	s->max_ns = s->max_cpu_ns = s->holds = s->slow = s->slow_cpu = 0;
	s->max_where = s->max_cpu_where = NULL;
	return copy;
}

void zt_lockstat_log(const struct zt_lockstat *s)
{
	log_info("lockstat: max_hold_us=%.1f at %s max_cpu_us=%.1f at %s holds=%llu "
		 "over_%llu_us=%llu cpu_over_%llu_us=%llu",
		 (double)s->max_ns / 1000.0, s->max_where ? s->max_where : "-",
		 (double)s->max_cpu_ns / 1000.0, s->max_cpu_where ? s->max_cpu_where : "-",
		 (unsigned long long)s->holds, ZT_LOCK_SLOW_NS / 1000, (unsigned long long)s->slow,
		 ZT_LOCK_SLOW_NS / 1000, (unsigned long long)s->slow_cpu);
}
#endif
#if !defined(ZT_LOCK_STATS) && !defined(ZT_LOCK_CHECKS)
typedef int zt_enginelock_unused; /* an empty translation unit is not ISO C */
#endif
