// SPDX-License-Identifier: MIT
/* Command-line and environment errors name what was wrong, every variable
 * lands in its option or is refused (daemon/cli.c), and
 * the interface's address chosen as the ICMP source (daemon/ifaddr.c). */
#include "test.h"

#include "../../daemon/cli.c"
#include "../../daemon/uapi_parse.c"
#include "../../daemon/ifaddr.c"

static const char *no_env(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

static const char *tun_env(void *ctx, const char *name)
{
	return strcmp(name, "WG_TUN_FD") ? NULL : ctx;
}

/* argv from a NULL-terminated list; the result's action and message */
static enum zt_cli_action parse(struct zt_options *cli, void *tun, const char *a1, const char *a2,
				const char *a3)
{
	char *argv[] = {"zinctun", (char *)a1, (char *)a2, (char *)a3, NULL};
	int argc = 1;

	while (argv[argc])
		argc++;
	zt_cli_parse(argc, argv, tun ? tun_env : no_env, tun, cli);
	return cli->action;
}

/* One variable "NAME=VALUE" as the whole environment, "zinctun wg0" */
static const char *one_env(void *ctx, const char *name)
{
	const char *entry = ctx;
	size_t len = strlen(name);

	return !strncmp(entry, name, len) && entry[len] == '=' ? entry + len + 1 : NULL;
}

static enum zt_cli_action parse_one(struct zt_options *cli, const char *entry)
{
	char *argv[] = {"zinctun", "wg0", NULL};

	zt_cli_parse(2, argv, one_env, (void *)entry, cli);
	return cli->action;
}

/* entry is refused, with a message naming the variable (in c->err) */
static bool refused(struct zt_options *c, const char *entry)
{
	char name[32];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(entry, "="), entry);
	if (parse_one(c, entry) != ZT_CLI_ERROR || !strstr(c->err, name)) {
		fprintf(stderr, "%s: action %d, '%s'\n", entry, c->action, c->err);
		return false;
	}
	return true;
}

static void cli_errors(void)
{
	struct zt_options c;

	CHECK(parse(&c, NULL, "--bogus", "wg0", NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "unknown option '--bogus'") != NULL);
	CHECK(parse(&c, NULL, "wg0", "-x", NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "unknown option '-x'") != NULL);
	CHECK(parse(&c, NULL, "wg0", "--user", NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "option '--user' needs a value") != NULL);
	CHECK(parse(&c, NULL, "wg0", "wg1", NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "unexpected argument 'wg1'") != NULL);
	/* still fine */
	CHECK(parse(&c, NULL, "--user", "nobody", "wg0") == ZT_CLI_RUN);
	CHECK(!strcmp(c.user, "nobody") && !strcmp(c.ifname, "wg0"));
	CHECK(parse(&c, NULL, NULL, NULL, NULL) == ZT_CLI_USAGE);
	/* WG_TUN_FD keeps a name given beside it, for main to compare */
	CHECK(parse(&c, "3", "wg0", NULL, NULL) == ZT_CLI_RUN);
	CHECK(c.tun_fd == 3 && c.ifname && !strcmp(c.ifname, "wg0"));
	CHECK(parse(&c, "3", NULL, NULL, NULL) == ZT_CLI_RUN && !c.ifname);
	CHECK(parse(&c, "x3", "wg0", NULL, NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "WG_TUN_FD=x3 is not a descriptor number") != NULL);
}

/* Nothing set: the documented defaults. */
static void defaults(void)
{
	struct zt_options c;

	CHECK(parse(&c, NULL, "wg0", NULL, NULL) == ZT_CLI_RUN);
	CHECK(!c.foreground && c.tun_fd == -1 && c.uapi_fd == -1);
	CHECK(c.log_level == LOG_LEVEL_ERROR && !c.user && !c.metrics && !c.zinc_impl);
	CHECK(c.seccomp && !c.seccomp_kill && c.bind_service && !c.proxy);
	CHECK(c.dp.workers == -1 && c.dp.tun_queues == 1);
	CHECK(c.dp.tun_offload && c.dp.tun_gro && c.dp.udp_gso && c.dp.udp_gro);
}

/* Every variable: a good value lands in its field, a bad one is refused
 * with its name in the message, and empty is the default. */
