/* The engine lock's hold times (daemon/enginelock.h, ZT_LOCK_STATS): not
 * part of the program, linked into zinctun by make only when EXTRA_CFLAGS
 * has -DZT_LOCK_STATS (scripts/bench-handshake). */
#include "../daemon/clock.h"
#include "../daemon/enginelock.h"
#include "../daemon/log.h"

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
