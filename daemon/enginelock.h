/* The engine lock (struct zt.lock): zt_engine_lock() / zt_engine_unlock()
 * at every site. The unlock re-arms the timer thread first when the
 * engine's next deadline moved earlier meanwhile (zt_timers_changed: a
 * send, a receive, a handshake or a configuration change can bring a timer
 * forward), so no caller has to remember it. The timer thread, which sets
 * its own wake-up, releases with zt_engine_unlock_timer().
 *
 * A bench build (-DZT_LOCK_STATS, scripts/bench-handshake) also records how
 * long each hold lasts, in wall time and in the holder's CPU time (which
 * leaves out the time it was preempted, on a loaded machine most of a long
 * wall-time hold): the longest of each and where the lock was taken, the
 * number of holds and of holds over ZT_LOCK_SLOW_NS. SIGUSR1 logs and resets
 * them, and they are logged at exit. The shipped binary has plain mutex calls.
 *
 * The outermost lock: only the engine's rate limiter lock is taken inside
 * it; the handshake queue, worker pool and GSO path locks never are. See
 * doc/datapath.md, "Concurrency". */
#ifndef ZT_ENGINELOCK_H
#define ZT_ENGINELOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

struct zt;
/* With the lock held: re-arms the timer thread if the engine's earliest
 * deadline is now before its wake-up (runtime.c). */
void zt_timers_changed(struct zt *zt);

#ifdef ZT_LOCK_STATS
#define ZT_LOCK_SLOW_NS 50000ULL /* the handshake path's target (issue 13) */

/* Written only by the thread that holds the lock. */
struct zt_lockstat {
	uint64_t since, since_cpu; /* when the current hold began (wall, thread CPU) */
	const char *where;	   /* where it was taken: "file:line" */
	uint64_t max_ns, max_cpu_ns;
	const char *max_where, *max_cpu_where;
	uint64_t holds, slow, slow_cpu;
};

void zt_lockstat_acquired(struct zt_lockstat *s, const char *where);
void zt_lockstat_released(struct zt_lockstat *s);
/* With the lock held: the counters so far, which then start again. */
struct zt_lockstat zt_lockstat_take(struct zt_lockstat *s);
/* One log line (without the lock: logging is slow). */
void zt_lockstat_log(const struct zt_lockstat *s);

#define ZT_LOCKSTAT_DECL struct zt_lockstat lockstat;
#define ZT_LOCK_STR2(x) #x
#define ZT_LOCK_STR(x) ZT_LOCK_STR2(x)
#define ZT_LOCK_WHERE __FILE__ ":" ZT_LOCK_STR(__LINE__)
#define zt_engine_lock(zt)                                                                         \
	(pthread_mutex_lock(&(zt)->lock), zt_lockstat_acquired(&(zt)->lockstat, ZT_LOCK_WHERE))
#define zt_engine_unlock_timer(zt)                                                                 \
	(zt_lockstat_released(&(zt)->lockstat), pthread_mutex_unlock(&(zt)->lock))
#else
#define ZT_LOCKSTAT_DECL
#define zt_engine_lock(zt) pthread_mutex_lock(&(zt)->lock)
#define zt_engine_unlock_timer(zt) pthread_mutex_unlock(&(zt)->lock)
#endif
#define zt_engine_unlock(zt) (zt_timers_changed(zt), zt_engine_unlock_timer(zt))

#endif
