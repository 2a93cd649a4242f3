/* zinctun-proxy FILE: a rootless WireGuard client. The daemon's runtime
 * (engine under its lock, UDP sockets with GSO/GRO, handshake and timer
 * threads, crypto workers, configuration socket) and its start-up (host.h)
 * with lwIP where the TUN device would be, serving SOCKS5, HTTP and port
 * forwards to local programs. No capabilities, never opens /dev/net/tun;
 * logs to stderr or --log-file. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zinc/memzero.h>

#include "addr.h"
#include "cli.h"
#include "config.h"
#include "conn.h"
#include "endpoint.h"
#include "eventlog.h"
#include "health.h"
#include "host.h"
#include "log.h"
#include "lwipmem.h"
#include "proxy.h"
#include "rundir.h"
#include "sandbox.h"
#include "services.h"
#include "stdio_tunnel.h"
#include "uapi_parse.h"

enum { PRIVILEGED_PORT_END = 1024 }; /* ports below it need CAP_NET_BIND_SERVICE */

struct proxy_main {
	struct host h; /* first: the steps' struct host * is this */
	struct zt_options opt;
	struct proxy px;
	struct zt_sandbox_config sandbox;
	char sock_path[108];
	pthread_t loop_thread;
	struct health health;
	int ready_fd; /* -d: the parent waits for a byte on it */
};

static void usage(FILE *f, const char *prog)
{
	(void)prog;
	fprintf(
	    f, "Usage: zinctun-proxy [-f|-d] [-n] [-s] [-i ADDR] [--metrics ADDR] [--socket PATH]\n"
	       "                     [--name NAME] [--user NAME] [--log-file PATH]\n"
	       "                     {-c FILE | [--] FILE}\n"
	       "       zinctun-proxy -v|--version\n"
	       "\n"
	       "A WireGuard client without root, TUN device or capabilities (its IP stack\n"
	       "is lwIP): the sections of FILE, wireproxy's format, offer the tunnel to\n"
	       "local programs. -n checks FILE; -d runs in the background once started;\n"
	       "-s logs errors only (LOG_LEVEL, default info); -i ADDR serves wireproxy's\n"
	       "/metrics and /readyz. See zinctun-proxy(1) and zinctun(8).\n");
}

/* The whole file in one allocation of the largest size allowed: no
 * realloc leaves a copy of its keys behind. */
static int read_text(void *ctx, const char *path, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	char *t = fd < 0 ? NULL : malloc(PROXY_CONF_MAX_BYTES + 1);
	size_t n = 0;
	ssize_t r = 1;

	(void)ctx;
	if (fd < 0)
		return -errno;
	while (t && n <= PROXY_CONF_MAX_BYTES &&
	       (r = read(fd, t + n, PROXY_CONF_MAX_BYTES + 1 - n)) > 0)
		n += (size_t)r;
	if (!t || r < 0 || n > PROXY_CONF_MAX_BYTES) {
		ret = !t ? -ENOMEM : r < 0 ? -errno : -EFBIG;
		if (t)
			zinc_memzero(t, n);
		free(t);
	}
	close(fd);
	*text = t;
	*len = n;
	return ret;
}

/* An Endpoint's host resolved here (the tunnel is not up yet), its first
 * address; a name is followed from then on (endpoint.h). */
static int resolve_endpoint(void *ctx, const struct proxy_peer *p, union uapi_sockaddr *out)
{
	int ret = endpoint_lookup(p->endpoint.host, p->endpoint.port, out, 1);

	if (ret <= 0) {
		fprintf(stderr, "%s:%u: Endpoint %s: %s\n", (const char *)ctx, p->line,
			p->endpoint.host, ret ? gai_strerror(ret) : "no IPv4 or IPv6 address");
		return -1;
	}
	if (!p->endpoint.is_ip &&
	    endpoint_watch(p->set.public_key, p->endpoint.host, p->endpoint.port))
		return -1;
	return 0;
}

/* SIGUSR1: each peer's endpoint, last handshake and transfer, then the
 * engine's counters and the packets lwIP did not take. */
