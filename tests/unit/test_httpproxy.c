// qemu-user: skip (bounds a parse time in milliseconds; emulation is ~10x slower)
// SPDX-License-Identifier: MIT
/* HTTP proxy request heads (proxy/http_proto.c): CONNECT and absolute-form
 * requests, the rewritten head, Basic authentication and the limits. */
#include "test.h"

#include <sodium.h>
#include <time.h>

#include "../../daemon/base64.c"
#include "../../daemon/uapi_parse.c"

/* libsodium's encoder: an independent check of our decoder */
static size_t b64enc(const uint8_t *in, size_t n, char *out, size_t cap)
{
	sodium_bin2base64(out, cap, in, n, sodium_base64_VARIANT_ORIGINAL);
	return strlen(out);
}
#include "../../proxy/cred.c"
#include "../../proxy/http_proto.c"
#include "../../proxy/proxy_conf.c"

static char out[HTTPP_OUT_MAX];

static enum http_proxy_action run(const char *head, const char *user, const char *pass,
				  struct http_proxy_req *req)
{
	return http_proxy_parse(head, strlen(head), user, pass, req, out, sizeof(out));
}

static bool out_is(const struct http_proxy_req *req, const char *want)
{
	bool same = req->out_len == strlen(want) && !memcmp(out, want, req->out_len);

	if (!same)
		fprintf(stderr, "got:\n%.*s\nwant:\n%s\n", (int)req->out_len, out, want);
	return same;
}

static void test_connect(void)
{
	struct http_proxy_req r;
	const char *h = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03";

	CHECK(run(h, NULL, NULL, &r) == HTTPP_TUNNEL);
	CHECK(!strcmp(r.host, "example.com") && r.port == 443 && r.used == strlen(h) - 2);
	CHECK(run("CONNECT [2001:db8::1]:8443 HTTP/1.0\n\n", NULL, NULL, &r) == HTTPP_TUNNEL &&
	      !strcmp(r.host, "2001:db8::1") && r.port == 8443);
	CHECK(run("connect 10.0.0.1:22 HTTP/1.1\r\n\r\n", NULL, NULL, &r) == HTTPP_TUNNEL &&
	      r.port == 22);
	/* a port is required; bad hosts and ports */
	CHECK(run("CONNECT example.com HTTP/1.1\r\n\r\n", NULL, NULL, &r) == HTTPP_REJECT &&
	      r.status == 400);
	CHECK(run("CONNECT example.com:0 HTTP/1.1\r\n\r\n", NULL, NULL, &r) == HTTPP_REJECT);
	CHECK(run("CONNECT example.com:99999 HTTP/1.1\r\n\r\n", NULL, NULL, &r) == HTTPP_REJECT);
	CHECK(run("CONNECT ::1:22 HTTP/1.1\r\n\r\n", NULL, NULL, &r) == HTTPP_REJECT);
	CHECK(run("CONNECT [::1]:22x HTTP/1.1\r\n\r\n", NULL, NULL, &r) == HTTPP_REJECT);
	CHECK(run("CONNECT ex%ample.com:22 HTTP/1.1\r\n\r\n", NULL, NULL, &r) == HTTPP_REJECT);
}

static void test_forward(void)
{
	struct http_proxy_req r;

	CHECK(run("GET http://example.com/a/b?c=d#frag HTTP/1.1\r\n"
		  "Host: example.com\r\n"
		  "User-Agent: t\r\n"
		  "Proxy-Connection: keep-alive\r\n"
		  "Connection: keep-alive, X-Hop\r\n"
		  "X-Hop: 1\r\n"
		  "Keep-Alive: 300\r\n"
		  "Accept: */*\r\n"
		  "\r\n"
		  "body",
		  NULL, NULL, &r) == HTTPP_FORWARD);
	CHECK(!strcmp(r.host, "example.com") && r.port == 80);
	CHECK(out_is(&r, "GET /a/b?c=d HTTP/1.1\r\n"
			 "Host: example.com\r\n"
			 "User-Agent: t\r\n"
			 "Accept: */*\r\n"
			 "Connection: close\r\n\r\n"));
	/* no path, a port, no Host, bare LF lines, another method */
	CHECK(run("POST HTTP://[fd00::1]:8080 HTTP/1.0\nContent-Length: 4\nProxy-Authorization: "
		  "Basic eDp5\n\nabcd",
		  NULL, NULL, &r) == HTTPP_FORWARD);
	CHECK(!strcmp(r.host, "fd00::1") && r.port == 8080);
	CHECK(out_is(&r, "POST / HTTP/1.0\r\n"
			 "Content-Length: 4\r\n"
			 "Host: [fd00::1]:8080\r\n"
			 "Connection: close\r\n\r\n"));
	CHECK(r.used == strlen("POST HTTP://[fd00::1]:8080 HTTP/1.0\nContent-Length: 4\n"
			       "Proxy-Authorization: Basic eDp5\n\n"));
	CHECK(run("OPTIONS http://h?q HTTP/1.1\r\n\r\n", NULL, NULL, &r) == HTTPP_FORWARD &&
	      out_is(&r, "OPTIONS /?q HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"));
	/* empty lines before the request line are skipped */
	CHECK(run("\r\n\r\nGET http://h/ HTTP/1.1\r\n\r\n", NULL, NULL, &r) == HTTPP_FORWARD &&
	      r.used == strlen("\r\n\r\nGET http://h/ HTTP/1.1\r\n\r\n"));
}

