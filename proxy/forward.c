/* Port forwards (see forward.h). */
#include "forward.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lwip/tcpip.h"

#include "addr.h"
#include "log.h"
#include "proxy.h"

static void forward_readable(struct conn *c)
{
	(void)c; /* nothing is read before the splice */
}

static void forward_connected(struct conn *c, bool ok, err_t err)
{
	(void)err;
	if (ok)
		conn_relay(c);
	else
		log_debug("proxy: tunnel connection failed (lwIP error %d)", err);
}

/* admitted at once: a forward waits for no request */
static void forward_opened(struct conn *c)
{
	const struct proxy_listener *svc = c->svc;

	c->admitted = true;
	conn_want(c, 0); /* the client's bytes wait in its socket until the splice */
	conn_connect_host(c, svc->target.host, svc->target.port);
}

const struct conn_front forward_front = {
    .opened = forward_opened,
    .readable = forward_readable,
    .connected = forward_connected,
    .configured = true,
};

/* A [TCPServerTunnel]: its Target resolved locally at start. */
struct tcp_server {
	struct conn_owner owner;
	struct proxy *px;
	struct sockaddr_storage target;
	socklen_t target_len;
};

static err_t tcp_server_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct tcp_server *ts = arg;
	struct conn *c = NULL;
	int fd = -1;

	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	if (ts->owner.n < ts->owner.cap)
		fd = socket(ts->target.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&ts->target, ts->target_len) < 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 || !(c = conn_new_accepted(ts->px, pcb, fd))) {
		if (fd >= 0)
			close(fd);
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	c->owner = &ts->owner;
	c->admitted = true;
	ts->owner.n++;
	return ERR_OK;
}

static int resolve_local(const struct proxy_hostport *hp, struct sockaddr_storage *ss,
			 socklen_t *len)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
	char port[8];

	if (hp->is_ip) {
		*len = proxy_sockaddr(hp, ss);
		return 0;
	}
	snprintf(port, sizeof(port), "%u", hp->port);
	if (getaddrinfo(hp->host, port, &hints, &ai))
		return -EHOSTUNREACH;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

int tcp_server_open(struct proxy *px, const struct proxy_listener *svc, size_t cap)
{
	struct tcp_server *ts = calloc(1, sizeof(*ts));
	struct tcp_pcb *pcb, *lpcb;
	int ret;

	if (!ts)
		return -ENOMEM;
	ts->px = px;
	ts->owner.cap = cap;
	ret = resolve_local(&svc->target, &ts->target, &ts->target_len);
	if (ret) {
		free(ts);
		return ret;
	}
	LOCK_TCPIP_CORE();
	pcb = tcp_new_ip_type(IPADDR_TYPE_ANY);
	if (pcb && tcp_bind(pcb, IP_ANY_TYPE, svc->listen_port) != ERR_OK) {
		tcp_abort(pcb);
		pcb = NULL;
		ret = -EADDRINUSE;
	}
	lpcb = pcb ? tcp_listen_with_backlog(pcb, PROXY_CONNECT_BACKLOG) : NULL;
	if (lpcb) {
		tcp_arg(lpcb, ts);
		tcp_accept(lpcb, tcp_server_accept);
	}
	UNLOCK_TCPIP_CORE();
	if (!lpcb) {
		free(ts);
		return ret ? ret : -ENOMEM;
	}
	return 0;
}