static void log_peers(struct host *h)
{
	struct wg_device_stats st;
	uint64_t now = zt_wall_ns();

	zt_engine_lock(&h->zt);
	for (struct wg_peer *p = wg_device_peer_next(h->zt.dev, NULL); p;
	     p = wg_device_peer_next(h->zt.dev, p)) {
		struct wg_peer_info info;
		char who[EVENTLOG_PEER_NAME_LEN], when[32] = "never";
		char ep[INET6_ADDRSTRLEN + 32] = "(none)";

		wg_peer_get_info(p, &info);
		eventlog_peer_name(who, info.public_key); /* as every other line names it */
		if (info.has_endpoint &&
		    !uapi_format_endpoint(ep, sizeof(ep), &info.endpoint.addr.sa))
			snprintf(ep, sizeof(ep), "(none)");
		if (info.last_handshake_wall_ns)
			snprintf(when, sizeof(when), "%llu s ago",
				 (unsigned long long)((now - info.last_handshake_wall_ns) /
						      1000000000ULL));
		log_info("%s endpoint %s latest handshake %s transfer %llu B received, %llu B "
			 "sent",
			 who, ep, when, (unsigned long long)info.rx_bytes,
			 (unsigned long long)info.tx_bytes);
		zinc_memzero(&info, sizeof(info));
	}
	wg_device_get_stats(h->zt.dev, &st);
	zt_engine_unlock(&h->zt);
	log_info("stats: handshakes_completed=%llu handshakes_responded=%llu "
		 "handshakes_timed_out=%llu packets_invalid=%llu cookie_replies_sent=%llu "
		 "stack_refused=%llu",
		 (unsigned long long)st.handshakes_completed,
		 (unsigned long long)st.handshakes_responded,
		 (unsigned long long)st.handshakes_timed_out,
		 (unsigned long long)st.packets_invalid, (unsigned long long)st.cookie_replies_sent,
		 (unsigned long long)zt_drops_read(&h->zt.drops.stack_refused));
}

/* FILE read and checked (all -n does): 0, or 1 with the error on stderr. */
static int load(struct proxy_main *m)
{
	char err[PROXY_CONF_ERR_LEN], *text;
	size_t len;
	int ret = read_text(NULL, m->opt.proxy, &text, &len);

	if (ret) {
		fprintf(stderr, "%s: %s\n", m->opt.proxy, strerror(-ret));
		return 1;
	}
	ret = proxy_conf_parse(m->opt.proxy, text, len, read_text, NULL, &m->px.conf, err,
			       sizeof(err));
	zinc_memzero(text, len);
	free(text);
	if (ret)
		fprintf(stderr, "%s\n", err);
	return ret ? 1 : 0;
}

/* The device: FILE loaded, lwIP's sink in place of a TUN. */
static int open_proxy(struct host *h)
{
	struct proxy_main *m = (struct proxy_main *)h;

	if (load(m))
		return 1;
	snprintf(h->ifname, sizeof(h->ifname), "%s", m->opt.name);
	h->sink = &m->px.stack.sink; /* stack_init fills it in (configure) */
	return 0;
}

/* The [Interface] and [Peer]s applied as wg(8)'s set would be (their keys
 * leave the proxy's copy of the file on the way), the configuration
 * socket's path. */
static int configure(struct host *h)
{
	struct proxy_main *m = (struct proxy_main *)h;
	struct uapi_set set;
	int ret;

	zt_set_mtu(&h->zt, m->px.conf.iface.mtu);
	ret = proxy_conf_take_set(&m->px.conf, resolve_endpoint, (void *)m->opt.proxy, &set);
	if (ret == -ENOMEM)
		return host_fail(h, "%s", strerror(-ret));
	if (ret)
		return 1;
	ret = config_apply(&h->zt, &set);
	uapi_set_free(&set);
	if (ret) {
		fprintf(stderr, "%s: the configuration was refused: %s\n", m->opt.proxy,
			strerror(-ret));
		return 1;
	}
	ret = endpoint_start(h);
	if (ret)
		log_err("Endpoint names are not followed: no lookup helper (%s)", strerror(-ret));
	ret = rundir_socket_path(m->sock_path, sizeof(m->sock_path), m->opt.name, m->opt.socket);
	if (ret)
		return host_fail(h, "cannot open the configuration socket %s: %s", m->sock_path,
				 strerror(-ret));
	h->uapi_path = m->sock_path;
	return 0;
}

/* A host-side listener that must bind a port below 1024. */
static bool low_port(const struct proxy_conf *conf)
{
	for (size_t i = 0; i < conf->n_listeners; i++)
		if (conf->listeners[i].bind.port && /* 0: a tunnel's, none on the host */
		    conf->listeners[i].bind.port < PRIVILEGED_PORT_END)
			return true;
	return false;
}

/* Once the configuration socket exists: the user (nobody when root, or
 * --user) and capabilities (CAP_NET_BIND_SERVICE only for a low_port(),
 * if the process has it) go before lwIP's first thread starts (they are
 * per thread), then lwIP on the tunnel's addresses and the services'
 * listeners. */
