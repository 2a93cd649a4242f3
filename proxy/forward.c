/* Port forwards (see forward.h). */
#include "forward.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lwip/tcpip.h"

#include "endpoint.h"
#include "log.h"
#include "proxy.h"

static void forward_connected(struct conn *c, bool ok, err_t err)
{
	(void)err;
	if (ok)
		conn_relay(c);
	else
		log_debug("proxy: tunnel connection failed (lwIP error %d)", err);
}

/* admitted at once: a forward waits for no request (the client's bytes
 * wait in its socket until the splice) */
static void forward_opened(struct conn *c)
{
	const struct proxy_listener *svc = c->svc;

	if (conn_admit(c, NULL, 0))
		conn_connect_host(c, svc->target.host, svc->target.port);
}

const struct conn_front forward_front = {
    .opened = forward_opened,
    .connected = forward_connected,
    .configured = true,
};

/* A [TCPServerTunnel]: its Target resolved locally at start. */
struct tcp_server {
	struct conn_owner owner;
	struct proxy *px;
	union uapi_sockaddr target; /* an address literal or its first address */
};

static err_t tcp_server_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct tcp_server *ts = arg;
	struct conn *c = NULL;
	int fd = -1;

	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	if (ts->owner.n < ts->owner.cap)
		fd = socket(ts->target.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, &ts->target.sa, sizeof(ts->target)) < 0 &&
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

int tcp_server_open(struct proxy *px, const struct proxy_listener *svc, size_t cap)
{
	struct tcp_server *ts = calloc(1, sizeof(*ts));
	struct tcp_pcb *pcb, *lpcb;
	int ret = -ENOMEM;

	if (!ts)
		return -ENOMEM;
	ts->px = px;
	ts->owner.cap = cap;
	if (endpoint_lookup(svc->target.host, svc->target.port, &ts->target, 1) <= 0) {
		free(ts);
		return -EHOSTUNREACH;
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
		return ret;
	}
	return 0;
}
