/* The metrics endpoint's request parsing (metrics.h): only the request
 * line matters (GET or HEAD, /metrics, HTTP/1.0 or 1.1); the headers are
 * skipped up to the empty line that ends them. Garbage is refused as soon
 * as it is seen, without waiting for the rest. */
#include "metrics.h"

#include <string.h>

static bool token_char(char c)
{
	return c > ' ' && c < 0x7f;
}

int metrics_http_status(const char *buf, size_t len, bool *head_only)
{
	const char *eol = memchr(buf, '\n', len), *p = buf, *method, *target, *version, *query;
	size_t mlen, tlen, vlen, plen;

	*head_only = false;
	if (!eol) {
		/* no line yet: refuse at once what cannot become one */
		for (size_t i = 0; i < len; i++)
			if (!token_char(buf[i]) && buf[i] != ' ' && buf[i] != '\r')
				return 400;
		return len >= METRICS_MAX_REQUEST ? 400 : 0;
	}
	/* request line: METHOD SP TARGET SP HTTP/1.x [CR] LF */
	method = p;
	while (p < eol && token_char(*p))
		p++;
	mlen = (size_t)(p - method);
	if (!mlen || p >= eol || *p++ != ' ')
		return 400;
	target = p;
	while (p < eol && token_char(*p))
		p++;
	tlen = (size_t)(p - target);
	if (!tlen || p >= eol || *p++ != ' ')
		return 400;
	version = p;
	while (p < eol && token_char(*p))
		p++;
	vlen = (size_t)(p - version);
	if (p < eol && *p == '\r')
		p++;
	if (p != eol || vlen != 8 || memcmp(version, "HTTP/1.", 7) ||
	    (version[7] != '0' && version[7] != '1'))
		return 400;
	/* the headers are not needed, but the request ends with an empty line */
	if (!memmem(buf, len, "\r\n\r\n", 4) && !memmem(buf, len, "\n\n", 2))
		return len >= METRICS_MAX_REQUEST ? 400 : 0;
	if (mlen == 4 && !memcmp(method, "HEAD", 4))
		*head_only = true;
	else if (mlen != 3 || memcmp(method, "GET", 3))
		return 405;
	query = memchr(target, '?', tlen);
	plen = query ? (size_t)(query - target) : tlen;
	if (plen != 8 || memcmp(target, "/metrics", 8))
		return 404;
	return 200;
}