static void test_rejects(void)
{
	static const char *const bad[] = {
	    "GET /index.html HTTP/1.1\r\nHost: h\r\n\r\n", /* origin form: not a proxy request */
	    "GET https://h/ HTTP/1.1\r\n\r\n",
	    "GET ftp://h/ HTTP/1.1\r\n\r\n",
	    "GET http:// HTTP/1.1\r\n\r\n",
	    "GET http:///x HTTP/1.1\r\n\r\n",
	    "GET http://user:pw@h/ HTTP/1.1\r\n\r\n",
	    "GET http://h:0/ HTTP/1.1\r\n\r\n",
	    "GET http://[::1/ HTTP/1.1\r\n\r\n",
	    "GET http://h/ HTTP/2.0\r\n\r\n",
	    "GET http://h/\r\n\r\n", /* HTTP/0.9 */
	    "GET http://h/ HTTP/1.1 x\r\n\r\n",
	    "GET  http://h/ HTTP/1.1\r\n\r\n",
	    "G(T http://h/ HTTP/1.1\r\n\r\n",
	    "GET http://h/ HTTP/1.1\r\nNo colon\r\n\r\n",
	    "GET http://h/ HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
	    "GET http://h/ HTTP/1.1\r\nBad Name: x\r\n\r\n",
	    "GET http://h/ HTTP/1.1\r\nA: b\rc\r\n\r\n",
	    "GET http://h/ HTTP/1.1\r\nA: \x01\r\n\r\n",
	    "GET http://h/\x7f HTTP/1.1\r\n\r\n",
	    "GET http://h/ HTTP/1.1\r\nProxy-Authorization: a\r\nProxy-Authorization: b\r\n\r\n",
	    "GETGETGETGETGETGETGETGETGETGETGET http://h/ HTTP/1.1\r\n\r\n",
	};
	struct http_proxy_req r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum http_proxy_action a = run(bad[i], NULL, NULL, &r);

		CHECK(a == HTTPP_REJECT && r.status == 400 && r.out_len == 0);
		if (a != HTTPP_REJECT)
			fprintf(stderr, "case %zu accepted\n", i);
	}
	/* a NUL inside the head */
	static const char nul[] = "GET http://h/ HTTP/1.1\r\nA: \0\r\n\r\n";
	CHECK(http_proxy_parse(nul, sizeof(nul) - 1, NULL, NULL, &r, out, sizeof(out)) ==
		  HTTPP_REJECT &&
	      r.status == 400);
}

static void test_more_and_limits(void)
{
	struct http_proxy_req r;
	const char *full = "GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n";
	char *big;

	/* every prefix of a complete head asks for more */
	for (size_t n = 0; n < strlen(full); n++)
		CHECK(http_proxy_parse(full, n, NULL, NULL, &r, out, sizeof(out)) == HTTPP_MORE);
	CHECK(http_proxy_parse(full, strlen(full), NULL, NULL, &r, out, sizeof(out)) ==
	      HTTPP_FORWARD);

	big = malloc(2 * HTTPP_HEAD_MAX);
	if (!big) {
		CHECK(!"malloc");
		return;
	}
	/* no end of head within the limit: 431 */
	size_t n = (size_t)sprintf(big, "GET http://h/ HTTP/1.1\r\n");
	while (n < HTTPP_HEAD_MAX)
		n += (size_t)sprintf(big + n, "X-Pad: %04zu\r\n", n % 10000);
	CHECK(http_proxy_parse(big, HTTPP_HEAD_MAX - 1, NULL, NULL, &r, out, sizeof(out)) ==
	      HTTPP_MORE);
	CHECK(http_proxy_parse(big, n, NULL, NULL, &r, out, sizeof(out)) == HTTPP_REJECT &&
	      r.status == 431);
	/* a head just inside the limit is fine, even made of bare LF lines */
	n = (size_t)sprintf(big, "GET http://h/ HTTP/1.1\n");
	while (n < HTTPP_HEAD_MAX - 8)
		n += (size_t)sprintf(big + n, "a:\n");
	n += (size_t)sprintf(big + n, "\n");
	CHECK(n <= HTTPP_HEAD_MAX);
	CHECK(http_proxy_parse(big, n, NULL, NULL, &r, out, sizeof(out)) == HTTPP_FORWARD);
	CHECK(r.out_len <= HTTPP_OUT_MAX);
	/* too small an out buffer: refused, never overrun */
	CHECK(http_proxy_parse(full, strlen(full), NULL, NULL, &r, out, 10) == HTTPP_REJECT &&
	      r.status == 431);
	free(big);
}

