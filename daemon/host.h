/* The start-up both programs share (zinctun, zinctun-proxy): each step in
 * order, unwound in reverse as the kernel's wg_newlink does. The program
 * fills in its steps (host_ops). */
#ifndef ZT_HOST_H
#define ZT_HOST_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "runtime.h"
#include "uapi.h"

enum { HOST_MAX_OWN_FDS = 4 }; /* descriptors a program adds to the main loop */

struct host;

/* Every step returns 0 or an exit status (1) after host_fail() said why;
 * NULL steps are skipped. */
struct host_ops {
	const char *name;			  /* the program, first word of a start-up error */
	const char *about;			  /* --version's lines after the first */
	void (*usage)(FILE *f, const char *prog); /* --help, or a bad command line */
	/* the device: sets ifname and tun_fd (a TUN) or sink (in-process) */
	int (*open)(struct host *h);
	/* the engine and data path exist: apply the configuration */
	int (*configure)(struct host *h);
	/* after the configuration socket: the program's own sockets */
	int (*prepare)(struct host *h);
	/* least privilege, once all is open, before the device's threads */
	int (*sandbox)(struct host *h);
	/* once the device's threads run: the program's own, then "started" */
	int (*start)(struct host *h);
	void (*stop)(struct host *h);  /* undoes start, before the device stops */
	void (*close)(struct host *h); /* undoes prepare */
	/* the main loop: the program's descriptors (at most HOST_MAX_OWN_FDS),
	 * their events (false: shut down), its next deadline (-1: none) */
	size_t (*pollfds)(struct host *h, struct pollfd *pfd);
	bool (*handle)(struct host *h, const struct pollfd *pfd);
	int (*timeout_ms)(struct host *h);
	void (*on_usr1)(struct host *h); /* SIGUSR1: log the state */
};

struct host {
	const struct host_ops *ops;
	const struct zt_options *opt;
	struct zt_runtime zt;
	char ifname[IF_NAMESIZE];
	int tun_fd;		     /* the device: a TUN descriptor, */
	const struct tun_sink *sink; /* or else the stack packets go to */
	struct uapi_server uapi;
	const char *uapi_path; /* the socket's path; NULL: uapi_open's, by zt.ifname */
	int sig_fd;
	bool started; /* the threads ran (stop and close know how far it got) */
};

/* getenv, as zt_cli_parse's env (cli.c itself reads no variable). */
const char *host_env(void *ctx, const char *name);

/* The parsed command line's --version, --help or error: the exit status;
 * -1: run (or ZT_CLI_PROXY). */
int host_cli(const struct host *h, const char *prog);

/* Runs the program to its end (the log set up: log_init, then here
 * --log-file); returns its exit status. */
int host_run(struct host *h);

/* Forks (-d, not -f); the parent returns to its caller (wg-quick) only
 * once the child writes a 0 byte to the descriptor it gets (the readiness
 * pipe's write end), else exits 1. -errno if it cannot. */
int host_daemonize(void);

/* A start-up error on stderr whatever LOG_LEVEL says (the caller sees
 * nothing else). Returns 1, the exit status. */
int host_fail(const struct host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
