/* HTTP proxy requests: the head a client sends to an HTTP proxy, parsed
 * and checked with no I/O.
 *
 *   CONNECT host:port HTTP/1.1          -> HTTPP_TUNNEL: connect, send
 *                                          http_proxy_response(200), splice
 *   GET http://host[:port]/path HTTP/1.1 -> HTTPP_FORWARD: connect (port 80
 *   (any method, absolute form)            by default), send out[0..out_len)
 *                                          (the head in origin form), splice
 *
 * The caller accumulates the client's bytes and calls http_proxy_head_end()
 * each time more arrive (it looks at the new ones only), then
 * http_proxy_parse() once on the complete head (or on any bytes: it says
 * HTTPP_MORE when the head is not complete). Bytes after the head
 * (req.used onwards: a request body, or a TLS ClientHello sent early after
 * CONNECT) belong to the stream. Both take time linear in the head's size.
 *
 * The forwarded head: the request line "METHOD /path HTTP/1.x" (path "/"
 * when the URL has none), then the client's headers but Proxy-Connection,
 * Proxy-Authorization, Connection and Keep-Alive, then "Host: ..." if the
 * client sent none, then "Connection: close" (one request per connection:
 * later pipelined requests are not parsed again). Lines end in CRLF. Of the
 * header names that the client's Connection headers list (hop-by-hop too,
 * so not forwarded), the first HTTPP_CONN_TOKENS_MAX count.
 *
 * Rejections (HTTPP_REJECT: send http_proxy_response(req.status), close):
 *   400  malformed request line or header, origin-form or non-http URL,
 *        CONNECT without a port, bad host or port, HTTP/0.9 or 2
 *   407  credentials configured and Proxy-Authorization missing or wrong
 *        (the response carries Proxy-Authenticate: Basic realm="zinctun")
 *   431  no end of head within HTTPP_HEAD_MAX bytes
 * Credentials: "Proxy-Authorization: Basic base64(user:pass)", compared in
 * constant time.
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
 * has not (look at len: no end within HTTPP_HEAD_MAX bytes is 431). Each
 * call searches only the bytes after the previous call's. */
size_t http_proxy_head_end(const char *buf, size_t len, struct http_head_scan *scan);

/* Parses buf[0..len). user NULL: no authentication, else user and pass
 * (NUL-terminated) must match. out (out_cap >= HTTPP_OUT_MAX bytes) gets
 * the rewritten head for HTTPP_FORWARD. Returns req->action. */
enum http_proxy_action http_proxy_parse(const char *buf, size_t len, const char *user,
					const char *pass, struct http_proxy_req *req, char *out,
					size_t out_cap);

/* The complete response head for status 200 ("Connection established"),
 * 400, 403, 407, 431, 502 or 504 (any other: 500); static text, each but
 * 200 with "Connection: close" and "Content-Length: 0" (403: a one-line
 * text body saying the destination is refused). */
const char *http_proxy_response(int status);

#endif
