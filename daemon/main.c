/* zinctun: a userspace WireGuard daemon driven by wg(8) and wg-quick(8). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zinc/impl.h>
#include <zinc/random.h>

#include "clock.h"
#include "host.h"
#include "linkmon.h"
#include "passwd.h"
#include "log.h"
#include "metrics.h"
#include "sandbox.h"
#include "sockreap.h"
#include "tun.h"

enum { RNGLOG_INTERVAL_MS = 10000 };

#define ZT_PROXY_BINARY "zinctun-proxy"

struct daemon {
	struct host h; /* first: the steps' struct host * is the daemon */
	struct zt_options opt;
	int watch_fd;
	struct linkmon link;
	dev_t sock_dev; /* the socket file we watch */
	ino_t sock_ino;
	uint64_t rng_next_ms;	/* next count of handshakes dropped unseeded; 0: at once */
	uint64_t rng_reported;	/* their engine counter at the last count */
	struct metrics metrics; /* listen_fd -1: no --metrics */
	int ready_fd, null_fd;	/* in the background: readiness pipe, /dev/null */
	bool keep_stderr;	/* in the background, the log's only way out */
	char *title;		/* the command line's bytes (the socket remover's name) */
	size_t title_len;
};

static void usage(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "Usage: %s [-f/--foreground] [--user NAME] [--log-file PATH]\n"
	    "       [--metrics [ADDR:]PORT [--metrics-names WG-QUICK-FILE]] INTERFACE-NAME\n"
	    "       %s --proxy FILE [--user NAME]\n"
	    "       %s --version\n"
	    "\n"
	    "Creates the TUN interface INTERFACE-NAME and serves the WireGuard\n"
	    "configuration socket /var/run/wireguard/INTERFACE-NAME.sock for wg(8).\n"
	    "--proxy FILE runs the rootless proxy zinctun-proxy, installed beside\n"
	    "zinctun, on the configuration FILE instead (no TUN device; started by\n"
	    "root it runs as nobody or --user NAME, without capabilities).\n"
	    "Environment: LOG_LEVEL=silent|error|info|debug (verbose = debug; to stderr\n"
	    "with -f, else to syslog or, without one, stderr; --log-file / ZINCTUN_LOG_FILE:\n"
	    "to that file), WG_PROCESS_FOREGROUND=1,\n"
	    "WG_TUN_FD and WG_UAPI_FD (inherited descriptors).\n"
	    "Once the interface and sockets exist the daemon keeps only CAP_NET_ADMIN\n"
	    "(and CAP_NET_BIND_SERVICE unless ZINCTUN_BIND_SERVICE=0), runs as nobody or\n"
	    "as --user NAME / ZINCTUN_USER=NAME (root: stay root), and installs a seccomp filter\n"
	    "(ZINCTUN_SECCOMP=0 turns it off, ZINCTUN_SECCOMP=kill kills on a forbidden call).\n"
	    "--metrics / ZINCTUN_METRICS=[ADDR:]PORT serves Prometheus metrics on\n"
	    "http://ADDR:PORT/metrics (PORT alone: 127.0.0.1; one port per interface);\n"
	    "--metrics-names / ZINCTUN_METRICS_NAMES: friendly_name labels from a file.\n"
	    "Data path and Zinc switches (ZINCTUN_NO_*, ZINCTUN_WORKERS,\n"
	    "ZINCTUN_TUN_QUEUES, ZINC_IMPL): see zinctun(8).\n",
	    prog, prog, prog);
}

