/* Command line and environment parsing (see cli.h). */
#include "cli.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <zinc/impl.h>

#include "tun.h"
#include "uapi_parse.h"
#include "workers.h"

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

/* The UAPI endpoint forms with a port from 1, or a port alone: loopback,
 * never exposed by accident. */
bool zt_cli_parse_listen(const char *s, struct sockaddr_storage *addr, socklen_t *len)
{
	union uapi_sockaddr u = {.in4 = {.sin_family = AF_INET}};
	int port = zt_cli_parse_fd(s);

	memset(addr, 0, sizeof(*addr));
	if (port >= 0 && port <= UINT16_MAX)
		u.in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else if (!uapi_parse_endpoint(s, strlen(s), &u))
		return false;
	else
		port = ntohs(u.sa.sa_family == AF_INET ? u.in4.sin_port : u.in6.sin6_port);
	if (!port)
		return false;
	if (u.sa.sa_family == AF_INET)
		u.in4.sin_port = htons((uint16_t)port);
	*len = u.sa.sa_family == AF_INET ? sizeof(u.in4) : sizeof(u.in6);
	memcpy(addr, &u, *len);
	return true;
}

/* An error that names what was wrong; main prints it with a --help hint.
 * Returns false, for the callers' "return fail(...)". */
static bool __attribute__((format(printf, 2, 3))) fail(struct zt_options *out, const char *fmt, ...)
{
	va_list ap;

	out->action = ZT_CLI_ERROR;
	va_start(ap, fmt);
	vsnprintf(out->err, sizeof(out->err), fmt, ap);
	va_end(ap);
	return false;
}

static bool eq(const char *v, const char *lit)
{
	return v && !strcmp(v, lit);
}

static bool given(const char *v)
{
	return v && *v;
}

/* The value of the flag name, given as NAME VALUE or NAME=VALUE, at
 * argv[*i]; NULL if argv[*i] is another argument. Sets *missing for a
 * NAME that is the last argument. */
static const char *flag_value(int argc, char *const argv[], int *i, const char *name, bool *missing)
{
	size_t len = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, len))
		return NULL;
	if (a[len] == '=')
		return a + len + 1;
	if (a[len])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

/* --help, --version: they need no interface and no valid environment. */
static bool help_or_version(const char *a, struct zt_options *out)
{
	if (!eq(a, "--help") && !eq(a, "-h") && !eq(a, "--version") && !eq(a, "-v"))
		return false;
	out->action = strchr(a, 'h') ? ZT_CLI_HELP : ZT_CLI_VERSION;
	return true;
}

/* The command line; false on an error. --help, --version and --proxy end
 * the parse: they need no interface and no valid environment. */
static bool parse_args(int argc, char *const argv[], struct zt_options *out)
{
	int others = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		bool missing = false;

		if (help_or_version(a, out))
			return true;
		if ((v = flag_value(argc, argv, &i, "--proxy", &missing))) {
			out->proxy = v;
			continue;
		}
		/* the one option the proxy takes too */
		if ((v = flag_value(argc, argv, &i, "--user", &missing))) {
			out->user = v;
			continue;
		}
		others++;
		if (eq(a, "-f") || eq(a, "--foreground"))
			out->foreground = true;
		else if ((v = flag_value(argc, argv, &i, "--metrics", &missing)))
			out->metrics = v;
		else if ((v = flag_value(argc, argv, &i, "--metrics-names", &missing)))
			out->metrics_names = v;
		else if ((v = flag_value(argc, argv, &i, "--log-file", &missing)))
			out->log_file = v;
		else if (missing)
			return fail(out, "option '%s' needs a value", a);
		else if (a[0] == '-')
			return fail(out, "unknown option '%.40s'", a);
		else if (out->ifname)
			return fail(out, "unexpected argument '%.40s' after '%.16s'", a,
				    out->ifname);
		else
			out->ifname = a;
	}
	if (out->proxy) {
		if (!*out->proxy)
			return fail(out, "option '--proxy' needs a file");
		if (others)
			return fail(
			    out, "'--proxy FILE' takes no interface name and no option but --user");
		out->action = ZT_CLI_PROXY;
	}
	return true;
}

