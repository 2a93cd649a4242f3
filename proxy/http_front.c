/* [http]: CONNECT and plain (absolute-form) requests through
 * proxy/httpproxy.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "httpproxy.h"
#include "log.h"
#include "proxy.h"

struct http_fe {
	size_t len;
	bool tunnel; /* CONNECT: answer 200 once connected */
	char head[HTTPP_HEAD_MAX];
	char out[HTTPP_OUT_MAX];
};

static void http_reply(struct conn *c, int status)
{
	const char *r = http_proxy_response(status);

	conn_send_host(c, r, strlen(r));
}

static void http_connected(struct conn *c, bool ok, err_t err)
{
	struct http_fe *fe = c->fe;

	if (!ok) {
		http_reply(c, err == ERR_TIMEOUT ? 504 : 502);
		return;
	}
	if (fe->tunnel)
		http_reply(c, 200);
	/* the head buffers (32 KiB) are not needed once spliced */
	free(c->fe);
	c->fe = NULL;
	conn_relay(c);
}

static void http_readable(struct conn *c)
{
	const struct proxy_listener *svc = c->svc;
	struct http_fe *fe = c->fe;
	struct http_proxy_req req;
	ssize_t r = recv(c->fd, fe->head + fe->len, sizeof(fe->head) - fe->len, MSG_DONTWAIT);

	if (r <= 0) {
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			conn_close(c, false);
		return;
	}
	fe->len += (size_t)r;
	http_proxy_parse(fe->head, fe->len, svc->has_auth ? svc->username : NULL,
			 svc->has_auth ? svc->password : NULL, &req, fe->out, sizeof(fe->out));
	switch (req.action) {
	case HTTPP_MORE:
		if (fe->len < sizeof(fe->head))
			return;
		http_reply(c, 431);
		conn_close(c, false);
		return;
	case HTTPP_REJECT:
		http_reply(c, req.status);
		conn_close(c, false);
		return;
	case HTTPP_TUNNEL:
		fe->tunnel = true;
		if (conn_set_early(c, fe->head + req.used, fe->len - req.used))
			break;
		conn_want(c, 0);
		conn_connect_host(c, req.host, req.port);
		return;
	case HTTPP_FORWARD: {
		/* the rewritten head, then what followed it */
		size_t rest = fe->len - req.used;

		if (req.out_len + rest > sizeof(fe->out))
			break;
		memcpy(fe->out + req.out_len, fe->head + req.used, rest);
		if (conn_set_early(c, fe->out, req.out_len + rest))
			break;
		conn_want(c, 0);
		conn_connect_host(c, req.host, req.port);
		return;
	}
	}
	conn_close(c, true);
}

static const struct conn_front http_front = {
    .readable = http_readable,
    .connected = http_connected,
};

void http_accepted(struct proxy *px, int fd, const struct proxy_listener *svc)
{
	struct http_fe *fe = malloc(sizeof(*fe));
	struct conn *c;

	if (!fe) {
		close(fd);
		return;
	}
	fe->len = 0;
	fe->tunnel = false;
	c = conn_new(px, fd, &http_front, svc);
	if (!c) {
		free(fe);
		return;
	}
	c->fe = fe;
}