static int prepare(struct host *h)
{
	struct proxy_main *m = (struct proxy_main *)h;
	char err[256];

	if (!h->opt->foreground && (m->ready_fd = host_daemonize()) < 0)
		return host_fail(h, "fork: %s", strerror(-m->ready_fd));
	if (health_open(&m->health, &m->px, h->opt))
		return 1;
	m->sandbox = (struct zt_sandbox_config){
	    .profile = ZT_SANDBOX_PROXY,
	    .user = h->opt->user,
	    .need_bind_service = low_port(&m->px.conf),
	    .seccomp = h->opt->seccomp,
	    .seccomp_kill = h->opt->seccomp_kill,
	};
	if (zt_sandbox_drop(&m->sandbox, err, sizeof(err)))
		return host_fail(h, "cannot drop privileges: %s", err);
	lwipmem_set_budget((size_t)m->opt.proxy_memory << 20);
	if (loop_init(&m->px.loop) || stack_init(&m->px.stack, &h->zt, &m->px.conf.iface))
		return host_fail(h, "cannot start lwIP");
	m->px.stack.end_batch = conn_flush_queued;
	m->px.stack.end_ctx = &m->px;
	m->px.loop.tick = services_tick;
	m->px.loop.tick_ctx = &m->px;
	m->px.loop.stack = &m->px.stack;
	return services_open(&m->px, h->opt->proxy) ? 1 : 0;
}

/* Every listener bound: the seccomp filter (ZINCTUN_SECCOMP), on every
 * thread. */
static int sandbox(struct host *h)
{
	const struct zt_sandbox_config *sb = &((struct proxy_main *)h)->sandbox;
	char err[256];

	if (zt_sandbox_filter(sb, err, sizeof(err)))
		return host_fail(h, "cannot install the seccomp filter: %s", err);
	log_debug("Privileges dropped (uid %u, seccomp %s)", (unsigned)getuid(),
		  sb->seccomp ? (sb->seccomp_kill ? "kill" : "on") : "off");
	return 0;
}

static int start(struct host *h)
{
	struct proxy_main *m = (struct proxy_main *)h;
	int ret;

	stack_set_open(&m->px.stack, true);
	stdio_tunnel_start(&m->px);
	ret = pthread_create(&m->loop_thread, NULL, loop_run, &m->px.loop);
	if (!ret)
		ret = -health_start(&m->health, &h->zt);
	if (ret)
		return host_fail(h, "cannot start threads: %s", strerror(ret));
	log_info("Proxy started (%s, configuration socket %s%s%s%s%s)", m->opt.name, m->sock_path,
		 h->opt->info ? ", health endpoint " : "", h->opt->info ? h->opt->info : "",
		 h->opt->metrics ? ", metrics " : "", h->opt->metrics ? h->opt->metrics : "");
	if (m->ready_fd >= 0 && write(m->ready_fd, "", 1) != 1)
		log_err("-d: the parent did not hear that the proxy started");
	return 0;
}

/* lwIP's threads send no more; they and the loop thread end with the
 * process. */
static void stop(struct host *h)
{
	health_stop(&((struct proxy_main *)h)->health);
	stack_set_open(&((struct proxy_main *)h)->px.stack, false);
}

static const struct host_ops proxy_ops = {
    .name = "zinctun-proxy",
    .about = "",
    .usage = usage,
    .open = open_proxy,
    .configure = configure,
    .prepare = prepare,
    .sandbox = sandbox,
    .start = start,
    .stop = stop,
    .pollfds = endpoint_pollfds,
    .handle = endpoint_handle,
    .on_usr1 = log_peers,
};

int main(int argc, char **argv)
{
	static struct proxy_main m; /* zeroed, in bss: untouched pages stay out of RSS */
	int ret;

	if (argc == 2 && !strcmp(argv[1], ENDPOINT_HELPER_ARG))
		_exit(endpoint_helper());
	m.h.ops = &proxy_ops;
	m.h.opt = &m.opt;
	m.ready_fd = -1;

	zt_cli_parse_proxy(argc, argv, host_env, NULL, &m.opt);
	ret = host_cli(&m.h, argv[0]);
	if (ret >= 0)
		return ret;
	if (m.opt.check)
		return load(&m) ? 1 : puts("Config OK") < 0;
	log_init(m.opt.name, m.opt.log_level);
	/* lwIP's threads never stop: the process ends without waiting */
	_exit(host_run(&m.h));
}
