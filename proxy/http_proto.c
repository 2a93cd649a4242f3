// SPDX-License-Identifier: MIT
/* HTTP proxy request heads, parsed and rewritten without I/O (see
 * http_proto.h). */
#include "http_proto.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <zinc/memzero.h>

#include "../daemon/base64.h"
#include "cred.h"
#include "proxy_conf.h"

enum { HTTP_DEFAULT_PORT = 80, METHOD_MAX = 32 };

struct line {
	const char *s;
	size_t len;
};

/* The line at pos without its (CR)LF; returns the position after it. */
static size_t next_line(const char *head, size_t pos, size_t end, struct line *l)
{
	const char *nl = memchr(head + pos, '\n', end - pos);
	size_t stop = nl ? (size_t)(nl - head) : end;

	l->s = head + pos;
	l->len = stop - pos;
	if (l->len && l->s[l->len - 1] == '\r')
		l->len--;
	return nl ? stop + 1 : end;
}

/* RFC 9110's token: one or more tchars */
static bool is_token(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && (!s[i] || !strchr("!#$%&'*+-.^_`|~", s[i])))
			return false;
	return len > 0;
}

static bool prefix_nocase(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && !strncasecmp(s, word, n);
}

/* "Name: value", trimmed; false if malformed (a folded line too). */
static bool split_header(const struct line *l, struct line *name, struct line *value)
{
	const char *colon = memchr(l->s, ':', l->len);

	if (!colon)
		return false;
	name->s = l->s;
	name->len = (size_t)(colon - l->s);
	if (!is_token(name->s, name->len))
		return false;
	value->s = colon + 1;
	value->len = l->len - name->len - 1;
	for (size_t i = 0; i < value->len; i++) {
		unsigned char c = (unsigned char)value->s[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return false;
	}
	proxy_trim(&value->s, &value->len);
	return true;
}

/* The names Connection lists, at most HTTPP_CONN_TOKENS_MAX: checking a
 * header against them costs the same whatever the lists' length. */
struct conn_tokens {
	struct line name[HTTPP_CONN_TOKENS_MAX];
	size_t n;
};

static void conn_tokens_add(struct conn_tokens *t, const struct line *list)
{
	const char *s = list->s, *end = list->s + list->len;

	while (s < end && t->n < HTTPP_CONN_TOKENS_MAX) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		struct line tok = {s, (size_t)((comma ? comma : end) - s)};

		proxy_trim(&tok.s, &tok.len);
		if (tok.len)
			t->name[t->n++] = tok;
		s = comma ? comma + 1 : end;
	}
}

static bool conn_tokens_has(const struct conn_tokens *t, const struct line *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->name[i].len == name->len && !strncasecmp(t->name[i].s, name->s, name->len))
			return true;
	return false;
}

/* The head's lines after the request line, checked; Host,
 * Proxy-Authorization and what Connection names noted. */
struct headers {
	size_t start, end; /* of the header lines in buf */
	bool host;
	struct line auth;
	struct conn_tokens conn; /* hop-by-hop too */
};

static bool scan_headers(const char *buf, struct headers *h)
{
	struct line l, name, value;

	for (size_t pos = h->start; pos < h->end;) {
		pos = next_line(buf, pos, h->end, &l);
		if (!l.len)
			continue; /* the blank line that ends the head */
		if (!split_header(&l, &name, &value))
			return false;
		if (proxy_word_is(name.s, name.len, "Host"))
			h->host = true;
		if (proxy_word_is(name.s, name.len, "Connection"))
			conn_tokens_add(&h->conn, &value);
		if (proxy_word_is(name.s, name.len, "Proxy-Authorization")) {
			if (h->auth.s) /* two: ambiguous */
				return false;
			h->auth = value;
		}
	}
	return true;
}

static bool authorized(const struct line *auth, const char *user, const char *pass)
{
	uint8_t plain[2 * PROXY_CRED_MAX + 2];
	const char *tok;
	size_t tlen;
	long n;
	bool ok = false;

	if (!auth->s || !prefix_nocase(auth->s, auth->len, "Basic "))
		return false;
	tok = auth->s + 6;
	tlen = auth->len - 6;
	proxy_trim(&tok, &tlen);
	n = base64_decode(tok, tlen, plain, sizeof(plain));
	if (n > 0) {
		const uint8_t *colon = memchr(plain, ':', (size_t)n);

		if (colon) {
			size_t ul = (size_t)(colon - plain);

			ok = proxy_cred_equal((const char *)plain, ul, user, strlen(user));
			ok &= proxy_cred_equal((const char *)colon + 1, (size_t)n - ul - 1, pass,
					       strlen(pass));
		}
	}
	zinc_memzero(plain, sizeof(plain));
	return ok;
}

