/* Hold times of the engine lock, in a bench build only (enginelock.h). */
#include "enginelock.h"

#ifdef ZT_LOCK_STATS
#include "log.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void zt_lockstat_acquired(struct zt_lockstat *s, const char *where)
{
	s->where = where;
	s->since = clock_ns(CLOCK_MONOTONIC);
	s->since_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void zt_lockstat_released(struct zt_lockstat *s)
{
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - s->since_cpu;
	uint64_t held = clock_ns(CLOCK_MONOTONIC) - s->since;

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
#else
typedef int zt_enginelock_unused; /* an empty translation unit is not ISO C */
#endif
