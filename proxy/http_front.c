/* [http]: CONNECT and plain (absolute-form) requests through
 * proxy/http_proto.h. The head grows with what the client sent (nothing
 * is allocated for an idle client) and is parsed once, when complete. */
#include "http_front.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "http_proto.h"
#include "proxy_conf.h"

enum { HTTP_HEAD_FIRST = 1024 }; /* the head buffer's first size; it doubles */

struct http_fe {
	struct http_head_scan scan;
	bool tunnel; /* CONNECT: answer 200 once connected */
	size_t len, cap;
	char *head;
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
		http_reply(c, err == CONN_ERR_FORBIDDEN ? 403 : err == ERR_TIMEOUT ? 504 : 502);
		return;
	}
	if (fe->tunnel)
		http_reply(c, 200);
	conn_relay(c);
}

static void http_fe_free(struct conn *c)
{
	struct http_fe *fe = c->fe;

	free(fe->head);
	fe->head = NULL;
}

/* The complete head: connect (what followed it, or the rewritten head and
 * what followed, goes to the tunnel first) or answer and close. */
static void http_request(struct conn *c, struct http_fe *fe, size_t end)
{
	const struct proxy_listener *svc = c->svc;
	struct http_proxy_req req;
	size_t rest = fe->len - end;
	char *out = malloc(HTTPP_OUT_MAX + rest);
	bool ok = out != NULL;

	if (ok)
		http_proxy_parse(fe->head, end, svc->has_auth ? svc->username : NULL,
				 svc->has_auth ? svc->password : NULL, &req, out, HTTPP_OUT_MAX);
	if (!ok || req.action == HTTPP_REJECT) {
		http_reply(c, ok ? req.status : 500);
		conn_close(c, false);
	} else {
		const char *early = fe->head + end;

		c->admitted = true;
		fe->tunnel = req.action == HTTPP_TUNNEL;
		if (!fe->tunnel) { /* the rewritten head, then what followed */
			memcpy(out + req.out_len, early, rest);
			early = out;
			rest += req.out_len;
		}
		ok = !conn_set_early(c, early, rest);
		http_fe_free(c);
		if (ok) {
			conn_want(c, 0);
			conn_connect_host(c, req.host, req.port);
		} else {
			conn_close(c, true);
		}
	}
	free(out);
}

static void http_readable(struct conn *c)
{
	struct http_fe *fe = c->fe;
	size_t end;
	ssize_t r;

	if (fe->len == fe->cap) {
		size_t cap = fe->cap ? 2 * fe->cap : HTTP_HEAD_FIRST;
		char *head = realloc(fe->head, cap);

		if (!head) {
			conn_close(c, true);
			return;
		}
		fe->head = head;
		fe->cap = cap;
	}
	r = recv(c->fd, fe->head + fe->len, fe->cap - fe->len, MSG_DONTWAIT);
	if (r <= 0) {
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			conn_close(c, false);
		return;
	}
	fe->len += (size_t)r;
	end = http_proxy_head_end(fe->head, fe->len, &fe->scan);
	if (end) {
		http_request(c, fe, end);
	} else if (fe->len >= HTTPP_HEAD_MAX) {
		http_reply(c, 431);
		conn_close(c, false);
	}
}

const struct conn_front http_front = {
    .fe_size = sizeof(struct http_fe),
    .readable = http_readable,
    .connected = http_connected,
    .closed = http_fe_free,
};