/* The TUN device: WG_TUN_FD's, or a new one by the name asked for. */
static int open_tun(struct host *h)
{
	const struct zt_options *opt = h->opt;
	char msg[160];
	int ret;

	if (opt->tun_fd >= 0) {
		ret = tun_adopt(opt->tun_fd, h->ifname);
		if (ret)
			return host_fail(h, "WG_TUN_FD=%d is not a usable TUN device: %s",
					 opt->tun_fd, strerror(-ret));
		/* the descriptor decides; a different name asked for is a mistake */
		if (opt->ifname && strcmp(opt->ifname, h->ifname))
			return host_fail(
			    h, "WG_TUN_FD=%d is interface %s, not %s as the command line says",
			    opt->tun_fd, h->ifname, opt->ifname);
		h->tun_fd = opt->tun_fd;
	} else {
		snprintf(h->ifname, IF_NAMESIZE, "%s", opt->ifname);
		h->tun_fd = tun_create(opt->ifname, opt->dp.tun_offload, opt->dp.tun_queues > 1,
				       msg, sizeof(msg));
		if (h->tun_fd < 0)
			return host_fail(h, "%s", msg);
	}
	log_init(h->ifname, opt->log_level);
	return 0;
}

/* Notices removal of our socket file (wg-quick down of an old-style
 * setup, or an administrator) to shut down as wireguard-go does. The watch
 * is on the file itself, not on the shared directory, so that other
 * interfaces' sockets coming and going do not wake this daemon: an unlink
 * changes the link count (IN_ATTRIB), a rename moves it. */
static int watch_socket(struct daemon *d)
{
	struct stat st;
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);

	if (fd < 0)
		return -1;
	if (stat(d->h.uapi.path, &st) < 0 ||
	    inotify_add_watch(fd, d->h.uapi.path, IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF) < 0) {
		close(fd);
		return -1;
	}
	d->sock_dev = st.st_dev;
	d->sock_ino = st.st_ino;
	return fd;
}

static bool socket_removed(struct daemon *d)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct stat st;
	bool event = false;

	while (read(d->watch_fd, buf, sizeof(buf)) > 0)
		event = true;
	if (!event)
		return false;
	/* a chmod is an event too; gone or replaced by another file is removal */
	if (stat(d->h.uapi.path, &st) == 0 && st.st_dev == d->sock_dev && st.st_ino == d->sock_ino)
		return false;
	d->h.uapi.own_path = false; /* do not unlink a stranger's file */
	return true;
}

/* The link changed: follow the MTU and moves, stop if it is gone. */
static bool link_alive(struct daemon *d, int fd)
{
	struct link_event ev;
	int ret = linkmon_read(&d->link, fd, &ev);

	if (ret)
		log_debug("netlink: %s", strerror(-ret));
	if (ev.deleted)
		return false;
	if (ev.moved && d->link.nsid == LINKMON_HERE)
		log_info("interface %s is back in this network namespace (index %d)",
			 d->h.zt.ifname, d->link.ifindex);
	else if (ev.moved && d->link.nsid >= 0)
		log_info("interface %s moved to network namespace id %d (index %d); "
			 "UDP and %s stay here",
			 d->h.zt.ifname, d->link.nsid, d->link.ifindex, d->h.uapi.path);
	else if (ev.moved)
		log_info("interface %s moved to a network namespace this one has no id "
			 "for; its MTU is no longer followed",
			 d->h.zt.ifname);
	if (ev.mtu_changed)
		zt_set_mtu(&d->h.zt, ev.mtu);
	if (ev.addrs_changed) {
		zt_engine_lock(&d->h.zt);
		d->h.zt.addrs = d->link.addrs;
		zt_engine_unlock(&d->h.zt);
		log_debug("interface %s: ICMP errors now from %s IPv4 and %s IPv6 address",
			  d->h.zt.ifname, d->link.addrs.has4 ? "its" : "the unreachable",
			  d->link.addrs.has6 ? "its" : "the unreachable");
	}
	return true;
}

/* SIGUSR1: one line of engine counters (the flood test reads it); in a
 * bench build the engine lock's hold times first. */
