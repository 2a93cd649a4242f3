/* The metrics endpoint's parsing: the listen address of --metrics /
 * ZINCTUN_METRICS (daemon/cli.c), the HTTP request head
 * (daemon/metrics_request.c) and the friendly_name file
 * (daemon/metrics_names.c). */
#include "test.h"

#include "../../daemon/base64.c"
#include "../../daemon/cli.c"
#include "../../daemon/uapi_parse.c"
#include "../../daemon/metrics_names.c"
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

/* key: 42 times c, then 'A=' (a valid base64 key) */
#define KEY(c)                                                                                     \
	c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c "A="

static const char *name_of_key(const struct metrics_names *n, const char *b64)
{
	uint8_t key[WG_PUBLIC_KEY_LEN];

	return base64_decode_key(b64, strlen(b64), key) ? metrics_names_find(n, key) : "(bad key)";
}

static bool name_is(const struct metrics_names *n, const char *b64, const char *want)
{
	const char *got = name_of_key(n, b64);

	return want ? got && !strcmp(got, want) : !got;
}

/* prometheus_wireguard_exporter's rules: a "# friendly_name = NAME" comment
 * anywhere in a [Peer] section names its PublicKey; blanks around key and
 * value trimmed, a comment after the key's value cut; other comments and
 * sections ignored. */
static void test_names(void)
{
	static const char text[] =
	    "[Interface]\n"
	    "# friendly_name = not a peer\n"
	    "PrivateKey = " KEY(
		"Z") "\n"
		     "\n"
		     "[Peer]\n"
		     "# a comment\n"
		     "# friendly_name=phone 6T\n"
		     "PublicKey = " KEY(
			 "B") "\n"
			      "AllowedIPs = 10.0.0.2/32  # a comment\n"
			      "[Peer]\n"
			      "# no name here\n"
			      "PublicKey = " KEY(
				  "C") "\n"
				       "[Peer]\n"
				       "#    friendly_name    =    laptop \"x\" (work)   \n"
				       "PublicKey = " KEY(
					   "D") " # other comment\r\n"
						"[Peer]\n"
						"publickey=" KEY(
						    "E") "\n"
							 "#friendly_name = after the key\n"
							 "[WireGuardPeer]\n"
							 "PublicKey=" KEY(
							     "F") "\n"
								  "# friendly_name = networkd\n"
								  "[Peer]\n"
								  "# friendly_name = \xff\xfe not "
								  "utf-8\n"
								  "PublicKey = " KEY(
								      "G") "\n"
									   "[Peer]\n"
									   "# friendly_name = bad "
									   "key\n"
									   "PublicKey = " KEY(
									       "H") "x\n"
										    "[Peer]\n"
										    "# "
										    "friendly_name "
										    "= first\n"
										    "PublicKey "
										    "= " KEY(
											"I") "\n"
											     "[Peer"
											     "]\n"
											     "# "
											     "frien"
											     "dly_"
											     "name "
											     "= "
											     "\xc3"
											     "\xa9t"
											     "\xc3"
											     "\xa9 "
											     "\xf0"
											     "\x9f"
											     "\x93"
											     "\xb1"
											     "\n"
											     "Publi"
											     "cKey "
											     "="
											     " " KEY(
												 "I") "\n"
												      "[Peerx]\n"
												      "# friendly_name = not a peer section\n"
												      "PublicKey = " KEY(
													  "J") "\n";
	struct metrics_names n;
	char *copy = strdup(text);
	char *big = malloc(METRICS_NAME_MAX + 200);

	CHECK(copy && big);
	CHECK(metrics_names_parse(&n, copy, strlen(text)) == 0);
	CHECK(name_is(&n, KEY("Z"), NULL));
	CHECK(name_is(&n, KEY("B"), "phone 6T"));
	CHECK(name_is(&n, KEY("C"), NULL));
	CHECK(name_is(&n, KEY("D"), "laptop \"x\" (work)"));
	CHECK(name_is(&n, KEY("E"), "after the key"));
	CHECK(name_is(&n, KEY("F"), "networkd"));
	CHECK(name_is(&n, KEY("G"), NULL));
	CHECK(name_is(&n, KEY("H"), NULL));
	CHECK(name_is(&n, KEY("I"), "\xc3\xa9t\xc3\xa9 \xf0\x9f\x93\xb1")); /* the last wins */
	CHECK(name_is(&n, KEY("J"), NULL));
	metrics_names_free(&n);
	/* a name of METRICS_NAME_MAX bytes is kept, one more is not */
	for (size_t extra = 0; extra < 2; extra++) {
		int len = snprintf(big, METRICS_NAME_MAX + 200,
				   "[Peer]\n# friendly_name = %0*d\nPublicKey = %s\n",
				   (int)(METRICS_NAME_MAX + extra), 0, KEY("K"));

		CHECK(metrics_names_parse(&n, strdup(big), (size_t)len) == 0);
		CHECK(extra ? name_is(&n, KEY("K"), NULL) : name_of_key(&n, KEY("K")) != NULL);
		metrics_names_free(&n);
	}
	/* overlong and surrogate encodings are not UTF-8 */
	CHECK(!utf8_valid((const unsigned char *)"\xc0\xaf") &&
	      !utf8_valid((const unsigned char *)"\xed\xa0\x80"));
	CHECK(!utf8_valid((const unsigned char *)"\xf4\x90\x80\x80") &&
	      !utf8_valid((const unsigned char *)"\xe2\x82"));
	CHECK(metrics_names_load(&n, "/nonexistent/zt-names") == -ENOENT);
	free(big);
}

int main(void)
{
	test_listen();
	test_cli();
	test_request();
	test_names();
	return test_finish("metrics");
}
