// SPDX-License-Identifier: MIT
/* The SOCKS5 server state machine (proxy/socks_proto.c): RFC 1928 negotiation,
 * RFC 1929 authentication, requests, replies and UDP datagram headers. */
#include "test.h"

#include "../../proxy/cred.c"
#include "../../proxy/socks_proto.c"

#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

static bool out_is(const struct socks5_step *st, const uint8_t *want, size_t n)
{
	return st->out_len == n && !memcmp(st->out, want, n);
}

static void test_no_auth(void)
{
	struct socks5 s;
	struct socks5_step st;

	socks5_init(&s, NULL, NULL);
	socks5_feed(&s, BYTES(5, 2, 2, 0), &st);
	CHECK(st.action == SOCKS5_MORE && st.used == 4 && out_is(&st, BYTES(5, 0)));
	socks5_feed(&s, BYTES(5, 1, 0, 1, 10, 0, 0, 7, 0x1f, 0x90), &st);
	CHECK(st.action == SOCKS5_CONNECT && st.used == 10 && st.out_len == 0);
	CHECK(st.dst.atyp == SOCKS5_ATYP_IPV4 && !memcmp(st.dst.ipv4, "\x0a\x00\x00\x07", 4) &&
	      st.dst.port == 8080);
	/* done: anything more is the caller's stream, never ours */
	socks5_feed(&s, BYTES(1, 2, 3), &st);
	CHECK(st.action == SOCKS5_CLOSE && st.used == 0);

	/* greeting, request and first data in one read */
	socks5_init(&s, NULL, NULL);
	socks5_feed(&s,
		    BYTES(5, 1, 0, 5, 1, 0, 3, 11, 'E', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o',
			  'm', 1, 187, 'G', 'E', 'T'),
		    &st);
	CHECK(st.action == SOCKS5_CONNECT && st.used == 3 + 18 && out_is(&st, BYTES(5, 0)));
	CHECK(st.dst.atyp == SOCKS5_ATYP_DOMAIN && !strcmp(st.dst.domain, "Example.com") &&
	      st.dst.port == 443);

	/* the same one byte at a time */
	const uint8_t msg[] = {5, 1, 0, 5, 3, 0, 4, 0x20, 1, 0x0d, 0xb8, 0, 0,
			       0, 0, 0, 0, 0, 0, 0, 0,	  0, 1,	   0,	 53};
	socks5_init(&s, NULL, NULL);
	for (size_t i = 0; i < sizeof(msg); i++) {
		socks5_feed(&s, msg + i, 1, &st);
		CHECK(st.used == 1);
		if (i == 2)
			CHECK(out_is(&st, BYTES(5, 0)));
		else
			CHECK(st.out_len == 0);
		CHECK(st.action == (i + 1 == sizeof(msg) ? SOCKS5_UDP_ASSOCIATE : SOCKS5_MORE));
	}
	CHECK(st.dst.atyp == SOCKS5_ATYP_IPV6 && st.dst.ipv6[0] == 0x20 && st.dst.ipv6[15] == 1 &&
	      st.dst.port == 53);

	/* a client that only offers username/password */
	socks5_init(&s, NULL, NULL);
	socks5_feed(&s, BYTES(5, 1, 2), &st);
	CHECK(st.action == SOCKS5_CLOSE && out_is(&st, BYTES(5, 0xff)));
	/* no methods at all */
	socks5_init(&s, NULL, NULL);
	socks5_feed(&s, BYTES(5, 0), &st);
	CHECK(st.action == SOCKS5_CLOSE && out_is(&st, BYTES(5, 0xff)));
	/* SOCKS4, or HTTP to the wrong port: closed at the first byte, no reply */
	socks5_init(&s, NULL, NULL);
	socks5_feed(&s, BYTES(4, 1, 0, 80, 1, 2, 3, 4, 0), &st);
	CHECK(st.action == SOCKS5_CLOSE && st.out_len == 0 && st.used <= 2);
	socks5_init(&s, NULL, NULL);
	socks5_feed(&s, (const uint8_t *)"GET / HTTP/1.1\r\n", 16, &st);
	CHECK(st.action == SOCKS5_CLOSE && st.out_len == 0);
	/* a request with another version */
	socks5_init(&s, NULL, NULL);
	socks5_feed(&s, BYTES(5, 1, 0, 4, 1), &st);
	CHECK(st.action == SOCKS5_CLOSE && out_is(&st, BYTES(5, 0)));
}