static void log_stats(struct host *h)
{
	struct daemon *d = (struct daemon *)h;
	struct wg_device_stats st;

#ifdef ZT_LOCK_STATS
	struct zt_lockstat ls;
#endif

	zt_engine_lock(&d->h.zt);
	wg_device_get_stats(d->h.zt.dev, &st);
#ifdef ZT_LOCK_STATS
	ls = zt_lockstat_take(&d->h.zt.lockstat);
#endif
	zt_engine_unlock(&d->h.zt);
#ifdef ZT_LOCK_STATS
	zt_lockstat_log(&ls);
#endif
	log_info("stats: cookie_replies_sent=%llu handshakes_ratelimited=%llu "
		 "packets_invalid=%llu handshakes_dropped_rng=%llu handshake_queue=%zu "
		 "udp_gso_refused=%llu tun_malformed=%llu routing_loop=%llu",
		 (unsigned long long)st.cookie_replies_sent,
		 (unsigned long long)st.handshakes_ratelimited,
		 (unsigned long long)st.packets_invalid,
		 (unsigned long long)st.handshakes_dropped_rng, hsq_len(&d->h.zt.hsq),
		 (unsigned long long)atomic_load(&d->h.zt.udp.gso_paths.refusals),
		 (unsigned long long)atomic_load(&d->h.zt.dp.offload_stats.malformed),
		 (unsigned long long)st.dropped_routing_loop);
}

/* Every RNGLOG_INTERVAL_MS while the system RNG is unseeded (early boot):
 * one info line with the handshakes dropped for want of entropy since the
 * last. Once it is seeded and the last drops are reported there is no timer
 * (an idle daemon never wakes); the kernel never unseeds, and a test seam
 * that does is seen at the next wake-up of this loop (signal, config client). */
static int check_rng(struct host *h)
{
	struct daemon *d = (struct daemon *)h;
	uint64_t now = zt_mono_ms(), n;
	struct wg_device_stats st;

	if (now >= d->rng_next_ms) {
		zt_engine_lock(&d->h.zt);
		wg_device_get_stats(d->h.zt.dev, &st);
		zt_engine_unlock(&d->h.zt);
		n = st.handshakes_dropped_rng > d->rng_reported
			? st.handshakes_dropped_rng - d->rng_reported
			: 0;
		d->rng_reported = st.handshakes_dropped_rng;
		d->rng_next_ms = now + RNGLOG_INTERVAL_MS;
		if (n) {
			log_info("%llu handshake(s) dropped in the last %u s: the system RNG is "
				 "not seeded yet",
				 (unsigned long long)n, RNGLOG_INTERVAL_MS / 1000);
		} else if (zinc_rng_is_initialized()) {
			d->rng_next_ms = 0; /* check again at the next wake-up */
			return -1;
		}
	}
	return (int)(d->rng_next_ms - now);
}

/* The main loop's own descriptors: the link and the socket file. */
static size_t pollfds(struct host *h, struct pollfd *pfd)
{
	struct daemon *d = (struct daemon *)h;

	pfd[0] = (struct pollfd){.fd = d->link.fd, .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = d->link.peer_fd, .events = POLLIN};
	pfd[2] = (struct pollfd){.fd = d->watch_fd, .events = POLLIN};
	return 3;
}

static bool handle(struct host *h, const struct pollfd *pfd)
{
	struct daemon *d = (struct daemon *)h;

	if ((pfd[0].revents && !link_alive(d, pfd[0].fd)) ||
	    (pfd[1].revents && !link_alive(d, pfd[1].fd))) {
		log_info("interface %s was deleted, shutting down", h->zt.ifname);
		return false;
	}
	if (pfd[2].revents && socket_removed(d)) {
		log_info("UAPI socket %s was removed, shutting down", h->uapi.path);
		return false;
	}
	return true;
}

/* null: /dev/null, opened before the sandbox forbids open(). In the
 * background nothing holds the caller's terminal or pipe (`zinctun wg0 |
 * tail` returns): logs go to syslog or a file; without either, stderr
 * stays, as wireguard-go keeps it. */
static void detach_stdio(int null, bool keep_stderr)
{
	if (null < 0)
		return;
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	if (!keep_stderr)
		dup2(null, STDERR_FILENO);
	if (null > STDERR_FILENO)
		close(null);
}

/* Least privilege once the TUN, the sockets and the config socket exist,
 * and before any thread starts (see sandbox.h). */
