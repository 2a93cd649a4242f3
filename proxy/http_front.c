/* [http]: CONNECT and plain (absolute-form) requests through
 * proxy/http_proto.h. The head grows with what the client sent (nothing
 * is allocated for an idle client) and is parsed once, when complete. */
#include "http_front.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "http_proto.h"
#include "log.h"
#include "proxy_conf.h"

enum { HTTP_HEAD_FIRST = 1024 }; /* the head buffer's first size; it doubles */

struct http_fe {
	struct http_head_scan scan;
	bool tunnel;		       /* CONNECT: answer 200 once connected */
	char host[PROXY_HOST_MAX + 1]; /* the request's, for a failure's message */
	size_t len, cap;
	char *head;
};

static void http_reply(struct conn *c, int status)
{
	const char *r = http_proxy_response(status);

	conn_send_host(c, r, strlen(r));
}

/* Why a connection failed (conn.h's err), for the client and the log, and
 * the status that says so. */
static const char *failure(err_t err, int *status)
{
	*status = 502;
	switch (err) {
	case CONN_ERR_FORBIDDEN:
		*status = 403;
		return "destination refused by the proxy";
	case ERR_VAL:
		return "name not resolved (DNS)";
	case ERR_RST:
		return "connection refused";
	case ERR_TIMEOUT:
	case ERR_ABRT: /* lwIP gave up retransmitting */
		*status = 504;
		return "connection timed out";
	default:
		return "connection failed";
	}
}

static void http_connected(struct conn *c, bool ok, err_t err)
{
	struct http_fe *fe = c->fe;

	if (!ok) {
		char r[HTTPP_ERROR_MAX], where[PROXY_HOST_MAX + 10];
		int status;
		const char *why = failure(err, &status);

		snprintf(where, sizeof(where), strchr(fe->host, ':') ? "[%s]:%u" : "%s:%u",
			 fe->host, c->port);
		log_info("proxy: [http] %d for %s: %s", status, where, why);
		conn_send_host(c, r, (size_t)http_proxy_error(r, sizeof(r), status, where, why));
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

		fe->tunnel = req.action == HTTPP_TUNNEL;
		memcpy(fe->host, req.host, sizeof(fe->host));
		if (!fe->tunnel) { /* the rewritten head, then what followed */
			memcpy(out + req.out_len, early, rest);
			early = out;
			rest += req.out_len;
		}
		if (conn_admit(c, early, rest)) {
			http_fe_free(c);
			conn_connect_host(c, req.host, req.port);
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
