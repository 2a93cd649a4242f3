/* What zinctun-proxy serves about itself over HTTP, on the daemon's
 * metrics server (daemon/metrics.h):
 *   --metrics ADDR  the daemon's Prometheus text at /metrics;
 *   -i ADDR         wireproxy's health endpoint: /metrics is the
 *                   configuration socket's get (keys REDACTED), /readyz is
 *                   200 while every [Interface] CheckAlive address answered
 *                   a ping within CheckAliveInterval + 2 s, else 503; its
 *                   body is the last pong times, {"ADDR":UNIX-SECONDS,...}.
 * The pings (ICMP echo through the tunnel, every CheckAliveInterval) run
 * on lwIP's timer thread whether or not -i is given, as wireproxy's do. */
#ifndef ZTP_HEALTH_H
#define ZTP_HEALTH_H

#include <stdint.h>

#include "metrics.h"
#include "proxy_limits.h"

struct proxy;
struct zt_options;
struct zt_runtime;

struct health {
	struct metrics info, prom; /* -i, --metrics */
	const struct proxy_interface *ifc;
	struct raw_pcb *raw4, *raw6;
	uint16_t seq;					/* of the last round; its echo id is ours */
	uint64_t last_pong[PROXY_CONF_MAX_CHECK_ALIVE]; /* wall seconds, atomic */
};

/* Before the sandbox (after -d's fork): binds both listeners; an error
 * is on stderr, returns 1. */
int health_open(struct health *hl, const struct proxy *px, const struct zt_options *opt);
/* Once the stack sends: their threads and the first pings. */
int health_start(struct health *hl, struct zt_runtime *zt);
/* Before the data path stops. */
void health_stop(struct health *hl);

#endif