/* A switch: 1 on, 0 off; unset or empty leaves the default. */
static bool env_switch(struct zt_options *out, const char *name, const char *v, bool *on)
{
	if (!given(v))
		return true;
	if (!eq(v, "0") && !eq(v, "1"))
		return fail(out, "%s=%.16s is not 0 or 1", name, v);
	*on = v[0] == '1';
	return true;
}

/* A decimal number from min to max; unset or empty leaves the default. */
static bool env_number(struct zt_options *out, const char *name, const char *v, int min, int max,
		       int *n)
{
	int x = zt_cli_parse_fd(v);

	if (!given(v))
		return true;
	if (x < min || x > max)
		return fail(out, "%s=%.16s is not a number from %d to %d", name, v, min, max);
	*n = (int)x;
	return true;
}

/* LOG_LEVEL's names: ours and wireguard-go's (verbose = debug). */
#define LOG_LEVEL_NAMES "silent, error, info, verbose, debug"

static bool env_log_level(struct zt_options *out, const char *v)
{
	static const struct {
		const char *name;
		enum log_level level;
	} names[] = {
	    {"silent", LOG_LEVEL_SILENT}, {"error", LOG_LEVEL_ERROR}, {"info", LOG_LEVEL_INFO},
	    {"verbose", LOG_LEVEL_DEBUG}, {"debug", LOG_LEVEL_DEBUG},
	};

	if (!given(v))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (eq(v, names[i].name)) {
			out->log_level = names[i].level;
			return true;
		}
	}
	return fail(out, "LOG_LEVEL=%.16s is not a level (accepted: " LOG_LEVEL_NAMES ")", v);
}

static bool env_fd(struct zt_options *out, const char *name, const char *v, int *fd)
{
	if (!given(v))
		return true;
	*fd = zt_cli_parse_fd(v);
	return *fd >= 0 || fail(out, "%s=%.16s is not a descriptor number", name, v);
}

/* Every variable; a flag given on the command line wins over its own. */
static bool parse_env(const char *(*env)(void *ctx, const char *name), void *ctx,
		      struct zt_options *out)
{
	struct zt_dp_options *dp = &out->dp;
	const char *sc = env(ctx, "ZINCTUN_SECCOMP"), *impl = env(ctx, "ZINC_IMPL");
	bool fg = false, no_tun_offload = false, no_tun_gro = false, no_gso = false,
	     no_udp_gro = false;

	if (!env_switch(out, "WG_PROCESS_FOREGROUND", env(ctx, "WG_PROCESS_FOREGROUND"), &fg) ||
	    !env_fd(out, "WG_TUN_FD", env(ctx, "WG_TUN_FD"), &out->tun_fd) ||
	    !env_fd(out, "WG_UAPI_FD", env(ctx, "WG_UAPI_FD"), &out->uapi_fd) ||
	    !env_log_level(out, env(ctx, "LOG_LEVEL")) ||
	    !env_switch(out, "ZINCTUN_BIND_SERVICE", env(ctx, "ZINCTUN_BIND_SERVICE"),
			&out->bind_service) ||
	    !env_switch(out, "ZINCTUN_NO_TUN_OFFLOAD", env(ctx, "ZINCTUN_NO_TUN_OFFLOAD"),
			&no_tun_offload) ||
	    !env_switch(out, "ZINCTUN_NO_TUN_GRO", env(ctx, "ZINCTUN_NO_TUN_GRO"), &no_tun_gro) ||
	    !env_switch(out, "ZINCTUN_NO_GSO", env(ctx, "ZINCTUN_NO_GSO"), &no_gso) ||
	    !env_switch(out, "ZINCTUN_NO_UDP_GRO", env(ctx, "ZINCTUN_NO_UDP_GRO"), &no_udp_gro) ||
	    !env_number(out, "ZINCTUN_WORKERS", env(ctx, "ZINCTUN_WORKERS"), 0, WPOOL_MAX_THREADS,
			&dp->workers) ||
	    !env_number(out, "ZINCTUN_TUN_QUEUES", env(ctx, "ZINCTUN_TUN_QUEUES"), 1,
			TUN_MAX_QUEUES, &dp->tun_queues) ||
	    !env_number(out, "ZINCTUN_PROXY_MEMORY", env(ctx, "ZINCTUN_PROXY_MEMORY"),
			ZT_PROXY_MEMORY_MIN, ZT_PROXY_MEMORY_MAX, &out->proxy_memory))
		return false;
	/* it turned off two unrelated offloads; which one is meant is not ours
	 * to guess */
	if (given(env(ctx, "ZINCTUN_NO_GRO")))
		return fail(out, "ZINCTUN_NO_GRO is split into ZINCTUN_NO_UDP_GRO and "
				 "ZINCTUN_NO_TUN_GRO");
	if (given(sc) && !eq(sc, "0") && !eq(sc, "1") && !eq(sc, "kill"))
		return fail(out, "ZINCTUN_SECCOMP=%.16s is not 0, 1 or kill", sc);
	out->seccomp = !eq(sc, "0");
	out->seccomp_kill = eq(sc, "kill");
	if (given(impl) && !zinc_impl_name_known(impl))
		return fail(out, "ZINC_IMPL=%.16s is not generic, ssse3, avx2, avx512 or auto",
			    impl);
	out->zinc_impl = given(impl) ? impl : NULL;
	out->foreground |= fg;
	dp->tun_offload = !no_tun_offload;
	dp->tun_gro = !no_tun_gro;
	dp->udp_gso = !no_gso;
	dp->udp_gro = !no_udp_gro;
	if (!out->user)
		out->user = env(ctx, "ZINCTUN_USER");
	/* wg-quick passes no flags: the environment turns it on too */
	if (!out->metrics)
		out->metrics = env(ctx, "ZINCTUN_METRICS");
	if (!out->metrics_names)
		out->metrics_names = env(ctx, "ZINCTUN_METRICS_NAMES");
	if (!out->log_file)
		out->log_file = env(ctx, "ZINCTUN_LOG_FILE");
	return true;
}