/* host[:port] of an http:// URL or a CONNECT target into req. */
static bool parse_authority(const char *s, size_t len, uint16_t default_port,
			    struct http_proxy_req *req)
{
	struct proxy_hostport hp;
	char tmp[PROXY_HOST_MAX + 16];

	if (len > PROXY_HOST_MAX + 8)
		return false;
	/* without a port, s:default_port parses; with one it never does */
	if (!proxy_parse_hostport(s, len, &hp)) {
		if (!default_port)
			return false;
		snprintf(tmp, sizeof(tmp), "%.*s:%u", (int)len, s, default_port);
		if (!proxy_parse_hostport(tmp, strlen(tmp), &hp))
			return false;
	}
	memcpy(req->host, hp.host, sizeof(req->host));
	req->port = hp.port;
	return true;
}

static enum http_proxy_action reject(struct http_proxy_req *req, int status)
{
	req->status = status;
	req->out_len = 0;
	return req->action = HTTPP_REJECT;
}

struct writer {
	char *out;
	size_t cap, len;
	bool full;
};

static void put(struct writer *w, const char *s, size_t len)
{
	if (w->full || len > w->cap - w->len) {
		w->full = true;
		return;
	}
	memcpy(w->out + w->len, s, len);
	w->len += len;
}

/* a string literal */
#define PUT(w, lit) put(w, lit, sizeof(lit) - 1)

/* The forwarded head: origin-form request line, the end-to-end headers,
 * Host if missing, Connection: close. */
static bool rewrite(const char *buf, const struct headers *h, const struct line *method,
		    const struct line *authority, const struct line *path,
		    const struct line *version, char *out, size_t cap, size_t *out_len)
{
	struct writer w = {.out = out, .cap = cap};
	struct line l, name, value;

	put(&w, method->s, method->len);
	PUT(&w, " ");
	if (!path->len || path->s[0] != '/')
		PUT(&w, "/");
	put(&w, path->s, path->len);
	PUT(&w, " ");
	put(&w, version->s, version->len);
	PUT(&w, "\r\n");
	for (size_t pos = h->start; pos < h->end;) {
		pos = next_line(buf, pos, h->end, &l);
		if (!l.len || !split_header(&l, &name, &value) ||
		    proxy_word_is(name.s, name.len, "Proxy-Connection") ||
		    proxy_word_is(name.s, name.len, "Proxy-Authorization") ||
		    proxy_word_is(name.s, name.len, "Connection") ||
		    proxy_word_is(name.s, name.len, "Keep-Alive") ||
		    conn_tokens_has(&h->conn, &name))
			continue;
		put(&w, l.s, l.len);
		PUT(&w, "\r\n");
	}
	if (!h->host) {
		PUT(&w, "Host: ");
		put(&w, authority->s, authority->len);
		PUT(&w, "\r\n");
	}
	PUT(&w, "Connection: close\r\n\r\n");
	*out_len = w.len;
	return !w.full;
}

size_t http_proxy_head_end(const char *buf, size_t len, struct http_head_scan *scan)
{
	size_t i = scan->pos;

	if (len > HTTPP_HEAD_MAX)
		len = HTTPP_HEAD_MAX;
	/* empty lines before the request line are allowed (RFC 9112 2.2) */
	for (; !scan->started && i < len; i++) {
		if (buf[i] != '\r' && buf[i] != '\n') {
			scan->started = true;
			scan->start = i;
		}
	}
	/* i is the last byte of "\n\n" or "\n\r\n", the first LF past start */
	for (; i < len; i++) {
		if (buf[i] != '\n' || i < scan->start + 2)
			continue;
		if (buf[i - 1] == '\n' ||
		    (buf[i - 1] == '\r' && buf[i - 2] == '\n' && i - 2 > scan->start)) {
			scan->pos = len;
			return i + 1;
		}
	}
	scan->pos = i;
	return 0;
}