static int enter_sandbox(struct host *h)
{
	const struct linkmon *lm = &((struct daemon *)h)->link;
	struct zt_sandbox_config cfg = {
	    .profile = ZT_SANDBOX_DAEMON,
	    .netlink_fds = {lm->fd, lm->peer_fd},
	    .n_netlink_fds = ZT_SANDBOX_NETLINK_MAX,
	    .user = h->opt->user,
	    .need_bind_service = h->opt->bind_service,
	    .seccomp = h->opt->seccomp,
	    .seccomp_kill = h->opt->seccomp_kill,
	};
	char err[256];

	if (zt_sandbox_enter(&cfg, err, sizeof(err)))
		return host_fail(h, "cannot drop privileges: %s", err);
	log_debug("Privileges dropped (uid %u, seccomp %s)", (unsigned)getuid(),
		  cfg.seccomp ? (cfg.seccomp_kill ? "kill" : "on") : "off");
	return 0;
}

/* The metrics endpoint and its names file; a taken port is explained (wg-quick
 * would only add "Protocol not supported"). */
static int open_metrics(struct host *h)
{
	struct daemon *d = (struct daemon *)h;
	const struct zt_options *opt = h->opt;
	int ret =
	    metrics_open(&d->metrics, (struct sockaddr *)&opt->metrics_addr, opt->metrics_addr_len);

	if (ret == -EADDRINUSE)
		return host_fail(h,
				 "metrics address %s is in use (another interface's daemon?): "
				 "each interface needs its own ZINCTUN_METRICS port",
				 opt->metrics);
	if (ret)
		return host_fail(h, "cannot open the metrics endpoint %s: %s", opt->metrics,
				 strerror(-ret));
	ret =
	    opt->metrics_names ? metrics_names_load(&d->metrics.proc.names, opt->metrics_names) : 0;
	if (ret)
		return host_fail(h, "cannot read the peer names of %s: %s", opt->metrics_names,
				 strerror(-ret));
	return 0;
}

/* What the daemon serves beside the configuration socket (the link
 * monitor, the socket file's watch, metrics), then the fork to the
 * background: a taken metrics port fails the start visibly. */
static int prepare(struct host *h)
{
	struct daemon *d = (struct daemon *)h;
	const struct zt_options *opt = h->opt;
	int ret = linkmon_open(&d->link, h->tun_fd, h->zt.ifindex);

	if (ret)
		log_err("netlink: %s (link deletion is seen through the TUN only)", strerror(-ret));
	else
		link_alive(d, d->link.fd); /* the addresses it has already */
	d->watch_fd = watch_socket(d);
	ret = opt->metrics ? open_metrics(h) : 0;
	if (ret)
		return ret;
	if (!opt->foreground) {
		d->ready_fd = host_daemonize();
		if (d->ready_fd < 0)
			return host_fail(h, "fork: %s", strerror(-d->ready_fd));
		d->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		/* connected now: the sandbox forbids connect() */
		d->keep_stderr = !opt->log_file && !log_open_syslog();
		if (d->keep_stderr)
			log_err("no system log (/dev/log: %s): logging to the inherited stderr",
				strerror(errno));
		d->keep_stderr &= log_enabled(LOG_LEVEL_ERROR);
	}
	if (opt->metrics)
		metrics_open_proc(&d->metrics); /* /proc/self is the child's now */
	ret = h->uapi.own_path ? sockreap_start(h->uapi.path, d->title, d->title_len) : 0;
	if (ret)
		log_err("%s will outlive the daemon: %s", h->uapi.path, strerror(-ret));
	return 0;
}

static int start(struct host *h)
{
	struct daemon *d = (struct daemon *)h;
	int ret = metrics_start(&d->metrics, &h->zt);
	char ok = 0;

	if (ret)
		return host_fail(h, "cannot start the metrics thread: %s", strerror(-ret));
	if (h->opt->metrics)
		log_info("Metrics: listening on %s (GET /metrics)", h->opt->metrics);
	log_info("Device started (%s)", h->ifname);
	if (d->ready_fd >= 0) {
		detach_stdio(d->null_fd, d->keep_stderr);
		if (write(d->ready_fd, &ok, 1) != 1)
			log_debug("readiness pipe: %s", strerror(errno));
		close(d->ready_fd);
	}
	return 0;
}