static void set_defaults(struct zt_options *out, enum log_level level)
{
	memset(out, 0, sizeof(*out));
	out->action = ZT_CLI_RUN;
	out->tun_fd = -1;
	out->uapi_fd = -1;
	out->log_level = level;
	out->bind_service = true; /* wg may set a listen port below 1024 at any time */
	out->dp = (struct zt_dp_options){.workers = -1, .tun_queues = 1};
}

/* FILE's name up to its first '.', at most ZT_CLI_NAME_MAX long. */
static void name_of(const char *file, char name[ZT_CLI_NAME_MAX + 1])
{
	const char *base = strrchr(file, '/');
	size_t n;

	base = base ? base + 1 : file;
	n = strcspn(base, ".");
	if (n > ZT_CLI_NAME_MAX)
		n = ZT_CLI_NAME_MAX;
	if (n)
		snprintf(name, ZT_CLI_NAME_MAX + 1, "%.*s", (int)n, base);
	else
		snprintf(name, ZT_CLI_NAME_MAX + 1, "%s", ZT_CLI_DEFAULT_NAME);
}

/* flag_value under a short or a long name */
static const char *flag_either(int argc, char *const argv[], int *i, const char *s, const char *l,
			       bool *missing)
{
	const char *v = flag_value(argc, argv, i, s, missing);

	return v || *missing ? v : flag_value(argc, argv, i, l, missing);
}

/* zinctun-proxy's command line, its own options and wireproxy v1.0.9's
 * (-c, -n, -s, -d, -i, -v): false on an error (usage without a FILE). */
