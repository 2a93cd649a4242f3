/* Command line and environment parsing (see cli.h). */
#include "cli.h"

#include <net/if.h>
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
		} else if (is(a, "--user") && i + 1 < argc) {
			out->user = argv[++i];
		} else if (!strncmp(a, "--user=", 7)) {
			out->user = a + 7;
		} else if (a[0] == '-' || out->ifname) {
			out->action = ZT_CLI_USAGE;
			return;
		} else {
			out->ifname = a;
		}
	}
	if (out->user && !*out->user)
		out->user = NULL;
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
