#include "rnglog.h"

#include "log.h"

bool rnglog_due(const struct rnglog *r, uint64_t now_ms)
{
	return now_ms >= r->next_ms;
}

int rnglog_timeout_ms(const struct rnglog *r, uint64_t now_ms)
{
	return rnglog_due(r, now_ms) ? 0 : (int)(r->next_ms - now_ms);
}

uint64_t rnglog_update(struct rnglog *r, uint64_t dropped_total, uint64_t now_ms)
{
	uint64_t n = dropped_total > r->reported ? dropped_total - r->reported : 0;

	r->reported = dropped_total;
	r->next_ms = now_ms + RNGLOG_INTERVAL_MS;
	if (n)
		log_info("%llu handshake(s) dropped in the last %u s: the system RNG is not "
			 "seeded yet",
			 (unsigned long long)n, RNGLOG_INTERVAL_MS / 1000);
	return n;
}