static bool parse_proxy_args(int argc, char *const argv[], struct zt_options *out)
{
	const char *name = NULL, *v;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *file = NULL;
		bool missing = false;

		if (help_or_version(a, out))
			return true;
		if (eq(a, "-f") || eq(a, "--foreground"))
			out->foreground = true;
		else if (eq(a, "-d") || eq(a, "--daemon"))
			out->foreground = false;
		else if (eq(a, "-n") || eq(a, "--configtest"))
			out->check = true;
		else if (eq(a, "-s") || eq(a, "--silent"))
			out->silent = true;
		else if ((v = flag_either(argc, argv, &i, "-c", "--config", &missing)))
			file = v;
		else if ((v = flag_either(argc, argv, &i, "-i", "--info", &missing)))
			out->info = v;
		else if ((v = flag_value(argc, argv, &i, "--metrics", &missing)))
			out->metrics = v;
		else if ((v = flag_value(argc, argv, &i, "--socket", &missing)))
			out->socket = v;
		else if ((v = flag_value(argc, argv, &i, "--name", &missing)))
			name = v;
		else if ((v = flag_value(argc, argv, &i, "--user", &missing)))
			out->user = v;
		else if ((v = flag_value(argc, argv, &i, "--log-file", &missing)))
			out->log_file = v;
		else if (missing)
			return fail(out, "option '%s' needs a value", a);
		else if (eq(a, "--") && i + 2 == argc)
			file = argv[++i]; /* a FILE that may start with '-' */
		else if (a[0] == '-')
			return fail(out, "unknown option '%.40s'", a);
		else
			file = a;
		if (file && out->proxy)
			return fail(out, "a second file '%.40s' after '%.40s'", file, out->proxy);
		out->proxy = file ? file : out->proxy;
	}
	if (!out->proxy) {
		out->action = ZT_CLI_USAGE;
		return false;
	}
	if (name)
		snprintf(out->name, sizeof(out->name), "%s", name);
	else
		name_of(out->proxy, out->name);
	return true;
}

/* A listening address option (ADDR empty: off). */
static bool listen_opt(struct zt_options *out, const char **v, const char *what,
		       struct sockaddr_storage *ss, socklen_t *len)
{
	if (*v && !**v)
		*v = NULL;
	if (*v && !zt_cli_parse_listen(*v, ss, len))
		return fail(out, "invalid %s address (PORT, IPV4:PORT or [IPV6]:PORT)", what);
	return true;
}

/* Both programs': an empty value is no value; the metrics address. */
static bool finish(struct zt_options *out)
{
	if (out->user && !*out->user)
		out->user = NULL;
	if (out->log_file && !*out->log_file)
		out->log_file = NULL;
	return listen_opt(out, &out->metrics, "metrics", &out->metrics_addr,
			  &out->metrics_addr_len);
}

void zt_cli_parse_proxy(int argc, char *const argv[],
			const char *(*env)(void *ctx, const char *name), void *ctx,
			struct zt_options *out)
{
	const char *info;

	set_defaults(out, LOG_LEVEL_INFO);
	out->foreground = true;
	if (!parse_proxy_args(argc, argv, out) || out->action != ZT_CLI_RUN ||
	    !parse_env(env, ctx, out))
		return;
	/* wireproxy's -s keeps the errors; its -i takes "localhost:PORT" and
	 * ":PORT" too (loopback here, as BindAddress) */
	if (out->silent)
		out->log_level = LOG_LEVEL_ERROR;
	info = out->info && !strncmp(out->info, "localhost:", 10) ? out->info + 9 : out->info;
	info = info && info[0] == ':' ? info + 1 : info;
	if (!finish(out) || !listen_opt(out, &info, "-i", &out->info_addr, &out->info_addr_len))
		return;
	out->info = info ? out->info : NULL;
	out->dp.tun_queues = 1;
	out->dp.tun_offload = false;
}

void zt_cli_parse(int argc, char *const argv[], const char *(*env)(void *ctx, const char *name),
		  void *ctx, struct zt_options *out)
{
	set_defaults(out, LOG_LEVEL_ERROR);
	if (!parse_args(argc, argv, out) || out->action != ZT_CLI_RUN || !parse_env(env, ctx, out))
		return;
	if (out->metrics_names && !*out->metrics_names)
		out->metrics_names = NULL;
	if (!finish(out))
		return;
	if (out->metrics_names && !out->metrics) {
		fail(out,
		     "--metrics-names (ZINCTUN_METRICS_NAMES) needs --metrics (ZINCTUN_METRICS)");
		return;
	}
	if (out->tun_fd < 0 && !out->ifname) {
		out->action = ZT_CLI_USAGE;
		return;
	}
	if (out->ifname && strlen(out->ifname) >= IF_NAMESIZE)
		fail(out, "interface name too long (at most %d characters)", IF_NAMESIZE - 1);
	else if (out->ifname && !zt_cli_valid_ifname(out->ifname))
		fail(out, "invalid interface name '%s'", out->ifname);
}