/* the metrics thread first: it reads what zt_datapath_stop tears down */
static void stop(struct host *h)
{
	metrics_stop(&((struct daemon *)h)->metrics);
}

static void close_daemon(struct host *h)
{
	struct daemon *d = (struct daemon *)h;

	if (h->started)
		log_stats(h); /* the last figures (bench builds: lock hold times) */
	linkmon_close(&d->link);
}

static const struct host_ops daemon_ops = {
    .name = "zinctun",
    .about = "\nUserspace WireGuard daemon for Linux, on the Zinc crypto library.\n",
    .usage = usage,
    .open = open_tun,
    .prepare = prepare,
    .sandbox = enter_sandbox,
    .start = start,
    .stop = stop,
    .close = close_daemon,
    .pollfds = pollfds,
    .handle = handle,
    .timeout_ms = check_rng,
    .on_usr1 = log_stats,
};

/* zinctun --proxy FILE: execs the rootless proxy, ZT_PROXY_BINARY, installed
 * beside /proc/self/exe, with file as its argument (and --user user, unless
 * NULL) and this process's environment. Returns only on failure, 1, after
 * one line on stderr saying what is missing. */
static int proxy_exec(const char *file, const char *user)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	if (n < 0) {
		fprintf(stderr,
			"zinctun: --proxy: cannot find our own binary (/proc/self/exe: %s)\n",
			strerror(errno));
		return 1;
	}
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash + 1 - path) + sizeof(ZT_PROXY_BINARY) > sizeof(path)) {
		fprintf(stderr, "zinctun: --proxy: odd binary path '%s'\n", path);
		return 1;
	}
	memcpy(slash + 1, ZT_PROXY_BINARY, sizeof(ZT_PROXY_BINARY));
	/* the environment passes through (execv) */
	/* "--": FILE is never taken for an option, whatever it starts with */
	if (user)
		execv(path,
		      (char *const[]){path, "--user", (char *)user, "--", (char *)file, NULL});
	else
		execv(path, (char *const[]){path, "--", (char *)file, NULL});
	if (errno == ENOENT)
		fprintf(stderr, "zinctun: --proxy needs %s, which is not installed (%s missing)\n",
			ZT_PROXY_BINARY, path);
	else
		fprintf(stderr, "zinctun: --proxy: cannot run %s: %s\n", path, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	/* zeroed (bss: no page of it is touched until used), then set */
	static struct daemon d;
	uid_t uid;
	gid_t gid;
	int ret;

	d.h.ops = &daemon_ops;
	d.h.opt = &d.opt;
	d.watch_fd = d.ready_fd = d.null_fd = -1;
	d.link.fd = d.link.peer_fd = -1;
	d.metrics.listen_fd = d.metrics.proc.stat_fd = -1;

	if (argc > 0) { /* the kernel lays the arguments out one after another */
		d.title = argv[0];
		d.title_len = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) + 1 - argv[0]);
	}
	zt_cli_parse(argc, argv, host_env, NULL, &d.opt);
	ret = host_cli(&d.h, argv[0]);
	if (ret >= 0)
		return ret;
	if (d.opt.action == ZT_CLI_PROXY)
		return proxy_exec(d.opt.proxy, d.opt.user);
	log_init(d.opt.ifname, d.opt.log_level);
	/* checked before anything is created, so a typo leaves no interface
	 * behind (the sandbox looks it up again) */
	if (d.opt.user && zt_passwd_lookup(ZT_PASSWD_FILE, d.opt.user, &uid, &gid))
		return host_fail(&d.h, "unknown user '%s' (not in " ZT_PASSWD_FILE ")", d.opt.user);
	return host_run(&d.h);
}
