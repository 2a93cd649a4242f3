// SPDX-License-Identifier: MIT
/* Command-line errors name what was wrong (daemon/cli.c), and
 * the interface's address chosen as the ICMP source (daemon/ifaddr.c). */
#include "test.h"

#include "../../daemon/cli.c"
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
static enum zt_cli_action parse(struct zt_cli *cli, void *tun, const char *a1, const char *a2,
				const char *a3)
{
	char *argv[] = {"zinctun", (char *)a1, (char *)a2, (char *)a3, NULL};
	int argc = 1;

	while (argv[argc])
		argc++;
	zt_cli_parse(argc, argv, tun ? tun_env : no_env, tun, cli);
	return cli->action;
}

static void cli_errors(void)
{
	struct zt_cli c;

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

int main(void)
{
	cli_errors();
	icmp_source();
	return test_finish("cli");
}
