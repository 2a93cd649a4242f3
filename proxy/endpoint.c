/* Named Endpoints followed while handshakes fail (see endpoint.h). */
#include "endpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "eventlog.h"
#include "host.h"
#include "log.h"
#include "proxy.h"
#include "sandbox.h"

enum {
	EP_RETRY = 1, /* engine events, gathered for the main thread */
	EP_GIVEUP = 2,
	EP_DONE = 4,
	EP_HELPER_FD = 3, /* the helper's end of the socket pair */
};

struct ep_request {
	char host[PROXY_HOST_MAX + 1];
	uint16_t port;
};

struct ep_answer {
	int n;
	union uapi_sockaddr addrs[PROXY_ENDPOINT_ADDRS];
};

struct named {
	uint8_t pub[WG_PUBLIC_KEY_LEN];
	struct ep_request req;
	atomic_uint events; /* EP_*: set under the engine lock */
	union uapi_sockaddr addrs[PROXY_ENDPOINT_ADDRS];
	int n, tried; /* addresses known, tried since the lookup */
	uint64_t looked_ms;
	bool want;	  /* a lookup, when the helper is free */
	bool retry_asked; /* the engine's, under its lock: a retry not yet sent */
};

static struct {
	struct named *v;
	size_t n;
	int sock, wake;	      /* to the helper; eventfd from on_event */
	struct named *asking; /* whose lookup the helper runs */
} eps = {.sock = -1, .wake = -1};

extern char **environ;

int endpoint_lookup(const char *host, uint16_t port, union uapi_sockaddr *out, int max)
{
	struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *ai, *a;
	char ps[8];
	int n = 0, ret;

	snprintf(ps, sizeof(ps), "%u", port);
	ret = getaddrinfo(host, ps, &hints, &ai);
	if (ret)
		return ret < 0 ? ret : -ret;
	for (a = ai; a && n < max; a = a->ai_next) {
		if (a->ai_family != AF_INET && a->ai_family != AF_INET6)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		memcpy(&out[n], a->ai_addr,
		       a->ai_addrlen < sizeof(out[n]) ? a->ai_addrlen : sizeof(out[n]));
		/* the address and port only, as wg(8) would pass them */
		if (a->ai_family == AF_INET6)
			out[n].in6.sin6_flowinfo = out[n].in6.sin6_scope_id = 0;
		n++;
	}
	freeaddrinfo(ai);
	return n;
}

int endpoint_watch(const uint8_t pub[WG_PUBLIC_KEY_LEN], const char *host, uint16_t port)
{
	struct named *v = realloc(eps.v, (eps.n + 1) * sizeof(*v)), *e;

	if (!v)
		return -ENOMEM;
	eps.v = v;
	e = memset(&v[eps.n++], 0, sizeof(*e));
	memcpy(e->pub, pub, WG_PUBLIC_KEY_LEN);
	snprintf(e->req.host, sizeof(e->req.host), "%s", host);
	e->req.port = port;
	atomic_init(&e->events, 0);
	return 0;
}

/* Under the engine lock, in any thread: only notes what happened. A retry
 * counts once its initiation has gone out (the handshake thread sends it
 * after the timer asked for it): switching the endpoint earlier would send
 * that retry to the next address instead of the one it retries. */
static unsigned event_bit(struct named *e, const struct wg_event *ev)
{
	switch (ev->kind) {
	case WG_EVENT_HANDSHAKE_RETRY:
		e->retry_asked = true; /* under the engine lock, as its reader */
		return 0;
	case WG_EVENT_INITIATION_SENT:
		return e->retry_asked ? (e->retry_asked = false, EP_RETRY) : 0;
	case WG_EVENT_HANDSHAKE_GIVEUP:
		return EP_GIVEUP;
	case WG_EVENT_HANDSHAKE_COMPLETE:
		return EP_DONE;
	default:
		return 0;
	}
}

static void on_event(const struct wg_event *ev)
{
	uint64_t one = 1;

	for (size_t i = 0; ev->public_key && i < eps.n; i++) {
		unsigned bit;

		if (memcmp(eps.v[i].pub, ev->public_key, WG_PUBLIC_KEY_LEN))
			continue;
		bit = event_bit(&eps.v[i], ev);
		if (!bit)
			continue;
		atomic_fetch_or(&eps.v[i].events, bit);
		if (write(eps.wake, &one, sizeof(one)) < 0)
			log_debug("endpoint: wake: %s", strerror(errno));
	}
}

int endpoint_start(struct host *h)
{
	char *argv[] = {"zinctun-proxy", ENDPOINT_HELPER_ARG, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int sv[2], ret;
	pid_t pid;

	if (!eps.n)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], EP_HELPER_FD);
	/* not the signals the main loop takes through its signalfd */
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	/* the program itself, whatever path started it */
	ret = -posix_spawn(&pid, "/proc/self/exe", &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	eps.wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!ret && (eps.wake < 0 || fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0))
		ret = -errno;
	if (ret) {
		close(sv[0]);
		return ret;
	}
	eps.sock = sv[0];
	h->zt.on_event = on_event;
	return 0;
}

size_t endpoint_pollfds(struct host *h, struct pollfd *pfd)
{
	(void)h;
	if (eps.sock < 0)
		return 0;
	pfd[0] = (struct pollfd){.fd = eps.wake, .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = eps.sock, .events = POLLIN};
	return 2;
}

