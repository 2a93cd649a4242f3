/* Logging, filtered by a level (LOG_LEVEL): to stderr, to a file once
 * log_open_file() opened it (--log-file), or to syslog once
 * log_open_syslog() connected (a daemon in the background). */
#ifndef ZT_LOG_H
#define ZT_LOG_H

#include <stdbool.h>

enum log_level {
	LOG_LEVEL_SILENT = 0,
	LOG_LEVEL_ERROR = 1,
	LOG_LEVEL_INFO = 2,
	LOG_LEVEL_DEBUG = 3,
};

/* The level (LOG_LEVEL, parsed by cli.c) and the interface name each line
 * carries. */
void log_init(const char *ifname, enum log_level level);
enum log_level log_get_level(void);
static inline bool log_enabled(enum log_level lvl)
{
	return lvl != LOG_LEVEL_SILENT && lvl <= log_get_level();
}
/* Connects to the system log (/dev/log) for every later line; call it
 * before the sandbox forbids connect(). False (stderr stays) if none. */
bool log_open_syslog(void);
/* Appends every later line to path, opened now (before the sandbox forbids
 * open(); never reopened: rotate with copytruncate). 0 or a negative errno. */
int log_open_file(const char *path);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
/* the arguments are not even evaluated below debug level */
#define log_debug(...)                                                                             \
	(log_get_level() >= LOG_LEVEL_DEBUG ? log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__) : (void)0)

#endif
