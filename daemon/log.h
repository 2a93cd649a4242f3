/* Logging to stderr, filtered by LOG_LEVEL (error, info, debug). */
#ifndef ZT_LOG_H
#define ZT_LOG_H

enum log_level {
	LOG_LEVEL_SILENT = 0,
	LOG_LEVEL_ERROR = 1,
	LOG_LEVEL_INFO = 2,
	LOG_LEVEL_DEBUG = 3,
};

/* Reads LOG_LEVEL from the environment (default: error). */
void log_init(const char *ifname);
enum log_level log_get_level(void);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...)                                                                             \
	do {                                                                                       \
		if (log_get_level() >= LOG_LEVEL_DEBUG)                                            \
			log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__);                                     \
	} while (0)

#endif