/* Each read looks at the new bytes only; the end found is the one-shot
 * parse's, with or without empty lines first. */
static void test_head_scan(void)
{
	static const char *const heads[] = {
	    "GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\nbody",
	    "\r\n\n\r\nCONNECT h:1 HTTP/1.1\n\nrest",
	    "CONNECT h:1 HTTP/1.1\r\nA: b\n\r\n",
	};
	struct http_proxy_req r;

	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		struct http_head_scan scan = {0};
		size_t len = strlen(heads[i]), end = 0, at = 0;

		CHECK(http_proxy_parse(heads[i], len, NULL, NULL, &r, out, sizeof(out)) !=
		      HTTPP_MORE);
		for (size_t n = 1; n <= len && !end; n++) {
			size_t before = scan.pos;

			end = http_proxy_head_end(heads[i], n, &scan);
			CHECK(end || (scan.pos == n && before <= n));
			at = n;
		}
		CHECK(end == r.used && at == end);
	}
}

/* Many comma lists in Connection headers beside many other headers: the
 * hop-by-hop check must not cost their product. Best of several runs, so
 * that a busy machine does not fail it. */
static double parse_best_ms(const char *head, size_t len)
{
	double best = 1e9;

	for (int run = 0; run < 21; run++) {
		struct http_proxy_req r;
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		http_proxy_parse(head, len, NULL, NULL, &r, out, sizeof(out));
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
		if (ms < best)
			best = ms;
		CHECK(r.action == HTTPP_FORWARD);
	}
	return best;
}

static void test_comma_lists(void)
{
	char *head = malloc(HTTPP_HEAD_MAX);
	size_t n;

	if (!head) {
		CHECK(!"malloc");
		return;
	}
	for (int lists = 1; lists <= 64; lists *= 8) {
		size_t commas = HTTPP_HEAD_MAX / 2 / lists;

		n = (size_t)sprintf(head, "GET http://h/ HTTP/1.1\r\nX-Hop: 1\r\n");
		for (int l = 0; l < lists; l++) {
			n += (size_t)sprintf(head + n, "Connection: x-hop");
			memset(head + n, ',', commas - 40);
			n += commas - 40;
			n += (size_t)sprintf(head + n, "\r\n");
		}
		while (n + 8 < HTTPP_HEAD_MAX)
			n += (size_t)sprintf(head + n, "a:b\r\n");
		n += (size_t)sprintf(head + n, "\r\n");
		CHECK(n <= HTTPP_HEAD_MAX);
		double ms = parse_best_ms(head, n);
		printf("a %zu-byte head, %d Connection lists of %zu commas: %.3f ms\n", n, lists,
		       commas - 40, ms);
		CHECK(ms <= 1.0);
		CHECK(!memmem(out, HTTPP_OUT_MAX, "X-Hop", 5)); /* still hop-by-hop */
	}
	free(head);
}

