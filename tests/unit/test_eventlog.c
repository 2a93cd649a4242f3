/* daemon/eventlog.c: peers named as wireguard-go names them (never the
 * whole key), the endpoint shown, the level honoured, and the rate limit of
 * refused-message lines with its count of lines not logged. */
#include "test.h"

#include "../../daemon/base64.c"
#include "../../daemon/eventlog.c"
#include "../../daemon/log.c"
#include "../../daemon/uapi_parse.c"

#include <arpa/inet.h>
#include <stdio.h>
#include <unistd.h>

static uint8_t key[WG_PUBLIC_KEY_LEN];
static FILE *out;

/* Runs one event and returns what was logged (stderr is a temp file). */
static const char *logged(const struct wg_event *ev)
{
	static char buf[4096];
	size_t n;

	rewind(out);
	(void)!ftruncate(fileno(out), 0);
	eventlog_event(NULL, ev);
	fflush(stderr);
	rewind(out);
	n = fread(buf, 1, sizeof(buf) - 1, out);
	buf[n] = '\0';
	return buf;
}

static void test_peer_name(void)
{
	char name[EVENTLOG_PEER_NAME_LEN];

	/* base64 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8= */
	eventlog_peer_name(name, key);
	CHECK(!strcmp(name, "peer(AAEC\u2026dHh8)"));
}

static void test_lines(void)
{
	struct wg_endpoint ep;
	struct wg_event ev = {
	    .kind = WG_EVENT_HANDSHAKE_RETRY, .public_key = key, .endpoint = &ep, .attempt = 1};
	const char *s;

	memset(&ep, 0, sizeof(ep));
	ep.addr.in4.sin_family = AF_INET;
	ep.addr.in4.sin_port = htons(51820);
	inet_pton(AF_INET, "10.99.0.2", &ep.addr.in4.sin_addr);
	ev.peer = (struct wg_peer *)&ev; /* any non-NULL: a peer's event */
	level = LOG_LEVEL_INFO;
	s = logged(&ev);
	CHECK(strstr(s, "INFO: ") &&
	      strstr(s, "peer(AAEC\u2026dHh8) - Handshake did not complete"));
	CHECK(strstr(s, "(try 2)") && strstr(s, "endpoint 10.99.0.2:51820"));
	CHECK(!strstr(s, "AAECAwQF"));
	/* a debug event at info: nothing */
	ev.kind = WG_EVENT_INITIATION_SENT;
	CHECK(!*logged(&ev));
	level = LOG_LEVEL_DEBUG;
	CHECK(strstr(logged(&ev), "Sending handshake initiation"));
}

static void test_rate_limit(void)
{
	struct wg_event ev = {.kind = WG_EVENT_BAD_MAC1};
	struct eventlog_limit l = {0};
	uint64_t n = 99;
	const char *s;

	CHECK(eventlog_limit_due(&l, 1000, &n) && n == 0);
	CHECK(!eventlog_limit_due(&l, 1001, &n));
	CHECK(!eventlog_limit_due(&l, 1000 + EVENTLOG_INTERVAL_MS - 1, &n));
	CHECK(eventlog_limit_due(&l, 1000 + EVENTLOG_INTERVAL_MS, &n) && n == 2);
	/* through the handler: the first line at once, the next ones counted */
	level = LOG_LEVEL_INFO;
	s = logged(&ev);
	CHECK(strstr(s, "invalid mac1") && !strstr(s, "more since"));
	for (int i = 0; i < 10; i++)
		CHECK(!*logged(&ev));
	limits[WG_EVENT_BAD_MAC1].next_ms = 1; /* as if the interval were over */
	CHECK(strstr(logged(&ev), "(10 more since the last such line)"));
}

int main(void)
{
	for (int i = 0; i < WG_PUBLIC_KEY_LEN; i++)
		key[i] = (uint8_t)i;
	out = tmpfile();
	CHECK(out != NULL);
	if (!out || dup2(fileno(out), STDERR_FILENO) < 0)
		return 1;
	test_peer_name();
	test_lines();
	test_rate_limit();
	level = LOG_LEVEL_ERROR;
	return test_finish("test_eventlog");
}
