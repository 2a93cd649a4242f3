#include "clock.h"

#include <errno.h>
#include <sys/timerfd.h>
#include <unistd.h>

enum { NS_PER_SEC = 1000000000 };

uint64_t zt_now_ns(void)
{
	return zt_clock_ns(ZT_CLOCK);
}

uint64_t zt_wall_ns(void)
{
	return zt_clock_ns(CLOCK_REALTIME);
}

int zt_alarm_open(void)
{
	int fd = timerfd_create(ZT_CLOCK, TFD_CLOEXEC | TFD_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

int zt_alarm_set(int fd, uint64_t deadline)
{
	struct itimerspec its = {0};

	if (deadline != ZT_ALARM_OFF) {
		/* all zero would disarm: a deadline at 0 is simply past */
		if (!deadline)
			deadline = 1;
		its.it_value.tv_sec = (time_t)(deadline / NS_PER_SEC);
		its.it_value.tv_nsec = (long)(deadline % NS_PER_SEC);
	}
	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ? -errno : 0;
}

void zt_alarm_ack(int fd)
{
	uint64_t expiries;

	/* EAGAIN: not expired (woken by something else) */
	(void)!read(fd, &expiries, sizeof(expiries));
}
