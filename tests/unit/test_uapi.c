/* The configuration socket's server (daemon/uapi.c) and set parser
 * (daemon/uapi_parse.c): framing of malformed requests (answered or closed
 * at once, never left waiting for a blank line), CRLF set bodies, endpoint
 * forms (zone kept, IPv4-mapped kept as IPv6), and no copy of a partial
 * request left on the stack by the read. The server runs on a socketpair,
 * one service_client call per step, as poll would drive it. */
#include "test.h"

#include "../../daemon/buf.c"
#include "../../daemon/log.c"
#include "../../daemon/uapi.c"
#include "../../daemon/uapi_parse.c"

#include <arpa/inet.h>

/* ASan may move frames to a fake stack: then there is nothing to scan */
#if defined(__SANITIZE_ADDRESS__)
#define STACK_IS_SCANNABLE 0
#elif defined(__has_feature)
#define STACK_IS_SCANNABLE (!__has_feature(address_sanitizer))
#else
#define STACK_IS_SCANNABLE 1
#endif

enum {
	STACK_SCAN = 64 << 10, /* well past read_input's frame and its 16 KiB */
	REPLY_MAX = 4096,
};

/* A key-like secret the partial requests carry. */
static const char SECRET[] = "5ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2";

static int set_calls;
static uint16_t set_port;

static int stub_get(void *ctx, struct buf *out)
{
	(void)ctx;
	return buf_printf(out, "listen_port=%u\n", set_port) ? 0 : -ENOMEM;
}

static int stub_set(void *ctx, const char *body, size_t len)
{
	struct uapi_set set;
	int ret = uapi_parse_set(body, len, &set, NULL);

	(void)ctx;
	set_calls++;
	if (ret)
		return ret;
	if (set.has_listen_port)
		set_port = set.listen_port;
	uapi_set_free(&set);
	return 0;
}

struct pair {
	struct uapi_server s;
	int peer; /* the client's end */
};

static void pair_open(struct pair *p)
{
	int sv[2];
	struct uapi_client *c = &p->s.clients[0];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	memset(&p->s, 0, sizeof(p->s));
	p->s.listen_fd = p->s.reserve_fd = -1;
	p->s.ops = (struct uapi_ops){.get = stub_get, .set = stub_set};
	p->s.n_clients = 1;
	memset(c, 0, sizeof(*c));
	c->fd = sv[0];
	buf_init(&c->in, UAPI_MAX_REQUEST);
	buf_init(&c->out, UAPI_MAX_RESPONSE);
	p->peer = sv[1];
}

static void pair_close(struct pair *p)
{
	if (p->s.n_clients)
		drop_client(&p->s, 0);
	close(p->peer);
}

/* Out of line: read_input's frame (and its buffer) is dead on return, at
 * the depth dead_stack_holds scans next. */
static __attribute__((noinline)) bool step(struct pair *p)
{
	return service_client(&p->s, &p->s.clients[0], POLLIN);
}

/* Sends req, runs one step. Returns false if the server closed the client;
 * reply gets what it answered ("" if nothing). */
static bool exchange(struct pair *p, const char *req, char reply[REPLY_MAX])
{
	bool open;
	ssize_t n;

	if (send(p->peer, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req))
		abort();
	open = step(p);
	n = recv(p->peer, reply, REPLY_MAX - 1, MSG_DONTWAIT);
	reply[n > 0 ? n : 0] = '\0';
	return open;
}

/* An answer or a close: either way the client is not left waiting. */
static void check_prompt(const char *req, bool want_open, const char *want_reply)
{
	struct pair p;
	char reply[REPLY_MAX];
	bool open;

	pair_open(&p);
	open = exchange(&p, req, reply);
	if (open != want_open || strcmp(reply, want_reply)) {
		fprintf(stderr, "  request %s: %s, answered \"%s\"\n", req,
			open ? "open" : "closed", reply);
		CHECK(0);
	}
	pair_close(&p);
}

