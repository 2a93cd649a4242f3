/* The engine's events as log lines, under the engine lock (never blocks).
 * Refusals come once per datagram: one line per kind per
 * EVENTLOG_INTERVAL_MS, the next telling how many were not logged. */
#ifndef ZT_EVENTLOG_H
#define ZT_EVENTLOG_H

#include <stddef.h>
#include <stdint.h>

#include "wg/wg.h"

enum {
	EVENTLOG_INTERVAL_MS = 5000,
	/* "peer(AbCd…WxYz)", as wireguard-go names a peer: never the whole key */
	EVENTLOG_PEER_CHARS = 4,
	EVENTLOG_PEER_NAME_LEN = 24,
};

/* The wg_io.event callback; ctx unused. */
void eventlog_event(void *ctx, const struct wg_event *ev);
/* "peer(" + first and last EVENTLOG_PEER_CHARS of the base64 key + ")". */
void eventlog_peer_name(char out[EVENTLOG_PEER_NAME_LEN], const uint8_t key[WG_PUBLIC_KEY_LEN]);

/* Rate limit of one kind (exposed for tests): true when a line is due at
 * now_ms; *suppressed is then the count not logged since the last line. */
struct eventlog_limit {
	uint64_t next_ms;
	uint64_t suppressed;
};
bool eventlog_limit_due(struct eventlog_limit *l, uint64_t now_ms, uint64_t *suppressed);

#endif