static bool same_addr(const union uapi_sockaddr *a, const struct sockaddr *b)
{
	return a->sa.sa_family == b->sa_family &&
	       !memcmp(a, b, a->sa.sa_family == AF_INET ? sizeof(a->in4) : sizeof(a->in6));
}

/* After the address at (e->n: none of the list), another family first. */
static int next_addr(const struct named *e, int at)
{
	if (at == e->n)
		return 0;
	for (int k = 1; k < e->n; k++)
		if (e->addrs[(at + k) % e->n].sa.sa_family != e->addrs[at].sa.sa_family)
			return (at + k) % e->n;
	return (at + 1) % e->n;
}

/* Points the peer at the next address of its name. */
static void try_next(struct zt_runtime *zt, struct named *e)
{
	struct wg_peer_info info = {0};
	struct wg_endpoint ep = {0};
	char who[EVENTLOG_PEER_NAME_LEN], where[INET6_ADDRSTRLEN + sizeof("[]:65535")];
	struct wg_peer *p;
	int at = 0, pick = -1;

	zt_engine_lock(zt);
	p = wg_device_peer_lookup(zt->dev, e->pub);
	if (p) {
		wg_peer_get_info(p, &info);
		while (at < e->n &&
		       !(info.has_endpoint && same_addr(&e->addrs[at], &info.endpoint.addr.sa)))
			at++;
		pick = next_addr(e, at);
		memcpy(&ep.addr, &e->addrs[pick], sizeof(e->addrs[pick]));
		if (pick != at)
			wg_peer_set_endpoint(p, &ep);
	}
	zt_engine_unlock(zt);
	if (pick < 0 || pick == at)
		return;
	e->tried = e->tried + 1 < e->n ? e->tried + 1 : 0; /* a full round: again */
	eventlog_peer_name(who, e->pub);
	if (uapi_format_endpoint(where, sizeof(where), &e->addrs[pick].sa))
		log_info("%s - Endpoint %s: trying %s (addresses known: %d)", who, e->req.host,
			 where, e->n);
}

static void ask_next(void)
{
	for (size_t i = 0; !eps.asking && i < eps.n; i++) {
		if (!eps.v[i].want)
			continue;
		eps.v[i].want = false;
		if (write(eps.sock, &eps.v[i].req, sizeof(eps.v[i].req)) == sizeof(eps.v[i].req))
			eps.asking = &eps.v[i];
	}
}

static void take_answer(struct zt_runtime *zt)
{
	struct ep_answer a;
	struct named *e = eps.asking;

	if (read(eps.sock, &a, sizeof(a)) != sizeof(a) || !e)
		return;
	eps.asking = NULL;
	e->looked_ms = zt_mono_ms();
	if (a.n <= 0) {
		log_info("Endpoint %s: %s", e->req.host, a.n ? gai_strerror(a.n) : "no address");
		return;
	}
	memcpy(e->addrs, a.addrs, sizeof(a.addrs));
	e->n = a.n;
	e->tried = 0;
	try_next(zt, e);
}

/* At a failed retry: no list yet, or a whole round of it failed and the
 * last lookup is old enough. */
static bool lookup_due(const struct named *e)
{
	return !e->n || (!e->tried && zt_mono_ms() - e->looked_ms >= PROXY_ENDPOINT_LOOKUP_MS);
}

bool endpoint_handle(struct host *h, const struct pollfd *pfd)
{
	uint64_t v;

	if (pfd[0].revents && read(eps.wake, &v, sizeof(v)) < 0)
		log_debug("endpoint: wake: %s", strerror(errno));
	if (pfd[1].revents & POLLIN) {
		take_answer(&h->zt);
	} else if (pfd[1].revents) { /* no more lookups; the names stay as they are */
		log_err("endpoint: the lookup helper is gone");
		close(eps.sock);
		eps.sock = -1;
		return true;
	}
	for (size_t i = 0; i < eps.n; i++) {
		struct named *e = &eps.v[i];
		unsigned ev = atomic_exchange(&e->events, 0);

		if (ev & EP_DONE) { /* the list is looked up afresh at the next failure */
			e->n = e->tried = 0;
			e->want = false;
			continue;
		}
		if ((ev & EP_GIVEUP) || ((ev & EP_RETRY) && lookup_due(e)))
			e->want = true;
		else if (ev & EP_RETRY)
			try_next(&h->zt, e);
	}
	ask_next();
	return true;
}

int endpoint_helper(void)
{
	struct zt_sandbox_config cfg = {.profile = ZT_SANDBOX_PROXY};
	struct ep_request q;
	char err[256];

	if (zt_sandbox_drop(&cfg, err, sizeof(err))) {
		fprintf(stderr, "zinctun-proxy: endpoint helper: %s\n", err);
		return 1;
	}
	while (read(EP_HELPER_FD, &q, sizeof(q)) == sizeof(q)) {
		struct ep_answer a = {0};

		q.host[PROXY_HOST_MAX] = '\0';
		a.n = endpoint_lookup(q.host, q.port, a.addrs, PROXY_ENDPOINT_ADDRS);
		if (write(EP_HELPER_FD, &a, sizeof(a)) != sizeof(a))
			break;
	}
	return 0;
}