static void test_framing(void)
{
	char reply[REPLY_MAX];
	struct pair p;

	/* a CR on the operation line: closed, as wireguard-go does */
	check_prompt("get=1\r\n\r\n", false, "");
	check_prompt("get=1\r", false, "");
	check_prompt("set=1\r\nlisten_port=1\r\n\r\n", false, "");
	check_prompt("get=1 \n\n", false, "");
	check_prompt("hello\n\n", false, "");
	/* get=1 then anything but the blank line: EINVAL at once, closed */
	check_prompt("get=1\nx", false, "errno=-22\n\n");
	check_prompt("get=1\n\r\n", false, "errno=-22\n\n");
	check_prompt("get=1\nlisten_port=1\n\n", false, "errno=-22\n\n");
	/* not yet decidable: waits, answers nothing */
	check_prompt("get=", true, "");
	check_prompt("get=1\n", true, "");
	check_prompt("set=1\nlisten_port=1\n", true, "");
	check_prompt("set=1\nlisten_port=1\n\r", true, "");

	/* CRLF set lines, and a CRLF blank line, as wireguard-go reads them */
	set_calls = 0;
	check_prompt("set=1\r\n", false, "");
	CHECK(set_calls == 0);
	check_prompt("set=1\nlisten_port=51000\r\n\r\n", true, "errno=0\n\n");
	CHECK(set_calls == 1 && set_port == 51000);
	check_prompt("set=1\nlisten_port=51001\r\n\n", true, "errno=0\n\n");
	CHECK(set_port == 51001);
	check_prompt("set=1\nlisten_port=51002\n\r\n", true, "errno=0\n\n");
	CHECK(set_port == 51002);
	check_prompt("set=1\r\n\r\n", false, "");
	check_prompt("set=1\n\r\n", true, "errno=0\n\n");
	check_prompt("set=1\nlisten_port=5\r\r\n\n", true, "errno=-22\n\n");

	/* a whole request split anywhere still frames; the connection goes on */
	pair_open(&p);
	CHECK(exchange(&p, "set=1\nlisten_port=51003\r", reply) && !*reply);
	CHECK(exchange(&p, "\n\r", reply) && !*reply);
	CHECK(exchange(&p, "\n", reply) && !strcmp(reply, "errno=0\n\n"));
	CHECK(set_port == 51003);
	CHECK(exchange(&p, "get=1\n", reply) && !*reply);
	CHECK(exchange(&p, "\n", reply) && !strcmp(reply, "listen_port=51003\nerrno=0\n\n"));
	pair_close(&p);
}

/* Does the dead stack below the caller's frame hold SECRET? */
static __attribute__((noinline)) bool dead_stack_holds_secret(void)
{
	const volatile char *top = __builtin_frame_address(0);
	char *copy = malloc(STACK_SCAN);
	bool found;

	if (!copy)
		abort();
	for (size_t i = 0; i < STACK_SCAN; i++)
		copy[i] = top[(ptrdiff_t)i - STACK_SCAN];
	found = memmem(copy, STACK_SCAN, SECRET, sizeof(SECRET) - 1) != NULL;
	free(copy);
	return found;
}

/* A read that ends without the blank line leaves no copy of the partial
 * request on the stack; an end of file drops the partial request. */
static void test_wipe(void)
{
	static const char head[] = "set=1\nprivate_key=";
	/* built without stdio, which would leave copies on the stack */
	char *req = calloc(1, sizeof(head) + sizeof(SECRET) + 1);
	char reply[REPLY_MAX];
	struct pair p;
	bool held;

	if (!req)
		abort();
	memcpy(req, head, sizeof(head) - 1);
	memcpy(req + sizeof(head) - 1, SECRET, sizeof(SECRET) - 1);
	req[sizeof(head) + sizeof(SECRET) - 2] = '\n';
	pair_open(&p);
	CHECK(exchange(&p, req, reply) && !*reply);
	held = dead_stack_holds_secret();
	if (STACK_IS_SCANNABLE)
		CHECK(!held);
	CHECK(p.s.clients[0].in.len == strlen(req)); /* kept until it completes */
	free(req);
	shutdown(p.peer, SHUT_WR);
	CHECK(!step(&p));
	CHECK(p.s.clients[0].in.data == NULL && p.s.clients[0].in.len == 0);
	pair_close(&p);
}

