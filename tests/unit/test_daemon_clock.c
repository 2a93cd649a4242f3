/* The daemon's clock (daemon/clock.c) counts suspended time, and its timer
 * sleeps on that clock. A suspend makes CLOCK_BOOTTIME run ahead of
 * CLOCK_MONOTONIC by the time slept; a time namespace whose boot-time
 * offset is SUSPEND_SEC reproduces exactly that gap, so a child in it sees
 * the clocks as after a 10-minute suspend. Skipped (with a note) where
 * time namespaces are not available. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "../../daemon/clock.c"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

enum {
	SUSPEND_SEC = 600,
	ALARM_WAIT_MS = 10000, /* generous: the machine is shared */
	NOT_READY_MS = 100,
};
#define MS_NS 1000000ULL
#define SEC_NS 1000000000ULL

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC_NS + (uint64_t)ts.tv_nsec;
}

static int readable(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

/* The alarm goes off on the daemon's clock: a deadline 50 ms ahead fires
 * within seconds (on another clock it would be SUSPEND_SEC away), a past one
 * at once, an ack clears it, and OFF never fires. */
static void check_alarm(void)
{
	int fd = zt_alarm_open();

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(zt_alarm_set(fd, zt_now_ns() + 50 * MS_NS) == 0);
	CHECK(readable(fd, ALARM_WAIT_MS));
	zt_alarm_ack(fd);
	CHECK(!readable(fd, 0));
	CHECK(zt_alarm_set(fd, zt_now_ns() - SEC_NS) == 0);
	CHECK(readable(fd, ALARM_WAIT_MS));
	zt_alarm_ack(fd);
	CHECK(zt_alarm_set(fd, ZT_ALARM_OFF) == 0);
	CHECK(!readable(fd, NOT_READY_MS));
	close(fd);
}

/* In the child: the clocks as after a suspend of SUSPEND_SEC. */
static int after_suspend(void)
{
	uint64_t mono = mono_ns(), gap = zt_now_ns() - mono; /* mono first */

	CHECK(gap >= (uint64_t)SUSPEND_SEC * SEC_NS);
	check_alarm();
	return test_failures ? 1 : 0;
}

static bool enter_suspended_timens(void)
{
	char line[64];
	int fd, n;

	if (unshare(CLONE_NEWTIME) < 0)
		return false;
	fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = snprintf(line, sizeof(line), "boottime %d 0\n", SUSPEND_SEC);
	if (write(fd, line, (size_t)n) != n) {
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

int main(void)
{
	int status = 0;
	pid_t pid;

	/* Here too (no suspend): the clock reads BOOTTIME's value. */
	{
		struct timespec ts;
		uint64_t before, now, after;

		clock_gettime(CLOCK_BOOTTIME, &ts);
		before = (uint64_t)ts.tv_sec * SEC_NS + (uint64_t)ts.tv_nsec;
		now = zt_now_ns();
		clock_gettime(CLOCK_BOOTTIME, &ts);
		after = (uint64_t)ts.tv_sec * SEC_NS + (uint64_t)ts.tv_nsec;
		CHECK(before <= now && now <= after);
	}
	check_alarm();

	if (!enter_suspended_timens()) {
		printf("test_daemon_clock: no time namespace (%s): suspend part skipped\n",
		       strerror(errno));
		return test_finish("test_daemon_clock");
	}
	pid = fork();
	if (pid == 0)
		_exit(after_suspend());
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return test_finish("test_daemon_clock");
}
