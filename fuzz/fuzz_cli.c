/* fuzz-sources: daemon/cli.c */
/* The daemon's command line and environment parsing (daemon/cli.c).
 *
 * Input: byte 0 gives the number of environment entries (low 3 bits); the
 * rest is split at NUL bytes into that many "NAME=VALUE" entries, then up
 * to 64 arguments. Beyond "no crash", the result is checked against the
 * rules: a run always has an interface (a valid name) or a TUN descriptor,
 * errors carry a message, every pointer points into the input, and the
 * helpers agree with simple models on every token. */
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../daemon/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_TOKENS = 72, MAX_ARGS = 64 };

struct env {
	char *entries[8];
	int n;
};

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_cli: %s\n", what);
		abort();
	}
}

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *tokens[MAX_TOKENS], *argv[MAX_ARGS + 2];
	struct env env = {.n = 0};
	struct zt_cli cli;
	int n_tokens = 0, argc = 1, n_env;
	size_t pos = 0;

	if (size < 1)
		return 0;
	n_env = data[0] & 7;
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

	zt_cli_parse(argc, argv, env_lookup, &env, &cli);

	const char *tun = env_lookup(&env, "WG_TUN_FD");
	const char *sc = env_lookup(&env, "ZINCTUN_SECCOMP");

	check(cli.seccomp == !(sc && !strcmp(sc, "0")), "seccomp flag");
	check(!cli.seccomp_kill || cli.seccomp, "kill implies seccomp");
	switch (cli.action) {
	case ZT_CLI_RUN:
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