static void check_endpoint(const char *in, int family, uint32_t scope, const char *out)
{
	union uapi_sockaddr sa;
	char s[INET6_ADDRSTRLEN + 32];

	if (!uapi_parse_endpoint(in, strlen(in), &sa)) {
		fprintf(stderr, "  endpoint %s refused\n", in);
		CHECK(0);
		return;
	}
	CHECK(sa.sa.sa_family == family);
	if (family == AF_INET6)
		CHECK(sa.in6.sin6_scope_id == scope);
	CHECK(uapi_format_endpoint(s, sizeof(s), &sa.sa));
	if (strcmp(s, out)) {
		fprintf(stderr, "  endpoint %s reads back as %s, expected %s\n", in, s, out);
		CHECK(0);
	}
}

static void test_endpoints(void)
{
	union uapi_sockaddr sa;
	unsigned int lo = if_nametoindex("lo");

	check_endpoint("192.0.2.1:51820", AF_INET, 0, "192.0.2.1:51820");
	check_endpoint("[2001:db8::1]:443", AF_INET6, 0, "[2001:db8::1]:443");
	check_endpoint("[fe80::1%2]:51820", AF_INET6, 2, "[fe80::1%2]:51820");
	/* IPv4-mapped stays IPv6, as the Linux module and wireguard-go keep it */
	check_endpoint("[::ffff:10.0.0.1]:51820", AF_INET6, 0, "[::ffff:10.0.0.1]:51820");
	check_endpoint("[::ffff:10.0.0.1%3]:51820", AF_INET6, 3, "[::ffff:10.0.0.1%3]:51820");
	if (lo) {
		char want[64];

		snprintf(want, sizeof(want), "[fe80::1%%%u]:51820", lo);
		check_endpoint("[fe80::1%lo]:51820", AF_INET6, lo, want);
	}
	CHECK(!uapi_parse_endpoint("[fe80::1%]:1", 12, &sa));
	CHECK(!uapi_parse_endpoint("[fe80::1%nosuchif0]:1", 21, &sa));
	CHECK(!uapi_parse_endpoint("::ffff:10.0.0.1:1", 17, &sa));
}

/* A refused set names its line, key, value and reason. */
static void check_refusal(const char *body, int want_ret, size_t line, const char *key,
			  const char *value, const char *reason)
{
	struct uapi_parse_error err;
	struct uapi_set set;
	int ret = uapi_parse_set(body, strlen(body), &set, &err);

	CHECK(ret == want_ret);
	CHECK(err.line == line);
	CHECK(err.key_len == strlen(key) && !memcmp(body + err.key_off, key, err.key_len));
	CHECK(err.value_len == strlen(value) &&
	      !memcmp(body + err.value_off, value, err.value_len));
	CHECK(err.reason && !strcmp(err.reason, reason));
}

static void test_refusal_reasons(void)
{
	static const char pub[] =
	    "public_key=0101010101010101010101010101010101010101010101010101010101010101\n";
	char body[512];
	struct uapi_parse_error err;
	struct uapi_set set;

	snprintf(body, sizeof(body), "listen_port=1\n%sendpoint=10.99.0.2:notaport\n", pub);
	check_refusal(body, -EINVAL, 3, "endpoint", "10.99.0.2:notaport", "invalid port");
	snprintf(body, sizeof(body), "%sendpoint=10.99.0:51820\r\n", pub);
	check_refusal(body, -EINVAL, 2, "endpoint", "10.99.0:51820", "invalid IPv4 address");
	snprintf(body, sizeof(body), "%sallowed_ip=10.0.0.0/33\n", pub);
	check_refusal(body, -EINVAL, 2, "allowed_ip", "10.0.0.0/33",
		      "invalid prefix (address/length expected)");
	check_refusal("listen_port=70000\n", -EINVAL, 1, "listen_port", "70000", "invalid port");
	check_refusal("private_key=zz\n", -EINVAL, 1, "private_key", "zz",
		      "invalid key (64 hex digits expected)");
	check_refusal("frobnicate=1\n", -EINVAL, 1, "frobnicate", "1", "unknown key");
	check_refusal("fwmark=0\nnoequals\n", -EPROTO, 2, "noequals", "", "no '=' in the line");
	/* accepted: no reason */
	CHECK(uapi_parse_set("fwmark=1\n", 9, &set, &err) == 0 && err.reason == NULL);
	uapi_set_free(&set);
}

int main(void)
{
	level = LOG_LEVEL_SILENT; /* log.c's: refusals are expected here */
	test_framing();
	test_wipe();
	test_endpoints();
	test_refusal_reasons();
	return test_finish("uapi");
}
