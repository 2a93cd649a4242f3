/* Command line and environment parsing (see cli.h). */
#include "cli.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* An empty name would make the kernel pick "tun%d", '/' would leave the
 * socket directory; the rest is what dev_valid_name() refuses. */
bool zt_cli_valid_ifname(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= IF_NAMESIZE || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *p = name; *p; p++) {
		if (*p == '/' || *p == ':' || *p == ' ' || (*p >= '\t' && *p <= '\r'))
			return false;
	}
	return true;
}

int zt_cli_parse_fd(const char *s)
{
	int64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > INT32_MAX)
			return -1;
	}
	return (int)v;
}

enum { PORT_MAX = 65535 };

static bool parse_port(const char *s, uint16_t *port)
{
	uint32_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint32_t)(*s - '0');
		if (v > PORT_MAX)
			return false;
	}
	*port = (uint16_t)v;
	return v != 0;
}

bool zt_cli_parse_listen(const char *s, struct sockaddr_storage *addr, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)addr;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)addr;
	char host[INET6_ADDRSTRLEN];
	const char *colon;
	uint16_t port;
	size_t n;

	memset(addr, 0, sizeof(*addr));
	if (parse_port(s, &port)) {
		/* a port alone: loopback, never exposed by accident */
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*len = sizeof(*in4);
		return true;
	}
	if (s[0] == '[') {
		colon = strstr(s, "]:");
		if (!colon || (n = (size_t)(colon - s - 1)) >= sizeof(host))
			return false;
		memcpy(host, s + 1, n);
		host[n] = 0;
		if (!parse_port(colon + 2, &port) || inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return false;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return true;
	}
	colon = strchr(s, ':');
	if (!colon || (n = (size_t)(colon - s)) >= sizeof(host))
		return false;
	memcpy(host, s, n);
	host[n] = 0;
	if (!parse_port(colon + 1, &port) || inet_pton(AF_INET, host, &in4->sin_addr) != 1)
		return false;
	in4->sin_family = AF_INET;
	in4->sin_port = htons(port);
	*len = sizeof(*in4);
	return true;
}

/* An error that names what was wrong; main prints it with a --help hint. */
static void __attribute__((format(printf, 2, 3))) fail(struct zt_cli *out, const char *fmt, ...)
{
	va_list ap;

	out->action = ZT_CLI_ERROR;
	va_start(ap, fmt);
	vsnprintf(out->err, sizeof(out->err), fmt, ap);
	va_end(ap);
}

static bool is(const char *v, const char *lit)
{
	return v && !strcmp(v, lit);
}

void zt_cli_parse(int argc, char *const argv[], const char *(*env)(void *ctx, const char *name),
		  void *ctx, struct zt_cli *out)
{
	const char *tun = env(ctx, "WG_TUN_FD");
	const char *sc = env(ctx, "ZINCTUN_SECCOMP");

	memset(out, 0, sizeof(*out));
	out->action = ZT_CLI_RUN;
	out->foreground = is(env(ctx, "WG_PROCESS_FOREGROUND"), "1");
	out->user = env(ctx, "ZINCTUN_USER");
	out->seccomp = !is(sc, "0");
	out->seccomp_kill = is(sc, "kill");
	/* wg may set a listen port below 1024 at any time */
	out->bind_service = !is(env(ctx, "ZINCTUN_BIND_SERVICE"), "0");
	/* wg-quick passes no flags: the environment turns it on too */
	out->metrics = env(ctx, "ZINCTUN_METRICS");
	out->tun_fd = -1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (is(a, "-f") || is(a, "--foreground")) {
			out->foreground = true;
		} else if (is(a, "--version") || is(a, "-v")) {
			out->action = ZT_CLI_VERSION;
			return;
		} else if (is(a, "--help") || is(a, "-h")) {
			out->action = ZT_CLI_HELP;
			return;
		} else if (is(a, "--user")) {
			if (i + 1 >= argc) {
				fail(out, "option '%s' needs a value", a);
				return;
			}
			out->user = argv[++i];
		} else if (!strncmp(a, "--user=", 7)) {
			out->user = a + 7;
		} else if (is(a, "--metrics")) {
			if (i + 1 >= argc) {
				fail(out, "option '%s' needs a value", a);
				return;
			}
			out->metrics = argv[++i];
		} else if (!strncmp(a, "--metrics=", 10)) {
			out->metrics = a + 10;
		} else if (a[0] == '-') {
			fail(out, "unknown option '%.40s'", a);
			return;
		} else if (out->ifname) {
			fail(out, "unexpected argument '%.40s' after '%.16s'", a, out->ifname);
			return;
		} else {
			out->ifname = a;
		}
	}
	if (out->user && !*out->user)
		out->user = NULL;
	if (out->metrics && !*out->metrics)
		out->metrics = NULL;
	if (out->metrics &&
	    !zt_cli_parse_listen(out->metrics, &out->metrics_addr, &out->metrics_addr_len)) {
		out->action = ZT_CLI_ERROR;
		snprintf(out->err, sizeof(out->err),
			 "invalid metrics address (PORT, IPV4:PORT or [IPV6]:PORT)");
		return;
	}
	if (tun && *tun) {
		out->tun_fd = zt_cli_parse_fd(tun);
		if (out->tun_fd < 0) {
			out->action = ZT_CLI_ERROR;
			snprintf(out->err, sizeof(out->err), "invalid WG_TUN_FD");
			return;
		}
	} else if (!out->ifname) {
		out->action = ZT_CLI_USAGE;
		return;
	}
	if (out->ifname && strlen(out->ifname) >= IF_NAMESIZE) {
		out->action = ZT_CLI_ERROR;
		snprintf(out->err, sizeof(out->err),
			 "interface name too long (at most %d characters)", IF_NAMESIZE - 1);
	} else if (out->ifname && !zt_cli_valid_ifname(out->ifname)) {
		out->action = ZT_CLI_ERROR;
		snprintf(out->err, sizeof(out->err), "invalid interface name '%s'", out->ifname);
	}
}
