/* fuzz-sources: daemon/cli.c daemon/uapi_parse.c */
/* The daemon's command line and environment parsing (daemon/cli.c).
 *
 * Input: byte 0 gives the number of environment entries (low 3 bits) and,
 * bit 3, zinctun-proxy's parser (zt_cli_parse_proxy) instead; the
 * rest is split at NUL bytes into that many "NAME=VALUE" entries, then up
 * to 64 arguments. Beyond "no crash", the result is checked against the
 * rules: a run always has an interface (a valid name) or a TUN descriptor,
 * and every variable in it holds a value the parser may accept, in its
 * option; --proxy runs alone; errors carry a message, every pointer points
 * into the input, and the helpers agree with simple models on every token. */
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zinc/impl.h>

#include "../daemon/cli.h"
#include "../daemon/tun.h"
#include "../daemon/workers.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_TOKENS = 72, MAX_ARGS = 64 };

struct env {
	char *entries[8];
	int n;
};

static const char *env_lookup(void *ctx, const char *name)
{
	struct env *e = ctx;
	size_t len = strlen(name);

	for (int i = 0; i < e->n; i++)
		if (!strncmp(e->entries[i], name, len) && e->entries[i][len] == '=')
			return e->entries[i] + len + 1;
	return NULL;
}

static int model_fd(const char *s)
{
	size_t len = strlen(s);
	long long v = 0;

	if (!len || strspn(s, "0123456789") != len)
		return -1;
	s += strspn(s, "0"); /* leading zeros are fine, as strtol takes them */
	len = strlen(s);
	if (len > 10)
		return -1;
	for (size_t i = 0; i < len; i++)
		v = v * 10 + (s[i] - '0');
	return v > INT32_MAX ? -1 : (int)v;
}

static bool model_ifname(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	return strcspn(s, "/: \t\n\v\f\r") == len;
}

static bool points_into(const char *p, char *const *tokens, int n)
{
	for (int i = 0; i < n; i++)
		if (p >= tokens[i] && p <= tokens[i] + strlen(tokens[i]))
			return true;
	return false;
}

static bool is(const char *v, const char *lit)
{
	return v && !strcmp(v, lit);
}

static bool given(const char *v)
{
	return v && *v;
}

/* A decimal number as the parser must take it: digits only, min..max;
 * -2 if it must be refused. */
static int model_number(const char *s, int min, int max)
{
	int fd = model_fd(s); /* digits only, 0..INT32_MAX */

	return fd < min || fd > max ? -2 : fd;
}

/* On a run, every variable's value is one the parser accepts, and the
 * option holds what it says. */
static void check_run_env(const struct zt_options *o, struct env *e)
{
	static const struct {
		const char *name;
		size_t off;
		bool off_means_on; /* ZINCTUN_NO_*: 1 turns the option off */
	} switches[] = {
	    {"ZINCTUN_BIND_SERVICE", offsetof(struct zt_options, bind_service), false},
	    {"ZINCTUN_NO_TUN_OFFLOAD", offsetof(struct zt_options, dp.tun_offload), true},
	    {"ZINCTUN_NO_TUN_GRO", offsetof(struct zt_options, dp.tun_gro), true},
	    {"ZINCTUN_NO_GSO", offsetof(struct zt_options, dp.udp_gso), true},
	    {"ZINCTUN_NO_UDP_GRO", offsetof(struct zt_options, dp.udp_gro), true},
	};
	const char *sc = env_lookup(e, "ZINCTUN_SECCOMP"), *v;

	for (size_t i = 0; i < sizeof(switches) / sizeof(switches[0]); i++) {
		bool field = *(const bool *)((const char *)o + switches[i].off);

		v = env_lookup(e, switches[i].name);
		check(!given(v) || is(v, "0") || is(v, "1"), "switch value accepted");
		check(field == (switches[i].off_means_on ? !is(v, "1") : !is(v, "0")),
		      "switch field");
	}
	v = env_lookup(e, "WG_PROCESS_FOREGROUND");
	check(!given(v) || is(v, "0") || is(v, "1"), "WG_PROCESS_FOREGROUND accepted");
	check(!is(v, "1") || o->foreground, "WG_PROCESS_FOREGROUND=1 ignored");
	check(!given(sc) || is(sc, "0") || is(sc, "1") || is(sc, "kill"), "seccomp value");
	check(o->seccomp == !is(sc, "0"), "seccomp flag");
	check(o->seccomp_kill == is(sc, "kill"), "seccomp kill");
	check(!given(env_lookup(e, "ZINCTUN_NO_GRO")), "ZINCTUN_NO_GRO accepted");
	v = env_lookup(e, "ZINCTUN_WORKERS");
	check(o->dp.workers == (given(v) ? model_number(v, 0, WPOOL_MAX_THREADS) : -1), "workers");
	v = env_lookup(e, "ZINCTUN_TUN_QUEUES");
	check(o->dp.tun_queues == (given(v) ? model_number(v, 1, TUN_MAX_QUEUES) : 1), "queues");
	v = env_lookup(e, "ZINCTUN_PROXY_MEMORY");
	check(o->proxy_memory ==
		  (given(v) ? model_number(v, ZT_PROXY_MEMORY_MIN, ZT_PROXY_MEMORY_MAX) : 0),
	      "proxy memory");
	v = env_lookup(e, "WG_UAPI_FD");
	check(o->uapi_fd == (given(v) ? model_fd(v) : -1), "uapi fd");
	check(o->log_level >= LOG_LEVEL_SILENT && o->log_level <= LOG_LEVEL_DEBUG, "log level");
	v = env_lookup(e, "LOG_LEVEL");
	check(!given(v) || o->log_level != LOG_LEVEL_ERROR || is(v, "error"), "log level value");
	v = env_lookup(e, "ZINC_IMPL");
	check(given(v) ? (o->zinc_impl == v && zinc_impl_name_known(v)) : !o->zinc_impl,
	      "zinc impl");
}