static void test_requests_refused(void)
{
	static const struct {
		uint8_t req[12];
		size_t len;
		uint8_t rep;
	} cases[] = {
	    {{5, 2, 0, 1, 1, 2, 3, 4, 0, 80}, 10, SOCKS5_REP_CMD_NOT_SUPPORTED}, /* BIND */
	    {{5, 9, 0, 1, 1, 2, 3, 4, 0, 80}, 10, SOCKS5_REP_CMD_NOT_SUPPORTED},
	    {{5, 1, 0, 2, 1, 2}, 4, SOCKS5_REP_ATYP_NOT_SUPPORTED},
	    {{5, 1, 0, 3, 0, 0, 80}, 7, SOCKS5_REP_GENERAL_FAILURE},		   /* empty name */
	    {{5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80}, 10, SOCKS5_REP_GENERAL_FAILURE}, /* NUL */
	};
	struct socks5 s;
	struct socks5_step st;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		socks5_init(&s, NULL, NULL);
		socks5_feed(&s, BYTES(5, 1, 0), &st);
		socks5_feed(&s, cases[i].req, cases[i].len, &st);
		CHECK(st.action == SOCKS5_CLOSE && st.used == cases[i].len);
		CHECK(out_is(&st, BYTES(5, cases[i].rep, 0, 1, 0, 0, 0, 0, 0, 0)));
	}
}