static void variables(void)
{
	struct zt_options c;

	CHECK(parse_one(&c, "WG_PROCESS_FOREGROUND=1") == ZT_CLI_RUN && c.foreground);
	CHECK(parse_one(&c, "WG_PROCESS_FOREGROUND=0") == ZT_CLI_RUN && !c.foreground);
	CHECK(refused(&c, "WG_PROCESS_FOREGROUND=yes"));
	CHECK(parse_one(&c, "WG_UAPI_FD=7") == ZT_CLI_RUN && c.uapi_fd == 7);
	CHECK(refused(&c, "WG_UAPI_FD=7x"));
	CHECK(refused(&c, "WG_UAPI_FD=-1"));
	CHECK(parse_one(&c, "WG_UAPI_FD=") == ZT_CLI_RUN && c.uapi_fd == -1);
	CHECK(parse_one(&c, "LOG_LEVEL=info") == ZT_CLI_RUN && c.log_level == LOG_LEVEL_INFO);
	CHECK(parse_one(&c, "LOG_LEVEL=verbose") == ZT_CLI_RUN && c.log_level == LOG_LEVEL_DEBUG);
	CHECK(parse_one(&c, "LOG_LEVEL=silent") == ZT_CLI_RUN && c.log_level == LOG_LEVEL_SILENT);
	CHECK(parse_one(&c, "LOG_LEVEL=") == ZT_CLI_RUN && c.log_level == LOG_LEVEL_ERROR);
	CHECK(refused(&c, "LOG_LEVEL=loud"));
	CHECK(strstr(c.err, "accepted: silent, error, info, verbose, debug") != NULL);
	CHECK(parse_one(&c, "ZINCTUN_USER=root") == ZT_CLI_RUN && !strcmp(c.user, "root"));
	CHECK(parse_one(&c, "ZINCTUN_USER=") == ZT_CLI_RUN && !c.user);
	CHECK(parse_one(&c, "ZINCTUN_SECCOMP=0") == ZT_CLI_RUN && !c.seccomp);
	CHECK(parse_one(&c, "ZINCTUN_SECCOMP=1") == ZT_CLI_RUN && c.seccomp && !c.seccomp_kill);
	CHECK(parse_one(&c, "ZINCTUN_SECCOMP=kill") == ZT_CLI_RUN && c.seccomp && c.seccomp_kill);
	CHECK(refused(&c, "ZINCTUN_SECCOMP=off"));
	CHECK(parse_one(&c, "ZINCTUN_BIND_SERVICE=0") == ZT_CLI_RUN && !c.bind_service);
	CHECK(refused(&c, "ZINCTUN_BIND_SERVICE=no"));
	CHECK(parse_one(&c, "ZINCTUN_METRICS=9586") == ZT_CLI_RUN && c.metrics &&
	      c.metrics_addr.ss_family == AF_INET);
	CHECK(parse_one(&c, "ZINCTUN_METRICS=99999") == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "invalid metrics address") != NULL);
	CHECK(parse_one(&c, "ZINCTUN_LOG_FILE=/var/log/zt.log") == ZT_CLI_RUN &&
	      !strcmp(c.log_file, "/var/log/zt.log"));
	CHECK(parse_one(&c, "ZINCTUN_LOG_FILE=") == ZT_CLI_RUN && !c.log_file);
	/* names without an endpoint to show them: refused, not ignored */
	CHECK(parse_one(&c, "ZINCTUN_METRICS_NAMES=/etc/wireguard/wg0.conf") == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "ZINCTUN_METRICS_NAMES) needs --metrics") != NULL);
	CHECK(parse(&c, NULL, "--metrics=9586", "--metrics-names=/x.conf", "wg0") == ZT_CLI_RUN &&
	      !strcmp(c.metrics_names, "/x.conf"));
	CHECK(parse(&c, NULL, "--log-file", "/x.log", "wg0") == ZT_CLI_RUN &&
	      !strcmp(c.log_file, "/x.log"));
	CHECK(parse_one(&c, "ZINCTUN_NO_TUN_OFFLOAD=1") == ZT_CLI_RUN && !c.dp.tun_offload);
	CHECK(refused(&c, "ZINCTUN_NO_TUN_OFFLOAD=2"));
	CHECK(parse_one(&c, "ZINCTUN_NO_TUN_GRO=1") == ZT_CLI_RUN && !c.dp.tun_gro && c.dp.udp_gro);
	CHECK(refused(&c, "ZINCTUN_NO_TUN_GRO=true"));
	CHECK(parse_one(&c, "ZINCTUN_NO_UDP_GRO=1") == ZT_CLI_RUN && !c.dp.udp_gro && c.dp.tun_gro);
	CHECK(refused(&c, "ZINCTUN_NO_UDP_GRO=on"));
	CHECK(parse_one(&c, "ZINCTUN_NO_GSO=1") == ZT_CLI_RUN && !c.dp.udp_gso);
	CHECK(parse_one(&c, "ZINCTUN_NO_GSO=0") == ZT_CLI_RUN && c.dp.udp_gso);
	CHECK(refused(&c, "ZINCTUN_NO_GSO=1 "));
	/* the old switch of both GRO paths names its successors */
	CHECK(refused(&c, "ZINCTUN_NO_GRO=1"));
	CHECK(strstr(c.err, "ZINCTUN_NO_UDP_GRO") && strstr(c.err, "ZINCTUN_NO_TUN_GRO"));
	CHECK(parse_one(&c, "ZINCTUN_WORKERS=0") == ZT_CLI_RUN && c.dp.workers == 0);
	CHECK(parse_one(&c, "ZINCTUN_WORKERS=16") == ZT_CLI_RUN && c.dp.workers == 16);
	CHECK(refused(&c, "ZINCTUN_WORKERS=17"));
	CHECK(refused(&c, "ZINCTUN_WORKERS=-1"));
	CHECK(refused(&c, "ZINCTUN_WORKERS=99999999999999999999"));
	CHECK(parse_one(&c, "ZINCTUN_TUN_QUEUES=8") == ZT_CLI_RUN && c.dp.tun_queues == 8);
	CHECK(refused(&c, "ZINCTUN_TUN_QUEUES=0"));
	CHECK(refused(&c, "ZINCTUN_TUN_QUEUES=9"));
	CHECK(refused(&c, "ZINCTUN_TUN_QUEUES=2x"));
	CHECK(parse_one(&c, "ZINCTUN_TUN_QUEUES=1") == ZT_CLI_RUN && c.proxy_memory == 0);
	CHECK(parse_one(&c, "ZINCTUN_PROXY_MEMORY=64") == ZT_CLI_RUN && c.proxy_memory == 64);
	CHECK(refused(&c, "ZINCTUN_PROXY_MEMORY=3"));
	CHECK(refused(&c, "ZINCTUN_PROXY_MEMORY=65537"));
	CHECK(refused(&c, "ZINCTUN_PROXY_MEMORY=32M"));
	CHECK(parse_one(&c, "ZINC_IMPL=generic") == ZT_CLI_RUN && !strcmp(c.zinc_impl, "generic"));
	CHECK(parse_one(&c, "ZINC_IMPL=avx512") == ZT_CLI_RUN && !strcmp(c.zinc_impl, "avx512"));
	CHECK(parse_one(&c, "ZINC_IMPL=auto") == ZT_CLI_RUN);
	CHECK(parse_one(&c, "ZINC_IMPL=") == ZT_CLI_RUN && !c.zinc_impl);
	CHECK(refused(&c, "ZINC_IMPL=avx3"));
	/* a flag wins over its variable */
	{
		char *argv[] = {"zinctun", "--user=daemon", "wg0", NULL};

		zt_cli_parse(3, argv, one_env, "ZINCTUN_USER=root", &c);
		CHECK(c.action == ZT_CLI_RUN && !strcmp(c.user, "daemon"));
	}
}