static void test_auth(void)
{
	struct http_proxy_req r;
	char head[512], b64[128];

	/* "alice:s3cret" */
	b64enc((const uint8_t *)"alice:s3cret", 12, b64, sizeof(b64));
	snprintf(head, sizeof(head),
		 "CONNECT h:1 HTTP/1.1\r\nProxy-Authorization: Basic %s\r\n\r\n", b64);
	CHECK(run(head, "alice", "s3cret", &r) == HTTPP_TUNNEL);
	snprintf(head, sizeof(head),
		 "CONNECT h:1 HTTP/1.1\r\nproxy-authorization:   basic %s  \r\n\r\n", b64);
	CHECK(run(head, "alice", "s3cret", &r) == HTTPP_TUNNEL);
	/* the header is not forwarded */
	snprintf(head, sizeof(head),
		 "GET http://h/ HTTP/1.1\r\nProxy-Authorization: Basic %s\r\n\r\n", b64);
	CHECK(run(head, "alice", "s3cret", &r) == HTTPP_FORWARD && !memmem(out, r.out_len, b64, 8));
	/* a password with a colon in it */
	b64enc((const uint8_t *)"bob:a:b", 7, b64, sizeof(b64));
	snprintf(head, sizeof(head),
		 "CONNECT h:1 HTTP/1.1\r\nProxy-Authorization: Basic %s\r\n\r\n", b64);
	CHECK(run(head, "bob", "a:b", &r) == HTTPP_TUNNEL);

	static const char *const wrong[] = {
	    "alice:s3creT", "alice:s3cre", "alice:s3crett", "Alice:s3cret",
	    "alices3cret",  ":",	   "alice:",
	};
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		b64enc((const uint8_t *)wrong[i], strlen(wrong[i]), b64, sizeof(b64));
		snprintf(head, sizeof(head),
			 "CONNECT h:1 HTTP/1.1\r\nProxy-Authorization: Basic %s\r\n\r\n", b64);
		CHECK(run(head, "alice", "s3cret", &r) == HTTPP_REJECT && r.status == 407);
	}
	CHECK(run("CONNECT h:1 HTTP/1.1\r\n\r\n", "alice", "s3cret", &r) == HTTPP_REJECT &&
	      r.status == 407);
	CHECK(run("CONNECT h:1 HTTP/1.1\r\nProxy-Authorization: Bearer abc\r\n\r\n", "alice",
		  "s3cret", &r) == HTTPP_REJECT &&
	      r.status == 407);
	CHECK(run("CONNECT h:1 HTTP/1.1\r\nProxy-Authorization: Basic !!!!\r\n\r\n", "alice",
		  "s3cret", &r) == HTTPP_REJECT &&
	      r.status == 407);
	/* credentials sent to a proxy without any are ignored */
	CHECK(run("CONNECT h:1 HTTP/1.1\r\nProxy-Authorization: Basic eDp5\r\n\r\n", NULL, NULL,
		  &r) == HTTPP_TUNNEL);
}

static void test_responses(void)
{
	CHECK(!strcmp(http_proxy_response(200), "HTTP/1.1 200 Connection established\r\n\r\n"));
	CHECK(strstr(http_proxy_response(407),
		     "\r\nProxy-Authenticate: Basic realm=\"zinctun\"\r\n"));
	static const int codes[] = {400, 407, 431, 500, 418};
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *s = http_proxy_response(codes[i]);
		char want[16];
		snprintf(want, sizeof(want), "HTTP/1.1 %d ", codes[i] == 418 ? 500 : codes[i]);
		CHECK(!strncmp(s, want, strlen(want)));
		CHECK(strstr(s, "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"));
		size_t l = strlen(s);
		CHECK(l > 4 && !strcmp(s + l - 4, "\r\n\r\n"));
	}
	/* a failed connection says why, in a body whose length is right */
	char r[HTTPP_ERROR_MAX], host[PROXY_HOST_MAX + 1];
	int n = http_proxy_error(r, sizeof(r), 504, "web.test:8080", "connection timed out");
	const char *body = strstr(r, "\r\n\r\n");
	CHECK(n > 0 && (size_t)n == strlen(r) &&
	      !strncmp(r, "HTTP/1.1 504 Gateway Timeout\r\n", 30));
	CHECK(body && !strcmp(body + 4, "web.test:8080: connection timed out\n"));
	CHECK(strstr(r, "\r\nContent-Length: 36\r\nConnection: close\r\n"));
	CHECK(http_proxy_error(r, sizeof(r), 502, "h:1", "connection refused") > 0);
	CHECK(!strncmp(r, "HTTP/1.1 502 Bad Gateway\r\n", 26));
	CHECK(http_proxy_error(r, sizeof(r), 403, "[::1]:1", "refused") > 0);
	CHECK(!strncmp(r, "HTTP/1.1 403 Forbidden\r\n", 24));
	memset(host, 'a', PROXY_HOST_MAX);
	memcpy(host + PROXY_HOST_MAX - 6, ":65535", 7);
	CHECK(http_proxy_error(r, sizeof(r), 502, host, "name not resolved (DNS)") > 0);
	CHECK(http_proxy_error(r, 16, 502, "h:1", "x") == 0);
}

int main(void)
{
	test_connect();
	test_forward();
	test_rejects();
	test_more_and_limits();
	test_head_scan();
	test_comma_lists();
	test_auth();
	test_responses();
	return test_finish("test_httpproxy");
}