static void test_auth(void)
{
	struct socks5 s;
	struct socks5_step st;

	socks5_init(&s, "alice", "s3cret");
	/* offering only "no authentication" is not enough */
	socks5_feed(&s, BYTES(5, 1, 0), &st);
	CHECK(st.action == SOCKS5_CLOSE && out_is(&st, BYTES(5, 0xff)));

	socks5_init(&s, "alice", "s3cret");
	socks5_feed(&s, BYTES(5, 2, 0, 2), &st);
	CHECK(st.action == SOCKS5_MORE && out_is(&st, BYTES(5, 2)));
	socks5_feed(&s, BYTES(1, 5, 'a', 'l', 'i', 'c', 'e', 6, 's', '3', 'c', 'r', 'e', 't'), &st);
	CHECK(st.action == SOCKS5_MORE && out_is(&st, BYTES(1, 0)));
	for (size_t i = 0; i < sizeof(s.buf); i++) /* the password is not kept */
		CHECK(s.buf[i] == 0);
	socks5_feed(&s, BYTES(5, 1, 0, 1, 192, 0, 2, 1, 0, 22), &st);
	CHECK(st.action == SOCKS5_CONNECT && st.dst.port == 22);

	/* greeting and credentials in one read: both replies */
	socks5_init(&s, "alice", "s3cret");
	socks5_feed(&s,
		    BYTES(5, 1, 2, 1, 5, 'a', 'l', 'i', 'c', 'e', 6, 's', '3', 'c', 'r', 'e', 't'),
		    &st);
	CHECK(st.action == SOCKS5_MORE && out_is(&st, BYTES(5, 2, 1, 0)));

	static const struct {
		uint8_t msg[24];
		size_t len;
	} wrong[] = {
	    {{1, 5, 'a', 'l', 'i', 'c', 'e', 6, 's', '3', 'c', 'r', 'e', 'T'}, 14},
	    {{1, 5, 'a', 'l', 'i', 'c', 'E', 6, 's', '3', 'c', 'r', 'e', 't'}, 14},
	    {{1, 5, 'a', 'l', 'i', 'c', 'e', 5, 's', '3', 'c', 'r', 'e'}, 13}, /* a prefix */
	    {{1, 5, 'a', 'l', 'i', 'c', 'e', 7, 's', '3', 'c', 'r', 'e', 't', 0}, 15}, /* longer */
	    {{1, 4, 'a', 'l', 'i', 'c', 6, 's', '3', 'c', 'r', 'e', 't'}, 13},
	    {{1, 0, 0}, 3},
	    {{2, 5, 'a', 'l', 'i', 'c', 'e', 6, 's', '3', 'c', 'r', 'e', 't'}, 14}, /* version */
	};
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		socks5_init(&s, "alice", "s3cret");
		socks5_feed(&s, BYTES(5, 1, 2), &st);
		socks5_feed(&s, wrong[i].msg, wrong[i].len, &st);
		CHECK(st.action == SOCKS5_CLOSE && out_is(&st, BYTES(1, 1)));
		socks5_feed(&s, BYTES(5, 1, 0, 1, 1, 1, 1, 1, 0, 1), &st);
		CHECK(st.action == SOCKS5_CLOSE && st.out_len == 0);
	}

	CHECK(proxy_cred_equal("abc", 3, "abc", 3));
	CHECK(!proxy_cred_equal("abc", 3, "abd", 3));
	CHECK(!proxy_cred_equal("abc", 3, "abc\0", 4)); /* zero padding does not make them equal */
	CHECK(!proxy_cred_equal("", 0, "a", 1));
	CHECK(proxy_cred_equal("", 0, "", 0));
	char big[300];
	memset(big, 'x', sizeof(big));
	CHECK(proxy_cred_equal(big, 255, big, 255));
	CHECK(!proxy_cred_equal(big, 256, big, 256));
}

static void test_replies(void)
{
	uint8_t out[SOCKS5_REPLY_MAX];
	struct socks5_addr a = {.atyp = SOCKS5_ATYP_IPV4, .ipv4 = {10, 0, 0, 2}, .port = 0x1234};

	CHECK(socks5_reply(out, SOCKS5_REP_SUCCESS, &a) == 10 &&
	      !memcmp(out, "\x05\x00\x00\x01\x0a\x00\x00\x02\x12\x34", 10));
	a.atyp = SOCKS5_ATYP_IPV6;
	memset(a.ipv6, 0, 16);
	a.ipv6[15] = 1;
	CHECK(socks5_reply(out, SOCKS5_REP_SUCCESS, &a) == 22 && out[3] == 4 && out[19] == 1 &&
	      out[20] == 0x12 && out[21] == 0x34);
	a.atyp = SOCKS5_ATYP_DOMAIN;
	strcpy(a.domain, "example.com");
	CHECK(socks5_reply(out, SOCKS5_REP_SUCCESS, &a) == 10 && out[3] == 1 &&
	      !memcmp(out + 4, "\0\0\0\0\x12\x34", 6));
	static const uint8_t codes[] = {
	    SOCKS5_REP_GENERAL_FAILURE,	  SOCKS5_REP_HOST_UNREACHABLE,	 SOCKS5_REP_CONN_REFUSED,
	    SOCKS5_REP_CMD_NOT_SUPPORTED, SOCKS5_REP_ATYP_NOT_SUPPORTED, SOCKS5_REP_NET_UNREACHABLE,
	    SOCKS5_REP_TTL_EXPIRED,	  SOCKS5_REP_NOT_ALLOWED,
	};
	for (size_t i = 0; i < sizeof(codes); i++) {
		CHECK(socks5_reply(out, codes[i], NULL) == 10);
		CHECK(out[0] == 5 && out[1] == codes[i] && out[2] == 0 && out[3] == 1 &&
		      !memcmp(out + 4, "\0\0\0\0\0\0", 6));
	}
	CHECK(SOCKS5_REP_HOST_UNREACHABLE == 4 && SOCKS5_REP_CONN_REFUSED == 5 &&
	      SOCKS5_REP_CMD_NOT_SUPPORTED == 7 && SOCKS5_REP_ATYP_NOT_SUPPORTED == 8);
}

