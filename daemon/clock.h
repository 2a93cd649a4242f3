/* Protocol ages and deadlines are on CLOCK_BOOTTIME, which counts through
 * a suspend (as the Linux module), so stale keys are never used after a
 * resume; the timer sleeps on a timerfd (a condvar cannot wait on it).
 * CLOCK_REALTIME: the last-handshake time only. */
#ifndef ZT_CLOCK_H
#define ZT_CLOCK_H

#include <stdint.h>
#include <time.h>

#define ZT_CLOCK CLOCK_BOOTTIME
#define ZT_ALARM_OFF UINT64_MAX

static inline uint64_t zt_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ZT_CLOCK in nanoseconds (the engine's env.now_ns). */
uint64_t zt_now_ns(void);
/* CLOCK_REALTIME in nanoseconds (the engine's env.wall_ns). */
uint64_t zt_wall_ns(void);

/* CLOCK_MONOTONIC, for the daemon's own intervals that a suspend may
 * stretch (client timeouts, log rate limits, GSO path retries). */
static inline uint64_t zt_mono_ns(void)
{
	return zt_clock_ns(CLOCK_MONOTONIC);
}

static inline uint64_t zt_mono_ms(void)
{
	return zt_mono_ns() / 1000000;
}

/* A non-blocking timerfd on ZT_CLOCK; -errno on failure. */
int zt_alarm_open(void);
/* Readable once ZT_CLOCK reaches deadline (absolute ns, at once if past);
 * ZT_ALARM_OFF disarms. Replaces any earlier setting. */
int zt_alarm_set(int fd, uint64_t deadline);
/* Consumes an expiry so the descriptor is no longer readable. */
void zt_alarm_ack(int fd);

#endif
