// clang-format off
/* fuzz-sources: proxy/http_proto.c proxy/proxy_conf.c daemon/base64.c daemon/uapi_parse.c proxy/cred.c */
// clang-format on
/* HTTP proxy request heads (proxy/http_proto.c).
 *
 * Input: a byte of flags (bit 0: credentials "user"/"pass" configured),
 * then the client's bytes. Checks: the head consumed is within the input,
 * a forwarded head fits its buffer and ends the head, a target has a host
 * and a port, and an accepted request with credentials configured carried
 * a Proxy-Authorization header; http_proxy_head_end() fed the bytes in
 * two reads (split where the flags byte says) finds the parse's end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../proxy/http_proto.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char out[HTTPP_OUT_MAX];

/* Header names are case-insensitive. */
static bool has_nocase(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i + n <= len; i++)
		if (!strncasecmp(s + i, word, n))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_proxy_req r;
	bool auth;
	char *buf;
	enum http_proxy_action a;

	if (!size)
		return 0;
	auth = data[0] & 1;
	size--;
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size);
	a = http_proxy_parse(buf, size, auth ? "user" : NULL, auth ? "pass" : NULL, &r, out,
			     sizeof(out));
	check(a == r.action, "return differs from req.action");
	struct http_head_scan scan = {0};
	size_t split = size ? (size_t)(data[0] >> 1) * size / 128 : 0;
	size_t end = http_proxy_head_end(buf, split, &scan);

	if (!end)
		end = http_proxy_head_end(buf, size, &scan);
	check(a == HTTPP_MORE ? !end : !end || end == r.used, "head_end differs from the parse");
	check(end || a == HTTPP_MORE || r.status == 431, "head_end found no end");
	switch (a) {
	case HTTPP_MORE:
		check(size < HTTPP_HEAD_MAX, "more wanted past the limit");
		break;
	case HTTPP_REJECT:
		check(r.status == 400 || r.status == 407 || r.status == 431, "status");
		check(!strncmp(http_proxy_response(r.status), "HTTP/1.1 ", 9), "response");
		break;
	case HTTPP_FORWARD:
		check(r.out_len >= 4 && r.out_len <= sizeof(out), "out length");
		check(!memcmp(out + r.out_len - 4, "\r\n\r\n", 4), "head not ended");
		check(!memmem(out, r.out_len - 2, "\r\n\r\n", 4), "head ended early");
		/* fall through */
	case HTTPP_TUNNEL:
		check(r.used <= size && r.used <= HTTPP_HEAD_MAX, "used");
		check(r.host[0] && r.port, "target");
		if (auth)
			check(has_nocase(buf, r.used, "proxy-authorization"), "no credentials");
		break;
	}
	free(buf);
	return 0;
}
