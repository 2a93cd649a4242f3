/* Command line and environment of the daemon, parsed without side effects
 * (no printing, no exit, no getenv: the environment comes through a
 * callback), so main() stays short and fuzz/fuzz_cli.c can drive it. */
#ifndef ZT_CLI_H
#define ZT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "log.h"

enum zt_cli_action {
	ZT_CLI_RUN,	/* start the daemon */
	ZT_CLI_VERSION, /* print the version, exit 0 */
	ZT_CLI_HELP,	/* print usage to stdout, exit 0 */
	ZT_CLI_USAGE,	/* print usage to stderr, exit 1 */
	ZT_CLI_ERROR,	/* print err, exit 1 */
	ZT_CLI_PROXY,	/* exec zinctun-proxy on proxy */
};

/* zinctun-proxy's name (an interface name's length, for wg show through a
 * symlink); FILE without one is "proxy". */
enum { ZT_CLI_NAME_MAX = 15 };
#define ZT_CLI_DEFAULT_NAME "proxy"
/* ZINCTUN_PROXY_MEMORY's range, MiB */
enum { ZT_PROXY_MEMORY_MIN = 4, ZT_PROXY_MEMORY_MAX = 65536 };

/* The data path's switches, for zt_init (runtime.h). */
struct zt_dp_options {
	int workers;	  /* ZINCTUN_WORKERS (0..WPOOL_MAX_THREADS); -1: CPUs - 1 */
	int tun_queues;	  /* ZINCTUN_TUN_QUEUES (1..TUN_MAX_QUEUES) */
	bool tun_offload; /* virtio-net header, TSO/USO; ZINCTUN_NO_TUN_OFFLOAD=1: off */
	bool tun_gro;	  /* coalesced TUN writes; ZINCTUN_NO_TUN_GRO=1: off */
	bool udp_gso;	  /* UDP_SEGMENT sends; ZINCTUN_NO_GSO=1: off */
	bool udp_gro;	  /* UDP_GRO receives; ZINCTUN_NO_UDP_GRO=1: off */
};

/* Every flag and environment variable the daemon honours (zinctun.8,
 * OPTIONS AND ENVIRONMENT); main hands each module its part. */
struct zt_options {
	enum zt_cli_action action;
	bool foreground;	  /* -f, --foreground, WG_PROCESS_FOREGROUND=1 */
	const char *ifname;	  /* the requested name; with WG_TUN_FD, NULL or the
				   * name that descriptor's interface must have */
	int tun_fd;		  /* WG_TUN_FD, or -1 */
	int uapi_fd;		  /* WG_UAPI_FD: an inherited listening socket, or -1 */
	enum log_level log_level; /* LOG_LEVEL */
	const char *user;	  /* --user NAME, ZINCTUN_USER; NULL: none */
	bool seccomp;		  /* ZINCTUN_SECCOMP=1 (the default) or kill */
	bool seccomp_kill;	  /* ZINCTUN_SECCOMP=kill */
	bool bind_service;	  /* ZINCTUN_BIND_SERVICE (default 1) */
	const char *metrics;	  /* --metrics ADDR, ZINCTUN_METRICS; NULL: no endpoint */
	struct sockaddr_storage metrics_addr; /* ... parsed */
	socklen_t metrics_addr_len;
	const char *metrics_names; /* --metrics-names FILE, ZINCTUN_METRICS_NAMES */
	const char *log_file;	   /* --log-file PATH, ZINCTUN_LOG_FILE; NULL: syslog/stderr */
	const char *zinc_impl;	   /* ZINC_IMPL, for zinc_impl_select(); NULL: auto */
	struct zt_dp_options dp;
	const char *proxy;		/* --proxy FILE (ZT_CLI_PROXY); zinctun-proxy's FILE */
	const char *socket;		/* zinctun-proxy --socket PATH; NULL: its default */
	char name[ZT_CLI_NAME_MAX + 1]; /* zinctun-proxy --name, or FILE's up to a '.' */
	/* zinctun-proxy's wireproxy options: -n (check FILE, exit), -s (errors
	 * only), -i ADDR (health endpoint; -d: foreground false) */
	bool check, silent;
	const char *info;
	struct sockaddr_storage info_addr;
	socklen_t info_addr_len;
	/* ZINCTUN_PROXY_MEMORY: the MiB zinctun-proxy's lwIP may hold, 0: its
	 * default (proxy/lwipmem.h) */
	int proxy_memory;
	char err[128]; /* for ZT_CLI_ERROR */
};

/* env(ctx, name) returns the variable's value or NULL. argv[0] is the
 * program name. Pointers in out point into argv or env's strings. A value
 * out of its range is an error, not a default: the daemon refuses to start
 * (ZT_CLI_ERROR names the variable). --help, --version and --proxy look at
 * no variable. */
void zt_cli_parse(int argc, char *const argv[], const char *(*env)(void *ctx, const char *name),
		  void *ctx, struct zt_options *out);

/* zinctun-proxy [-f|-d] [-n] [-s] [-i ADDR] [--metrics ADDR] [--socket PATH]
 * [--name NAME] [--user NAME] {-c FILE | [--] FILE}, and the same
 * environment as zt_cli_parse, but: LOG_LEVEL defaults to info, in the
 * foreground unless -d, one device queue and no TUN offloads (lwIP stands
 * in for the TUN). -i also takes "localhost:PORT" and ":PORT" (loopback). */
void zt_cli_parse_proxy(int argc, char *const argv[],
			const char *(*env)(void *ctx, const char *name), void *ctx,
			struct zt_options *out);

/* A descriptor number as WG_TUN_FD / WG_UAPI_FD carry it (and any plain
 * number): decimal digits only, 0..INT32_MAX; -1 otherwise. */
int zt_cli_parse_fd(const char *s);

/* A metrics listen address: "PORT" (127.0.0.1), "IPV4:PORT" or
 * "[IPV6]:PORT", numeric only, port 1-65535. False if malformed. */
bool zt_cli_parse_listen(const char *s, struct sockaddr_storage *addr, socklen_t *len);

/* The kernel's rule for interface names (dev_valid_name), plus its length. */
bool zt_cli_valid_ifname(const char *name);

#endif
