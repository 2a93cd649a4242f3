/* The services of the configuration file (see services.h). */
#include "services.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "conn.h"
#include "forward.h"
#include "http_front.h"
#include "log.h"
#include "proxy.h"
#include "socks_front.h"
#include "stdio_tunnel.h"
#include "udptunnel.h"

struct listener {
	struct loop_handler h;
	struct conn_owner owner;
	struct proxy *px;
	const struct proxy_listener *svc;
	int fd;
	struct conn *oldest, *newest; /* waiting for their request (and a few admitted since) */
	uint64_t retry_ms;	      /* out of descriptors: accept again then; 0: accepting */
	struct listener *next;
};

static void listener_unlink(struct listener *ls, struct conn *c)
{
	if (!c->older && ls->oldest != c)
		return; /* not in the list */
	*(c->older ? &c->older->newer : &ls->oldest) = c->newer;
	*(c->newer ? &c->newer->older : &ls->newest) = c->older;
	c->older = c->newer = NULL;
}

static void listener_ended(struct conn_owner *o, struct conn *c)
{
	struct listener *ls = (struct listener *)((char *)o - offsetof(struct listener, owner));

	listener_unlink(ls, c);
}

/* The oldest conn still waiting for its request, dropping the admitted
 * ones met on the way (the list is cleaned lazily). */
static struct conn *listener_oldest_waiting(struct listener *ls)
{
	while (ls->oldest && ls->oldest->admitted)
		listener_unlink(ls, ls->oldest);
	return ls->oldest;
}

static void listener_adopt(struct listener *ls, struct conn *c)
{
	if (!c || c->dead)
		return;
	c->owner = &ls->owner;
	ls->owner.n++;
	if (c->admitted)
		return;
	c->since_ms = zt_mono_ms();
	c->older = ls->newest;
	*(ls->newest ? &ls->newest->newer : &ls->oldest) = c;
	ls->newest = c;
}

static const struct conn_front *const fronts[] = {
    [PROXY_SOCKS5] = &socks_front,
    [PROXY_HTTP] = &http_front,
    [PROXY_TCP_CLIENT] = &forward_front,
};

static void listener_accept(struct loop *l, struct loop_handler *h, uint32_t events)
{
	struct listener *ls = (struct listener *)h;

	(void)events;
	for (int i = 0; i < PROXY_ACCEPT_BATCH; i++) {
		int fd = accept4(ls->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *oldest;

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE) {
				/* it would stay readable and spin the loop */
				log_err("proxy: accept: %s; %s:%u pauses", strerror(errno),
					ls->svc->bind.host, ls->svc->bind.port);
				loop_mod(l, ls->fd, &ls->h, 0);
				ls->retry_ms = zt_mono_ms() + PROXY_ACCEPT_RETRY_MS;
			}
			return;
		}
		if (ls->owner.n >= ls->owner.cap) {
			oldest = listener_oldest_waiting(ls);
			if (!oldest) {
				log_debug("proxy: %s:%u at its cap of %zu connections",
					  ls->svc->bind.host, ls->svc->bind.port, ls->owner.cap);
				close(fd);
				continue;
			}
			conn_close(oldest, true);
		}
		listener_adopt(ls, conn_new(ls->px, fd, fronts[ls->svc->kind], ls->svc));
	}
}

static int listener_open(struct proxy *px, const struct proxy_listener *svc, size_t cap)
{
	struct listener *ls = calloc(1, sizeof(*ls));
	int fd = ls ? proxy_bind(&svc->bind, SOCK_STREAM) : -ENOMEM;

	if (fd < 0) {
		free(ls);
		return fd;
	}
	ls->h.fn = listener_accept;
	ls->owner.ended = listener_ended;
	ls->px = px;
	ls->svc = svc;
	ls->fd = fd;
	ls->owner.cap = cap ? cap : 1;
	ls->next = px->listeners;
	px->listeners = ls;
	return loop_add(&px->loop, fd, &ls->h, EPOLLIN);
}

/* Each connection-making service's share of the descriptor limit, raised
 * to the hard one first (two descriptors per connection), as Go programs
 * (wireproxy) do. */
static size_t service_share(const struct proxy_conf *conf)
{
	struct rlimit rl = {.rlim_cur = 1024};
	size_t n = 0, fds;

	for (size_t i = 0; i < conf->n_listeners; i++)
		n += conf->listeners[i].kind != PROXY_UDP;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	fds = rl.rlim_cur > PROXY_FD_RESERVE + conf->n_listeners
		  ? rl.rlim_cur - PROXY_FD_RESERVE - conf->n_listeners
		  : 2;
	return n ? fds / n : fds;
}

static void service_log(const struct proxy_listener *svc)
{
	if (svc->kind == PROXY_TCP_SERVER)
		log_info("[%s] tunnel port %u -> %s:%u", svc->section, svc->listen_port,
			 svc->target.host, svc->target.port);
	else if (svc->kind == PROXY_STDIO)
		log_info("[%s] stdin and stdout -> %s:%u", svc->section, svc->target.host,
			 svc->target.port);
	else if (svc->target.port)
		log_info("[%s] on %s:%u -> %s:%u", svc->section, svc->bind.host, svc->bind.port,
			 svc->target.host, svc->target.port);
	else
		log_info("[%s] on %s:%u", svc->section, svc->bind.host, svc->bind.port);
}

int services_open(struct proxy *px, const char *file)
{
	size_t share = service_share(&px->conf);

	for (size_t i = 0; i < px->conf.n_listeners; i++) {
		const struct proxy_listener *svc = &px->conf.listeners[i];
		int ret;

		switch (svc->kind) {
		case PROXY_TCP_SERVER:
			ret = tcp_server_open(px, svc, share);
			break;
		case PROXY_UDP:
			ret = udp_tunnel_open(px, svc);
			break;
		case PROXY_STDIO:
			ret = stdio_tunnel_open(svc);
			break;
		default:
			ret = listener_open(px, svc, svc->kind == PROXY_SOCKS5 ? share / 2 : share);
			break;
		}
		if (ret) {
			fprintf(stderr, "%s:%u: [%s]: cannot listen: %s\n", file, svc->line,
				svc->section, strerror(-ret));
			return -1;
		}
		service_log(svc);
	}
	return 0;
}

/* Closes the connections past their deadline, listens again after a
 * pause; returns the milliseconds until the next of either. */
static uint64_t listener_tick(struct listener *ls, uint64_t now)
{
	struct conn *c;
	uint64_t next;

	if (ls->retry_ms && now >= ls->retry_ms) {
		ls->retry_ms = 0;
		loop_mod(&ls->px->loop, ls->fd, &ls->h, EPOLLIN);
	}
	while ((c = listener_oldest_waiting(ls)) &&
	       now - c->since_ms >= PROXY_REQUEST_DEADLINE_MS) {
		log_debug("proxy: a client on %s:%u sent no request in time", ls->svc->bind.host,
			  ls->svc->bind.port);
		conn_close(c, true);
	}
	next = c ? c->since_ms + PROXY_REQUEST_DEADLINE_MS - now : UINT64_MAX;
	if (ls->retry_ms && ls->retry_ms - now < next)
		next = ls->retry_ms - now;
	return next;
}

uint64_t services_tick(void *arg)
{
	struct proxy *px = arg;
	uint64_t next = udp_tunnel_sweep(px), mono = zt_mono_ms();

	for (struct listener *ls = px->listeners; ls; ls = ls->next) {
		uint64_t ms = listener_tick(ls, mono);

		if (ms < next)
			next = ms;
	}
	return next;
}
