/* Handshakes dropped while the RNG is unseeded (early boot): one info line
 * per interval at most, with the count since the last. */
#ifndef ZT_RNGLOG_H
#define ZT_RNGLOG_H

#include <stdbool.h>
#include <stdint.h>

enum { RNGLOG_INTERVAL_MS = 10000 };

struct rnglog {
	uint64_t next_ms;  /* next check; 0: not started */
	uint64_t reported; /* engine counter value at the last check */
};

/* Milliseconds until the next check is due (for a poll timeout). */
int rnglog_timeout_ms(const struct rnglog *r, uint64_t now_ms);
bool rnglog_due(const struct rnglog *r, uint64_t now_ms);
/* dropped_total: wg_device_stats.handshakes_dropped_rng now. Logs when it
 * grew since the last check; returns the number reported (0: no line). */
uint64_t rnglog_update(struct rnglog *r, uint64_t dropped_total, uint64_t now_ms);

#endif
