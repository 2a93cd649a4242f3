/* HTTP proxy request heads, parsed and checked with no I/O: CONNECT
 * host:port is a tunnel (answer 200, splice); any method with an http://
 * URL is forwarded (port 80 by default) as an origin-form head without the
 * hop-by-hop headers (Proxy-*, Connection, Keep-Alive and the first
 * HTTPP_CONN_TOKENS_MAX that Connection names), with Host if missing and
 * "Connection: close": one request per connection, so pipelined requests
 * are never parsed. Bytes after the head belong to the stream.
 *
 * Rejections: 400 malformed, origin-form or non-http, HTTP/0.9 or 2; 407
 * credentials wrong or missing (Basic, compared in constant time); 431 no
 * head within HTTPP_HEAD_MAX bytes. Time is linear in the head's size.
 */
#ifndef ZTP_HTTP_PROTO_H
#define ZTP_HTTP_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxy_limits.h"

enum http_proxy_action {
	HTTPP_MORE,    /* no complete head yet: read more (len < HTTPP_HEAD_MAX) */
	HTTPP_TUNNEL,  /* CONNECT */
	HTTPP_FORWARD, /* absolute-form request */
	HTTPP_REJECT,  /* send http_proxy_response(status), close */
};

struct http_proxy_req {
	enum http_proxy_action action;
	int status;		       /* HTTPP_REJECT: 400, 407 or 431 */
	size_t used;		       /* bytes of the head, blank line included */
	char host[PROXY_HOST_MAX + 1]; /* TUNNEL, FORWARD: without brackets */
	uint16_t port;		       /* host order */
	size_t out_len;		       /* FORWARD: bytes of the rewritten head in out */
};

/* How far the search for the head's end got; zeroed before the first call. */
struct http_head_scan {
	size_t pos;   /* bytes searched */
	size_t start; /* where the request line starts (after empty lines) */
	bool started; /* start is known */
};

/* Where the head in buf[0..len) ends (after its blank line), or 0 while it
 * has not; each call searches only the bytes new since the last. */
size_t http_proxy_head_end(const char *buf, size_t len, struct http_head_scan *scan);

/* user NULL: no authentication. out (HTTPP_OUT_MAX bytes) gets the
 * forwarded head. Returns req->action. */
enum http_proxy_action http_proxy_parse(const char *buf, size_t len, const char *user,
					const char *pass, struct http_proxy_req *req, char *out,
					size_t out_cap);

/* The whole response for status 200, 400, 407 or 431 (any other: 500); all
 * but 200 close the connection. */
const char *http_proxy_response(int status);
/* A failed connection's response, 403, 502 (or any other) or 504, into out
 * (HTTPP_ERROR_MAX is enough): the body says "WHERE: WHY". Returns its
 * length, 0 if it did not fit. */
int http_proxy_error(char *out, size_t cap, int status, const char *where, const char *why);

#endif
