/* The metrics endpoint's parsing: the listen address of --metrics /
 * ZINCTUN_METRICS (daemon/cli.c) and the HTTP request head
 * (daemon/metrics_request.c). */
#include "test.h"

#include "../../daemon/cli.c"
#include "../../daemon/metrics_request.c"

#include <arpa/inet.h>

static const char *env_none(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

static const char *env_metrics(void *ctx, const char *name)
{
	return strcmp(name, "ZINCTUN_METRICS") ? NULL : ctx;
}

static bool listen_is(const char *s, int family, const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[INET6_ADDRSTRLEN];

	if (!zt_cli_parse_listen(s, &ss, &len) || ss.ss_family != family)
		return false;
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &in->sin_addr, buf, sizeof(buf));
		return len == sizeof(*in) && ntohs(in->sin_port) == port && !strcmp(buf, addr);
	}
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof(buf));
	return len == sizeof(*in6) && ntohs(in6->sin6_port) == port && !strcmp(buf, addr);
}

static void test_listen(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	const char *bad[] = {"",
			     "0",
			     "65536",
			     "x",
			     "-1",
			     "9586x",
			     ":9586",
			     "1.2.3.4",
			     "1.2.3.4:",
			     "1.2.3.4:0",
			     "1.2.3:80",
			     "::1:9586",
			     "[::1]",
			     "[::1]9586",
			     "[1.2.3.4]:80",
			     "localhost:9586",
			     "[::1]:99999",
			     " 9586"};

	CHECK(listen_is("9586", AF_INET, "127.0.0.1", 9586));
	CHECK(listen_is("0.0.0.0:1", AF_INET, "0.0.0.0", 1));
	CHECK(listen_is("10.0.0.1:65535", AF_INET, "10.0.0.1", 65535));
	CHECK(listen_is("[::1]:9586", AF_INET6, "::1", 9586));
	CHECK(listen_is("[::]:80", AF_INET6, "::", 80));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (zt_cli_parse_listen(bad[i], &ss, &len))
			printf("accepted '%s'\n", bad[i]);
		CHECK(!zt_cli_parse_listen(bad[i], &ss, &len));
	}
}

static void test_cli(void)
{
	char *const flag[] = {"zinctun", "--metrics", "[::1]:9100", "wg0", NULL};
	char *const eq[] = {"zinctun", "--metrics=9100", "wg0", NULL};
	char *const none[] = {"zinctun", "wg0", NULL};
	char *const bad[] = {"zinctun", "--metrics", "nope", "wg0", NULL};
	struct zt_options c;

	zt_cli_parse(4, flag, env_none, NULL, &c);
	CHECK(c.action == ZT_CLI_RUN && c.metrics && c.metrics_addr.ss_family == AF_INET6);
	zt_cli_parse(3, eq, env_none, NULL, &c);
	CHECK(c.action == ZT_CLI_RUN && c.metrics && c.metrics_addr.ss_family == AF_INET);
	zt_cli_parse(2, none, env_none, NULL, &c);
	CHECK(c.action == ZT_CLI_RUN && !c.metrics);
	/* wg-quick passes no flags: the environment */
	zt_cli_parse(2, none, env_metrics, "127.0.0.2:9586", &c);
	CHECK(c.action == ZT_CLI_RUN && c.metrics && c.metrics_addr.ss_family == AF_INET);
	zt_cli_parse(2, none, env_metrics, "", &c);
	CHECK(c.action == ZT_CLI_RUN && !c.metrics);
	/* the flag wins over the environment */
	zt_cli_parse(3, eq, env_metrics, "bogus", &c);
	CHECK(c.action == ZT_CLI_RUN && c.metrics && !strcmp(c.metrics, "9100"));
	zt_cli_parse(4, bad, env_none, NULL, &c);
	CHECK(c.action == ZT_CLI_ERROR && strstr(c.err, "metrics"));
	zt_cli_parse(2, none, env_metrics, "1.2.3.4", &c);
	CHECK(c.action == ZT_CLI_ERROR);
}

static int status(const char *req, bool *head)
{
	return metrics_http_status(req, strlen(req), head);
}

static void test_request(void)
{
	char big[METRICS_MAX_REQUEST];
	bool head;

	CHECK(status("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &head) == 200 && !head);
	CHECK(status("GET /metrics HTTP/1.0\n\n", &head) == 200);
	CHECK(status("GET /metrics?name[]=x HTTP/1.1\r\n\r\n", &head) == 200);
	CHECK(status("HEAD /metrics HTTP/1.1\r\n\r\n", &head) == 200 && head);
	/* incomplete but fine so far */
	CHECK(status("", &head) == 0);
	CHECK(status("GET /met", &head) == 0);
	CHECK(status("GET /metrics HTTP/1.1\r\n", &head) == 0);
	CHECK(status("GET /metrics HTTP/1.1\r\nHost: x\r\n", &head) == 0);
	/* other paths and methods */
	CHECK(status("GET / HTTP/1.1\r\n\r\n", &head) == 404);
	CHECK(status("GET /metricsx HTTP/1.1\r\n\r\n", &head) == 404);
	CHECK(status("POST /metrics HTTP/1.1\r\n\r\n", &head) == 405);
	/* garbage: at once, without waiting for an empty line */
	CHECK(status("\x16\x03\x01\x02", &head) == 400); /* a TLS hello */
	CHECK(status("HELLO\r\n", &head) == 400);
	CHECK(status("GET /metrics\r\n", &head) == 400);
	CHECK(status("GET /metrics HTTP/2.0\r\n", &head) == 400);
	CHECK(status("GET /metrics HTTP/1.1 x\r\n", &head) == 400);
	CHECK(status("GET  /metrics HTTP/1.1\r\n", &head) == 400);
	CHECK(status(" GET /metrics HTTP/1.1\r\n", &head) == 400);
	CHECK(status("GET /metrics HTTP/1.1\r\r\n", &head) == 400);
	/* too long without an end */
	memset(big, 'A', sizeof(big));
	CHECK(metrics_http_status(big, sizeof(big) - 1, &head) == 0);
	CHECK(metrics_http_status(big, sizeof(big), &head) == 400);
	memcpy(big, "GET /metrics HTTP/1.1\r\n", 23);
	CHECK(metrics_http_status(big, sizeof(big), &head) == 400);
}

int main(void)
{
	test_listen();
	test_cli();
	test_request();
	return test_finish("metrics");
}