/* --proxy FILE: alone, and before the environment is looked at. */
static void proxy(void)
{
	struct zt_options c;

	CHECK(parse(&c, NULL, "--proxy", "wg.conf", NULL) == ZT_CLI_PROXY);
	CHECK(!strcmp(c.proxy, "wg.conf"));
	CHECK(parse(&c, NULL, "--proxy=a b.conf", NULL, NULL) == ZT_CLI_PROXY);
	CHECK(!strcmp(c.proxy, "a b.conf"));
	{
		char *argv[] = {"zinctun", "--proxy", "p.conf", NULL};

		zt_cli_parse(3, argv, one_env, "LOG_LEVEL=loud", &c);
		CHECK(c.action == ZT_CLI_PROXY);
	}
	CHECK(parse(&c, NULL, "--proxy", NULL, NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "option '--proxy' needs a value") != NULL);
	CHECK(parse(&c, NULL, "--proxy=", NULL, NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "needs a file") != NULL);
	CHECK(parse(&c, NULL, "--proxy", "p.conf", "wg0") == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "--proxy FILE' takes no interface name") != NULL);
	CHECK(parse(&c, NULL, "-f", "--proxy", "p.conf") == ZT_CLI_ERROR);
	/* --user passes to the proxy (who it runs as when started by root) */
	CHECK(parse(&c, NULL, "--proxy=p.conf", "--user", "bob") == ZT_CLI_PROXY);
	CHECK(c.user && !strcmp(c.user, "bob") && !strcmp(c.proxy, "p.conf"));
	CHECK(parse(&c, NULL, "--proxy", "p.conf", "--help") == ZT_CLI_HELP);
	CHECK(parse(&c, NULL, "--proxyx", "p.conf", NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "unknown option '--proxyx'") != NULL);
}

