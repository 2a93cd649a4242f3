/* The engine lock (struct zt_runtime.lock), the outermost one (doc/datapath.md,
 * "Concurrency"). zt_engine_unlock re-arms the timer thread when the next
 * deadline moved earlier, so no caller has to remember it; the timer
 * thread, which sets its own wake-up, uses zt_engine_unlock_no_rearm.
 * Checked builds (ZT_DEBUG, ASan, TSan) abort at zt_*assert_held without
 * the lock. Taking it starts a new clock reading (runtime.c's env_now: one
 * per hold, a batch of packets is one instant). -DZT_LOCK_STATS records hold times
 * (bench/lockstat.c), logged on SIGUSR1 and at exit (scripts/bench-handshake). */
#ifndef ZT_ENGINELOCK_H
#define ZT_ENGINELOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct zt_runtime;
/* With the lock held: re-arms the timer thread if the engine's earliest
 * deadline is now before its wake-up (runtime.c). */
void zt_timers_changed(struct zt_runtime *zt);

#define ZT_LOCK_STR2(x) #x
#define ZT_LOCK_STR(x) ZT_LOCK_STR2(x)
#define ZT_LOCK_WHERE __FILE__ ":" ZT_LOCK_STR(__LINE__)

#if defined(ZT_DEBUG) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ZT_LOCK_CHECKS 1
#endif

#ifdef ZT_LOCK_CHECKS
/* The calling thread took (held) or is releasing (!held) m. */
void zt_lock_note(const pthread_mutex_t *m, bool held);
/* Aborts, naming lock and where, unless the calling thread holds m. */
void zt_lock_check(const pthread_mutex_t *m, const char *lock, const char *where);
#define zt_mutex_lock(m) (pthread_mutex_lock(m), zt_lock_note(m, true))
#define zt_mutex_unlock(m) (zt_lock_note(m, false), pthread_mutex_unlock(m))
#define zt_assert_held_named(m, name) zt_lock_check(m, name, ZT_LOCK_WHERE)
#else
#define zt_mutex_lock(m) pthread_mutex_lock(m)
#define zt_mutex_unlock(m) pthread_mutex_unlock(m)
#define zt_assert_held_named(m, name) ((void)(m))
#endif
#define zt_assert_held(m) zt_assert_held_named(m, #m)
#define zt_engine_assert_held(zt) zt_assert_held_named(&(zt)->lock, "the engine lock")

#ifdef ZT_LOCK_STATS
#define ZT_LOCK_SLOW_NS 50000ULL /* the handshake path's target hold time */

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
#define zt_engine_lock(zt)                                                                         \
	(zt_mutex_lock(&(zt)->lock), (zt)->lock_now = 0,                                           \
	 zt_lockstat_acquired(&(zt)->lockstat, ZT_LOCK_WHERE))
#define zt_engine_unlock_no_rearm(zt)                                                              \
	(zt_lockstat_released(&(zt)->lockstat), zt_mutex_unlock(&(zt)->lock))
#else
#define ZT_LOCKSTAT_DECL
#define zt_engine_lock(zt) (zt_mutex_lock(&(zt)->lock), (zt)->lock_now = 0)
#define zt_engine_unlock_no_rearm(zt) zt_mutex_unlock(&(zt)->lock)
#endif
#define zt_engine_unlock(zt) (zt_timers_changed(zt), zt_engine_unlock_no_rearm(zt))

#endif
