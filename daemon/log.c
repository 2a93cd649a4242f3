/* One line per message, on stderr or in a file in wireguard-go's form, or
 * to a syslog socket connected once before the sandbox (syslog(3) would
 * reconnect, which seccomp forbids, and may block). */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define SYSLOG_PATH "/dev/log"
#define SYSLOG_IDENT "zinctun"

static enum log_level level = LOG_LEVEL_ERROR;
static char prefix[64];
static int syslog_fd = -1;
static int syslog_pid;
static int out_fd = STDERR_FILENO; /* where lines go without syslog */

void log_init(const char *ifname, enum log_level lvl)
{
	level = lvl;
	snprintf(prefix, sizeof(prefix), "(%s) ", ifname ? ifname : "");
}

enum log_level log_get_level(void)
{
	return level;
}

bool log_open_syslog(void)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX, .sun_path = SYSLOG_PATH};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return false;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		close(fd);
		return false;
	}
	syslog_fd = fd;
	syslog_pid = (int)getpid();
	return true;
}

int log_open_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);

	if (fd < 0)
		return -errno;
	out_fd = fd;
	return 0;
}

static void write_syslog(enum log_level lvl, const char *text, const struct tm *tm)
{
	static const int severity[] = {LOG_ERR, LOG_ERR, LOG_INFO, LOG_DEBUG};
	static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	char line[1200];
	int n =
	    snprintf(line, sizeof(line), "<%d>%s %2d %02d:%02d:%02d %s[%d]: %s%s",
		     LOG_DAEMON | severity[lvl], months[tm->tm_mon % 12], tm->tm_mday, tm->tm_hour,
		     tm->tm_min, tm->tm_sec, SYSLOG_IDENT, syslog_pid, prefix, text);

	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	/* never block a thread for the log: a full socket loses the line */
	(void)!send(syslog_fd, line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	static const char *const names[] = {"", "ERROR", "INFO", "DEBUG"};
	char text[1024], line[1200];
	struct tm tm;
	time_t now;
	va_list ap;
	int saved = errno;

	if (!log_enabled(lvl))
		return;
	now = time(NULL);
	localtime_r(&now, &tm);
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (syslog_fd >= 0)
		write_syslog(lvl, text, &tm);
	else {
		int n = snprintf(line, sizeof(line), "%s: %s%04d/%02d/%02d %02d:%02d:%02d %s\n",
				 names[lvl], prefix, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
				 tm.tm_hour, tm.tm_min, tm.tm_sec, text);

		if (n > 0 && (size_t)n >= sizeof(line)) /* cut: still one line */
			line[(n = sizeof(line) - 1) - 1] = '\n';
		/* one write per line so threads do not interleave inside a line */
		if (n > 0)
			(void)!write(out_fd, line, (size_t)n);
	}
	errno = saved;
}