static void test_udp(void)
{
	struct socks5_addr a, b;
	uint8_t hdr[SOCKS5_UDP_HEADER_MAX];

	CHECK(socks5_udp_parse(BYTES(0, 0, 0, 1, 10, 0, 0, 1, 0, 53, 'q'), &a) == 10);
	CHECK(a.atyp == SOCKS5_ATYP_IPV4 && a.ipv4[0] == 10 && a.port == 53);
	CHECK(socks5_udp_parse(BYTES(0, 0, 0, 3, 1, 'h', 0, 9), &a) == 8);
	CHECK(a.atyp == SOCKS5_ATYP_DOMAIN && !strcmp(a.domain, "h") && a.port == 9);
	CHECK(socks5_udp_parse(BYTES(0, 0, 1, 1, 10, 0, 0, 1, 0, 53), &a) == -1); /* FRAG */
	CHECK(socks5_udp_parse(BYTES(0, 0, 0x80, 1, 10, 0, 0, 1, 0, 53), &a) == -1);
	CHECK(socks5_udp_parse(BYTES(0, 1, 0, 1, 10, 0, 0, 1, 0, 53), &a) == -1); /* RSV */
	CHECK(socks5_udp_parse(BYTES(1, 0, 0, 1, 10, 0, 0, 1, 0, 53), &a) == -1);
	CHECK(socks5_udp_parse(BYTES(0, 0, 0, 1, 10, 0, 0, 1, 0), &a) == -1); /* short */
	CHECK(socks5_udp_parse(BYTES(0, 0, 0, 4, 0, 0, 0, 0), &a) == -1);
	CHECK(socks5_udp_parse(BYTES(0, 0, 0, 3), &a) == -1);
	CHECK(socks5_udp_parse(BYTES(0, 0, 0, 3, 5, 'a', 'b'), &a) == -1);
	CHECK(socks5_udp_parse(BYTES(0, 0, 0, 3, 0, 0, 53), &a) == -1);
	CHECK(socks5_udp_parse(BYTES(0, 0, 0, 5, 0, 0, 53), &a) == -1);
	CHECK(socks5_udp_parse(BYTES(0, 0, 0), &a) == -1);

	/* build then parse: every address type */
	struct socks5_addr in[3] = {
	    {.atyp = SOCKS5_ATYP_IPV4, .ipv4 = {1, 2, 3, 4}, .port = 1},
	    {.atyp = SOCKS5_ATYP_IPV6, .ipv6 = {0xfd, [15] = 7}, .port = 65535},
	    {.atyp = SOCKS5_ATYP_DOMAIN, .port = 53},
	};
	memset(in[2].domain, 'd', PROXY_HOST_MAX);
	in[2].domain[PROXY_HOST_MAX] = '\0';
	for (int i = 0; i < 3; i++) {
		size_t n = socks5_udp_header(hdr, &in[i]);
		CHECK(n <= SOCKS5_UDP_HEADER_MAX && hdr[0] == 0 && hdr[1] == 0 && hdr[2] == 0);
		CHECK(socks5_udp_parse(hdr, n, &b) == (int)n);
		CHECK(b.atyp == in[i].atyp && b.port == in[i].port);
	}
	CHECK(!memcmp(b.domain, in[2].domain, PROXY_HOST_MAX + 1));
}

int main(void)
{
	test_no_auth();
	test_requests_refused();
	test_auth();
	test_replies();
	test_udp();
	return test_finish("test_socks5");
}