enum http_proxy_action http_proxy_parse(const char *buf, size_t len, const char *user,
					const char *pass, struct http_proxy_req *req, char *out,
					size_t out_cap)
{
	struct http_head_scan scan = {0};
	size_t start, end = http_proxy_head_end(buf, len, &scan);
	struct line rl, method, target, version;
	struct headers h = {0};
	const char *sp1, *sp2;

	memset(req, 0, sizeof(*req));
	start = scan.start;
	if (!end) {
		if (len >= HTTPP_HEAD_MAX)
			return reject(req, 431);
		return req->action = HTTPP_MORE;
	}
	req->used = end;
	if (memchr(buf, '\0', end))
		return reject(req, 400);

	h.start = next_line(buf, start, end, &rl);
	h.end = end;
	sp1 = memchr(rl.s, ' ', rl.len);
	sp2 = sp1 ? memchr(sp1 + 1, ' ', rl.len - (size_t)(sp1 + 1 - rl.s)) : NULL;
	if (!sp2)
		return reject(req, 400);
	method = (struct line){rl.s, (size_t)(sp1 - rl.s)};
	target = (struct line){sp1 + 1, (size_t)(sp2 - sp1 - 1)};
	version = (struct line){sp2 + 1, rl.len - (size_t)(sp2 + 1 - rl.s)};
	if (method.len > METHOD_MAX || !is_token(method.s, method.len) || !target.len ||
	    (!proxy_word_is(version.s, version.len, "HTTP/1.1") &&
	     !proxy_word_is(version.s, version.len, "HTTP/1.0")))
		return reject(req, 400);
	for (size_t i = 0; i < target.len; i++)
		if ((unsigned char)target.s[i] <= ' ' || target.s[i] == 0x7f)
			return reject(req, 400);
	if (!scan_headers(buf, &h))
		return reject(req, 400);
	if (user && !authorized(&h.auth, user, pass ? pass : ""))
		return reject(req, 407);

	if (proxy_word_is(method.s, method.len, "CONNECT")) {
		if (!parse_authority(target.s, target.len, 0, req))
			return reject(req, 400);
		return req->action = HTTPP_TUNNEL;
	}
	if (!prefix_nocase(target.s, target.len, "http://"))
		return reject(req, 400); /* origin form, or a scheme we do not proxy */

	struct line auth = {target.s + 7, target.len - 7}, path;
	size_t alen = 0;

	while (alen < auth.len && !strchr("/?#", auth.s[alen]))
		alen++;
	path = (struct line){auth.s + alen, auth.len - alen};
	auth.len = alen;
	if (!auth.len || memchr(auth.s, '@', auth.len) ||
	    !parse_authority(auth.s, auth.len, HTTP_DEFAULT_PORT, req))
		return reject(req, 400);
	const char *hash = memchr(path.s, '#', path.len);

	if (hash) /* a fragment is the client's own business */
		path.len = (size_t)(hash - path.s);
	if (!rewrite(buf, &h, &method, &auth, &path, &version, out, out_cap, &req->out_len))
		return reject(req, 431);
	return req->action = HTTPP_FORWARD;
}

const char *http_proxy_response(int status)
{
#define CLOSING "Content-Length: 0\r\nConnection: close\r\n\r\n"
	switch (status) {
	case 200:
		return "HTTP/1.1 200 Connection established\r\n\r\n";
	case 400:
		return "HTTP/1.1 400 Bad Request\r\n" CLOSING;
	case 407:
		return "HTTP/1.1 407 Proxy Authentication Required\r\n"
		       "Proxy-Authenticate: Basic realm=\"zinctun\"\r\n" CLOSING;
	case 431:
		return "HTTP/1.1 431 Request Header Fields Too Large\r\n" CLOSING;
	default:
		return "HTTP/1.1 500 Internal Server Error\r\n" CLOSING;
	}
#undef CLOSING
}

int http_proxy_error(char *out, size_t cap, int status, const char *where, const char *why)
{
	const char *reason = status == 403   ? "Forbidden"
			     : status == 504 ? "Gateway Timeout"
					     : "Bad Gateway";
	char body[HTTPP_ERROR_MAX / 2];
	int n = snprintf(body, sizeof(body), "%s: %s\n", where, why);

	if (n < 0 || (size_t)n >= sizeof(body))
		n = 0;
	body[n] = '\0';
	n = snprintf(out, cap,
		     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
		     "Connection: close\r\n\r\n%s",
		     status, reason, n, body);
	return n < 0 || (size_t)n >= cap ? 0 : n;
}
