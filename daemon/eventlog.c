/* Engine events to log lines (see eventlog.h). */
#include "eventlog.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base64.h"
#include "clock.h"
#include "log.h"
#include "uapi_parse.h"

enum { ENDPOINT_TEXT_LEN = 80 };

struct event_format {
	enum log_level level;
	bool limited; /* one line per EVENTLOG_INTERVAL_MS */
	const char *text;
};

static const struct event_format formats[WG_EVENT_KIND_COUNT] = {
    [WG_EVENT_INITIATION_SENT] = {LOG_LEVEL_DEBUG, false, "Sending handshake initiation"},
    [WG_EVENT_HANDSHAKE_RETRY] = {LOG_LEVEL_INFO, false,
				  "Handshake did not complete after 5 seconds, retrying"},
    [WG_EVENT_HANDSHAKE_GIVEUP] = {LOG_LEVEL_INFO, false,
				   "Handshake did not complete after 90 seconds, giving up"},
    [WG_EVENT_INITIATION_RECEIVED] = {LOG_LEVEL_DEBUG, false,
				      "Received handshake initiation, sending response"},
    [WG_EVENT_RESPONSE_RECEIVED] = {LOG_LEVEL_DEBUG, false, "Received handshake response"},
    [WG_EVENT_HANDSHAKE_COMPLETE] = {LOG_LEVEL_DEBUG, false, "Handshake completed"},
    [WG_EVENT_KEYPAIR_ROTATED] = {LOG_LEVEL_DEBUG, false, "New keypair in use"},
    [WG_EVENT_PEER_ADDED] = {LOG_LEVEL_DEBUG, false, "Peer added"},
    [WG_EVENT_PEER_REMOVED] = {LOG_LEVEL_DEBUG, false, "Peer removed"},
    [WG_EVENT_ENDPOINT_CHANGED] = {LOG_LEVEL_INFO, false, "Endpoint changed (roaming)"},
    [WG_EVENT_UNKNOWN_PEER] = {LOG_LEVEL_INFO, true,
			       "Handshake initiation from a public key no peer has"},
    [WG_EVENT_BAD_MAC1] = {LOG_LEVEL_INFO, true,
			   "Handshake message with an invalid mac1 (not for our public key)"},
    [WG_EVENT_COOKIE_SENT] = {LOG_LEVEL_INFO, true,
			      "Under load: sent a cookie reply instead of an answer"},
    [WG_EVENT_RNG_UNSEEDED] = {LOG_LEVEL_DEBUG, true,
			       "Handshake message dropped: the system RNG is not seeded yet"},
    /* the engine reports it once a minute per peer */
    [WG_EVENT_ROUTING_LOOP] =
	{LOG_LEVEL_ERROR, false,
	 "Routing loop: packets to this peer's endpoint are routed into the "
	 "tunnel, or WireGuard in it nests too deep (a loop through another "
	 "tunnel), dropped; route the endpoints outside the tunnels (a route "
	 "via the underlay, or an fwmark on the socket with a rule that keeps "
	 "marked packets out of the tunnel, as wg-quick sets up)"},
};

/* Touched only under the engine lock, which every event comes with. */
static struct eventlog_limit limits[WG_EVENT_KIND_COUNT];

bool eventlog_limit_due(struct eventlog_limit *l, uint64_t now_ms, uint64_t *suppressed)
{
	if (l->next_ms && now_ms < l->next_ms) {
		l->suppressed++;
		return false;
	}
	*suppressed = l->suppressed;
	l->suppressed = 0;
	l->next_ms = now_ms + EVENTLOG_INTERVAL_MS;
	return true;
}

void eventlog_peer_name(char out[EVENTLOG_PEER_NAME_LEN], const uint8_t key[WG_PUBLIC_KEY_LEN])
{
	char b64[BASE64_KEY_LEN + 1];

	base64_encode_key(b64, key);
	/* the last character is padding: end before it, as wireguard-go does */
	snprintf(out, EVENTLOG_PEER_NAME_LEN, "peer(%.*s\u2026%.*s)", EVENTLOG_PEER_CHARS, b64,
		 EVENTLOG_PEER_CHARS, b64 + BASE64_KEY_LEN - 1 - EVENTLOG_PEER_CHARS);
}

void eventlog_event(void *ctx, const struct wg_event *ev)
{
	const struct event_format *f;
	enum log_level level;
	char who[EVENTLOG_PEER_NAME_LEN] = "", where[ENDPOINT_TEXT_LEN] = "", extra[64] = "";
	uint64_t suppressed = 0;

	(void)ctx;
	if ((unsigned)ev->kind >= WG_EVENT_KIND_COUNT)
		return;
	f = &formats[ev->kind];
	/* the tunnel coming up is worth a line at info; a rekey is not */
	level = ev->kind == WG_EVENT_HANDSHAKE_COMPLETE && ev->fresh ? LOG_LEVEL_INFO : f->level;
	if (!log_enabled(level))
		return;
	if (f->limited && !eventlog_limit_due(&limits[ev->kind], zt_mono_ms(), &suppressed))
		return;
	if (ev->public_key)
		eventlog_peer_name(who, ev->public_key);
	if (ev->endpoint && !uapi_format_endpoint(where, sizeof(where), &ev->endpoint->addr.sa))
		where[0] = '\0';
	if ((ev->kind == WG_EVENT_INITIATION_SENT && ev->attempt) ||
	    ev->kind == WG_EVENT_HANDSHAKE_RETRY)
		snprintf(extra, sizeof(extra), " (try %u)", ev->attempt + 1);
	else if (ev->kind == WG_EVENT_ROUTING_LOOP)
		snprintf(extra, sizeof(extra), " (%u dropped)", ev->attempt);
	else if (ev->kind == WG_EVENT_HANDSHAKE_COMPLETE || ev->kind == WG_EVENT_KEYPAIR_ROTATED)
		snprintf(extra, sizeof(extra), " (%s)", ev->initiator ? "initiator" : "responder");
	else if (suppressed)
		snprintf(extra, sizeof(extra), " (%llu more since the last such line)",
			 (unsigned long long)suppressed);
	log_msg(level, "%s%s%s%s%s%s", who, who[0] ? " - " : "", f->text, extra,
		where[0] ? (ev->peer ? " - endpoint " : " - from ") : "", where);
}