static void icmp_source(void)
{
	static const uint8_t v4a[4] = {10, 0, 0, 1}, v4b[4] = {10, 0, 0, 2};
	static const uint8_t ll[16] = {0xfe, 0x80, [15] = 1}, gl[16] = {0xfd, 0x99, [15] = 1};
	static const uint8_t gl2[16] = {0xfd, 0x99, [15] = 2};
	struct if_addrs a = {0};

	/* IPv4: the first primary address, never a secondary */
	ifaddr_offer(&a, AF_INET, IFA_F_SECONDARY, RT_SCOPE_UNIVERSE, v4b);
	CHECK(!a.has4);
	ifaddr_offer(&a, AF_INET, 0, RT_SCOPE_UNIVERSE, v4a);
	ifaddr_offer(&a, AF_INET, 0, RT_SCOPE_UNIVERSE, v4b);
	CHECK(a.has4 && !memcmp(a.v4, v4a, 4));
	/* IPv6: global over link-local whatever the order, not tentative */
	ifaddr_offer(&a, AF_INET6, 0, RT_SCOPE_LINK, ll);
	CHECK(a.has6 && !memcmp(a.v6, ll, 16));
	ifaddr_offer(&a, AF_INET6, IFA_F_TENTATIVE, RT_SCOPE_UNIVERSE, gl2);
	CHECK(!memcmp(a.v6, ll, 16));
	ifaddr_offer(&a, AF_INET6, 0, RT_SCOPE_UNIVERSE, gl);
	ifaddr_offer(&a, AF_INET6, 0, RT_SCOPE_UNIVERSE, gl2);
	ifaddr_offer(&a, AF_INET6, 0, RT_SCOPE_LINK, ll);
	CHECK(!memcmp(a.v6, gl, 16));
	ifaddr_offer(&a, AF_INET6, 0, RT_SCOPE_HOST, gl2);
	CHECK(!memcmp(a.v6, gl, 16));
}

/* zinctun-proxy's command line, env one "NAME=VALUE" entry (or NULL) */
static enum zt_cli_action parse_proxy(struct zt_options *c, const char *env, const char *a1,
				      const char *a2, const char *a3)
{
	char *argv[] = {"zinctun-proxy", (char *)a1, (char *)a2, (char *)a3, NULL};
	int argc = 1;

	while (argv[argc])
		argc++;
	zt_cli_parse_proxy(argc, argv, env ? one_env : no_env, (void *)env, c);
	return c->action;
}

/* zinctun-proxy's options are parsed here too, once: its name, its socket,
 * its defaults (info, one queue, no TUN offload) and the daemon's
 * environment, whose errors stop it as they stop the daemon. */