/* zinctun-proxy's run: a FILE from argv, a name, its fixed device switches. */
static void check_proxy_run(const struct zt_options *o, char **argv, int argc)
{
	check(o->proxy && points_into(o->proxy, argv + 1, argc - 1), "proxy file");
	check(!o->socket || points_into(o->socket, argv + 1, argc - 1), "socket pointer");
	check(strlen(o->name) <= ZT_CLI_NAME_MAX, "proxy name");
	check(!o->ifname && (!o->silent || o->log_level == LOG_LEVEL_ERROR), "proxy run options");
	check(!o->info || (points_into(o->info, argv + 1, argc - 1) && o->info_addr_len),
	      "info address");
	check(o->dp.tun_queues == 1 && !o->dp.tun_offload, "proxy device switches");
	check(o->log_level >= LOG_LEVEL_SILENT && o->log_level <= LOG_LEVEL_DEBUG, "log level");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *tokens[MAX_TOKENS], *argv[MAX_ARGS + 2];
	struct env env = {.n = 0};
	struct zt_options cli;
	int n_tokens = 0, argc = 1, n_env;
	size_t pos = 0;
	bool proxy;

	if (size < 1)
		return 0;
	n_env = data[0] & 7;
	proxy = data[0] & 8; /* zinctun-proxy's command line */
	copy = malloc(size); /* the tokens, NUL-terminated in place */
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	while (pos < size && n_tokens < MAX_TOKENS) {
		tokens[n_tokens++] = copy + pos;
		pos += strlen(copy + pos) + 1;
	}
	for (int i = 0; i < n_tokens; i++) {
		if (env.n < n_env && env.n == i)
			env.entries[env.n++] = tokens[i];
		else if (argc <= MAX_ARGS)
			argv[argc++] = tokens[i];
		check(zt_cli_parse_fd(tokens[i]) == model_fd(tokens[i]), "parse_fd model");
		check(zt_cli_valid_ifname(tokens[i]) == model_ifname(tokens[i]), "ifname model");
	}
	argv[0] = "zinctun";
	argv[argc] = NULL;

	if (proxy) {
		zt_cli_parse_proxy(argc, argv, env_lookup, &env, &cli);
		check(cli.action != ZT_CLI_PROXY, "proxy from zinctun-proxy");
		if (cli.action == ZT_CLI_RUN) {
			check_proxy_run(&cli, argv, argc);
			free(copy);
			return 0;
		}
	} else {
		zt_cli_parse(argc, argv, env_lookup, &env, &cli);
	}

	const char *tun = env_lookup(&env, "WG_TUN_FD");

	check(!cli.seccomp_kill || cli.seccomp, "kill implies seccomp");
	switch (cli.action) {
	case ZT_CLI_RUN:
		check_run_env(&cli, &env);
		check(cli.ifname || cli.tun_fd >= 0, "run without interface");
		check(!cli.ifname || zt_cli_valid_ifname(cli.ifname), "run with a bad name");
		check(!cli.ifname || points_into(cli.ifname, argv + 1, argc - 1), "ifname pointer");
		check((tun && *tun) == (cli.tun_fd >= 0), "tun fd iff WG_TUN_FD");
		check(!cli.user || *cli.user, "empty user");
		check(!cli.user || points_into(cli.user, tokens, n_tokens), "user pointer");
		if (cli.metrics) {
			struct sockaddr_storage ss;
			socklen_t len;

			check(points_into(cli.metrics, tokens, n_tokens), "metrics pointer");
			check(zt_cli_parse_listen(cli.metrics, &ss, &len) &&
				  len == cli.metrics_addr_len &&
				  !memcmp(&ss, &cli.metrics_addr, len),
			      "metrics address");
		}
		break;
	case ZT_CLI_ERROR:
		check(cli.err[0] != '\0', "error without message");
		check(memchr(cli.err, '\0', sizeof(cli.err)) != NULL, "unterminated message");
		break;
	case ZT_CLI_PROXY:
		check(cli.proxy && *cli.proxy && points_into(cli.proxy, argv + 1, argc - 1),
		      "proxy file");
		check(!cli.ifname, "proxy with an interface");
		break;
	case ZT_CLI_VERSION:
	case ZT_CLI_HELP:
	case ZT_CLI_USAGE:
		break;
	default:
		check(0, "unknown action");
	}
	free(copy);
	return 0;
}
