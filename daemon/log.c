/* Logging: one line per message, "LEVEL: (ifname) YYYY/MM/DD hh:mm:ss text". */
#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static enum log_level level = LOG_LEVEL_ERROR;
static char prefix[64];

void log_init(const char *ifname)
{
	const char *env = getenv("LOG_LEVEL");

	if (env) {
		if (!strcmp(env, "debug") || !strcmp(env, "verbose"))
			level = LOG_LEVEL_DEBUG;
		else if (!strcmp(env, "info"))
			level = LOG_LEVEL_INFO;
		else if (!strcmp(env, "error"))
			level = LOG_LEVEL_ERROR;
		else if (!strcmp(env, "silent"))
			level = LOG_LEVEL_SILENT;
	}
	snprintf(prefix, sizeof(prefix), "(%s) ", ifname ? ifname : "");
}

enum log_level log_get_level(void)
{
	return level;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	static const char *const names[] = {"", "ERROR", "INFO", "DEBUG"};
	char line[1024];
	struct tm tm;
	time_t now;
	va_list ap;
	int n;

	if (lvl > level || lvl == LOG_LEVEL_SILENT)
		return;
	now = time(NULL);
	localtime_r(&now, &tm);
	n = snprintf(line, sizeof(line), "%s: %s%04d/%02d/%02d %02d:%02d:%02d ", names[lvl], prefix,
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		     tm.tm_sec);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	/* one write per line so threads do not interleave inside a line */
	fprintf(stderr, "%s\n", line);
}