static void proxy_program(void)
{
	struct zt_options c;

	CHECK(parse_proxy(&c, NULL, "/etc/zinctun/office.v2.conf", NULL, NULL) == ZT_CLI_RUN);
	CHECK(!strcmp(c.proxy, "/etc/zinctun/office.v2.conf") && !strcmp(c.name, "office"));
	CHECK(!c.socket && c.foreground && c.log_level == LOG_LEVEL_INFO);
	CHECK(parse_proxy(&c, "ZINCTUN_TUN_QUEUES=2", "-f", "p.conf", NULL) == ZT_CLI_RUN);
	CHECK(c.dp.tun_queues == 1 && !c.dp.tun_offload && c.dp.tun_gro);
	CHECK(parse_proxy(&c, "LOG_LEVEL=debug", "--name", "averyveryverylongname", "x") ==
	      ZT_CLI_RUN);
	CHECK(!strcmp(c.name, "averyveryverylo") && strlen(c.name) == ZT_CLI_NAME_MAX);
	CHECK(c.log_level == LOG_LEVEL_DEBUG && !strcmp(c.proxy, "x"));
	CHECK(parse_proxy(&c, NULL, "--socket", "/run/p.sock", ".conf") == ZT_CLI_RUN);
	CHECK(!strcmp(c.socket, "/run/p.sock") && !strcmp(c.name, ZT_CLI_DEFAULT_NAME));
	CHECK(parse_proxy(&c, NULL, "--", "-dash.conf", NULL) == ZT_CLI_RUN);
	CHECK(!strcmp(c.proxy, "-dash.conf") && !strcmp(c.name, "-dash"));
	CHECK(parse_proxy(&c, "LOG_LEVEL=loud", "p.conf", NULL, NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "LOG_LEVEL") != NULL);
	CHECK(parse_proxy(&c, NULL, "--version", NULL, NULL) == ZT_CLI_VERSION);
	CHECK(parse_proxy(&c, NULL, "-h", NULL, NULL) == ZT_CLI_HELP);
	CHECK(parse_proxy(&c, NULL, NULL, NULL, NULL) == ZT_CLI_USAGE);
	CHECK(parse_proxy(&c, NULL, "a.conf", "b.conf", NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "a second file 'b.conf'") != NULL);
	CHECK(parse_proxy(&c, NULL, "a.conf", "--socket", NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "option '--socket' needs a value") != NULL);
	/* who it runs as when started by root (zinctun --proxy passes it) */
	CHECK(parse_proxy(&c, NULL, "--user", "x", "a.conf") == ZT_CLI_RUN);
	CHECK(c.user && !strcmp(c.user, "x") && !strcmp(c.proxy, "a.conf"));
	/* an unknown option is named (it printed the usage alone) */
	CHECK(parse_proxy(&c, NULL, "--bogus", "x", "a.conf") == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "unknown option '--bogus'") != NULL);
}

/* wireproxy v1.0.9's command line: -c FILE, -n, -s, -d, -i ADDR, -v. */
static void proxy_wireproxy(void)
{
	struct zt_options c;

	CHECK(parse_proxy(&c, NULL, "-n", "-c", "/run/cred/conf") == ZT_CLI_RUN);
	CHECK(c.check && !strcmp(c.proxy, "/run/cred/conf") && !strcmp(c.name, "conf"));
	CHECK(parse_proxy(&c, "LOG_LEVEL=debug", "--config=w.conf", "-s", "-d") == ZT_CLI_RUN);
	CHECK(!c.check && !c.foreground && c.log_level == LOG_LEVEL_ERROR);
	CHECK(parse_proxy(&c, NULL, "-c", "w.conf", "-f") == ZT_CLI_RUN && c.foreground);
	CHECK(parse_proxy(&c, NULL, "-i", "localhost:9080", "-cw.conf") == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "unknown option '-cw.conf'") != NULL);
	CHECK(parse_proxy(&c, NULL, "-i", "localhost:9080", "w.conf") == ZT_CLI_RUN);
	CHECK(!strcmp(c.info, "localhost:9080") && c.info_addr.ss_family == AF_INET);
	CHECK(parse_proxy(&c, NULL, "--info", ":9080", "w.conf") == ZT_CLI_RUN && c.info);
	CHECK(parse_proxy(&c, NULL, "-i", "[::1]:9080", "w.conf") == ZT_CLI_RUN);
	CHECK(c.info_addr.ss_family == AF_INET6);
	CHECK(parse_proxy(&c, NULL, "-i", "example.com:80", "w.conf") == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "invalid -i address") != NULL);
	CHECK(parse_proxy(&c, "ZINCTUN_METRICS=9586", "w.conf", NULL, NULL) == ZT_CLI_RUN);
	CHECK(c.metrics && c.metrics_addr.ss_family == AF_INET);
	CHECK(parse_proxy(&c, NULL, "--metrics", "x", "w.conf") == ZT_CLI_ERROR);
	CHECK(parse_proxy(&c, NULL, "-v", NULL, NULL) == ZT_CLI_VERSION);
	CHECK(parse_proxy(&c, NULL, "-c", "a.conf", "b.conf") == ZT_CLI_ERROR);
	CHECK(parse_proxy(&c, NULL, "-c", NULL, NULL) == ZT_CLI_ERROR);
	CHECK(parse_proxy(&c, NULL, "-x", "a.conf", NULL) == ZT_CLI_ERROR);
	CHECK(strstr(c.err, "unknown option '-x'") != NULL);
}

int main(void)
{
	cli_errors();
	defaults();
	variables();
	proxy();
	proxy_program();
	proxy_wireproxy();
	icmp_source();
	return test_finish("cli");
}
