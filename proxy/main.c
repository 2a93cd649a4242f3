/* zinctun-proxy FILE: a rootless WireGuard client (issue 17). The daemon's
 * runtime (engine under its lock, UDP sockets with GSO/GRO, handshake and
 * timer threads, crypto workers, configuration socket) with lwIP where the
 * TUN device would be, serving SOCKS5, HTTP and port forwards to local
 * programs. No capabilities, never opens /dev/net/tun; foreground, logs to
 * stderr. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "config.h"
#include "conn.h"
#include "datapath.h"
#include "log.h"
#include "lwipmem.h"
#include "proxy.h"
#include "runtime.h"
#include "signals.h"
#include "uapi.h"
#include "version.h"

enum {
	NAME_MAX_LEN = 15,	  /* an interface name, for wg show through a symlink */
	SET_BODY_PEER = 256 + 64, /* a peer's lines but its allowed IPs */
};

struct proxy_main {
	struct zt zt;
	struct zt_options opt; /* the daemon's environment switches (cli.h) */
	struct proxy px;
	struct uapi_server uapi;
	int sig_fd;
	char name[NAME_MAX_LEN + 1];
	char sock_path[108];
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: zinctun-proxy [-f] [--socket PATH] [--name NAME] [--] FILE\n"
		   "       zinctun-proxy --version\n"
		   "\n"
		   "A WireGuard client without root, TUN device or capabilities: its IP\n"
		   "stack is lwIP, and the [Socks5], [http], [TCPClientTunnel],\n"
		   "[TCPServerTunnel] and [UDPProxyTunnel] sections of FILE (wireproxy's\n"
		   "format) expose the tunnel to local programs. Runs in the foreground,\n"
		   "logs to stderr (LOG_LEVEL=silent|error|info|debug, default info).\n"
		   "The configuration socket (wg(8)'s protocol) is PATH, else\n"
		   "$XDG_RUNTIME_DIR/zinctun/NAME.sock (when that directory is the user's),\n"
		   "else /tmp/zinctun-UID/NAME.sock; NAME defaults to FILE's name up to\n"
		   "its first '.'.\n");
}

static int read_text(const char *path, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct buf b = {0};
	char chunk[4096];
	ssize_t r;

	if (fd < 0)
		return -errno;
	while ((r = read(fd, chunk, sizeof(chunk))) > 0) {
		if (b.len + (size_t)r > PROXY_CONF_MAX_BYTES) {
			close(fd);
			free(b.data);
			return -EFBIG;
		}
		char *n = realloc(b.data, b.len + (size_t)r);

		if (!n) {
			close(fd);
			free(b.data);
			return -ENOMEM;
		}
		b.data = n;
		memcpy(b.data + b.len, chunk, (size_t)r);
		b.len += (size_t)r;
	}
	close(fd);
	if (r < 0) {
		free(b.data);
		return -errno;
	}
	*text = b.data ? (char *)b.data : strdup("");
	*len = b.len;
	return *text ? 0 : -ENOMEM;
}

static int conf_read(void *ctx, const char *path, char **text, size_t *len)
{
	(void)ctx;
	return read_text(path, text, len);
}

static void hex(char *out, const uint8_t *key)
{
	for (int i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", key[i]);
}

static const char *ip_text(const struct proxy_ip *ip, char *buf, size_t len)
{
	return inet_ntop(ip->family,
			 ip->family == AF_INET6 ? (const void *)&ip->in6 : (const void *)&ip->in4,
			 buf, (socklen_t)len);
}

/* An Endpoint's host resolved here (the tunnel is not up yet). */
static int endpoint_text(const char *file, const struct proxy_peer *p, char *out, size_t len)
{
	struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *ai;
	char host[INET6_ADDRSTRLEN], port[8];
	int ret;

	snprintf(port, sizeof(port), "%u", p->endpoint.port);
	ret = getaddrinfo(p->endpoint.host, port, &hints, &ai);
	if (ret) {
		fprintf(stderr, "%s:%u: Endpoint %s: %s\n", file, p->line, p->endpoint.host,
			gai_strerror(ret));
		return -1;
	}
	if (ai->ai_family == AF_INET6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, host,
			  sizeof(host));
		snprintf(out, len, "[%s]:%u", host, p->endpoint.port);
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, host,
			  sizeof(host));
		snprintf(out, len, "%s:%u", host, p->endpoint.port);
	}
	freeaddrinfo(ai);
	return 0;
}

/* The [Interface] and [Peer]s as one UAPI set, applied as wg(8) would. */
static int apply_conf(struct proxy_main *m, const char *file)
{
	const struct proxy_conf *c = &m->px.conf;
	size_t cap = 256;
	char *body, *p, key[65], ep[INET6_ADDRSTRLEN + 16], ip[INET6_ADDRSTRLEN];
	int ret;

	for (size_t i = 0; i < c->n_peers; i++)
		cap += SET_BODY_PEER + c->peers[i].n_allowed * (INET6_ADDRSTRLEN + 20);
	body = p = malloc(cap);
	if (!body)
		return -ENOMEM;
	hex(key, c->iface.private_key);
	p += sprintf(p, "private_key=%s\nlisten_port=%u\nreplace_peers=true\n", key,
		     c->iface.listen_port);
	for (size_t i = 0; i < c->n_peers; i++) {
		const struct proxy_peer *peer = &c->peers[i];

		hex(key, peer->public_key);
		p += sprintf(p, "public_key=%s\n", key);
		if (peer->has_preshared_key) {
			hex(key, peer->preshared_key);
			p += sprintf(p, "preshared_key=%s\n", key);
		}
		if (peer->has_endpoint) {
			if (endpoint_text(file, peer, ep, sizeof(ep))) {
				free(body);
				return -1;
			}
			p += sprintf(p, "endpoint=%s\n", ep);
		}
		p += sprintf(p, "persistent_keepalive_interval=%u\nreplace_allowed_ips=true\n",
			     peer->keepalive);
		for (size_t j = 0; j < peer->n_allowed; j++)
			p += sprintf(p, "allowed_ip=%s/%u\n",
				     ip_text(&peer->allowed[j].ip, ip, sizeof(ip)),
				     peer->allowed[j].cidr);
	}
	ret = config_set(&m->zt, body, (size_t)(p - body));
	explicit_bzero(body, cap);
	free(body);
	if (ret)
		fprintf(stderr, "%s: the configuration was refused: %s\n", file, strerror(-ret));
	return ret ? -1 : 0;
}

/* A directory only we can use: created 0700, or one that is ours and 0700. */
static int own_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

/* XDG_RUNTIME_DIR is used only when it is ours: one inherited from another
 * user (setpriv or su from a root shell) is not writable. */
static bool owned_dir(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid();
}

static int socket_path(struct proxy_main *m, const char *given)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char dir[sizeof(m->sock_path)];
	int ret;

	if (given) {
		if ((size_t)snprintf(m->sock_path, sizeof(m->sock_path), "%s", given) >=
		    sizeof(m->sock_path))
			return -ENAMETOOLONG;
		return 0;
	}
	if (xdg && *xdg && owned_dir(xdg)) {
		snprintf(dir, sizeof(dir), "%s/zinctun", xdg);
	} else {
		snprintf(dir, sizeof(dir), "/tmp/zinctun-%u", (unsigned)getuid());
	}
	ret = own_dir(dir);
	if (ret)
		return ret;
	if ((size_t)snprintf(m->sock_path, sizeof(m->sock_path), "%s/%s.sock", dir, m->name) >=
	    sizeof(m->sock_path))
		return -ENAMETOOLONG;
	return 0;
}

static void default_name(struct proxy_main *m, const char *file)
{
	const char *base = strrchr(file, '/');
	size_t n;

	base = base ? base + 1 : file;
	n = strcspn(base, ".");
	if (n > NAME_MAX_LEN)
		n = NAME_MAX_LEN;
	if (!n) {
		snprintf(m->name, sizeof(m->name), "proxy");
		return;
	}
	memcpy(m->name, base, n);
	m->name[n] = 0;
}

static const char *env_get(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

/* The daemon's switches from the environment (LOG_LEVEL, ZINCTUN_WORKERS,
 * ZINCTUN_NO_GSO...), as zinctun reads them; lwIP stands in for the TUN
 * (stack.h), so TUN queues and offloads do not apply. */
static void daemon_options(struct proxy_main *m)
{
	char *argv[] = {"zinctun-proxy", "-f", m->name, NULL};

	zt_cli_parse(3, argv, env_get, NULL, &m->opt);
	if (m->opt.action != ZT_CLI_RUN) {
		argv[2] = "proxy";
		zt_cli_parse(3, argv, env_get, NULL, &m->opt);
	}
	if (m->opt.action == ZT_CLI_ERROR) {
		fprintf(stderr, "zinctun-proxy: %s\n", m->opt.err);
		exit(1);
	}
	m->opt.dp.tun_queues = 1;
	m->opt.dp.tun_offload = false;
}

static int uapi_get(void *ctx, struct buf *out)
{
	return config_get(ctx, out);
}

static int uapi_set(void *ctx, const char *body, size_t len)
{
	return config_set(ctx, body, len);
}

/* SIGUSR1: each peer's endpoint, last handshake and transfer, then the
 * engine's counters. */
static void log_peers(struct proxy_main *m)
{
	struct wg_device_stats st;
	uint64_t now = zt_wall_ns();

	zt_engine_lock(&m->zt);
	for (struct wg_peer *p = wg_device_peer_next(m->zt.dev, NULL); p;
	     p = wg_device_peer_next(m->zt.dev, p)) {
		struct wg_peer_info info;
		char key[65], ep[INET6_ADDRSTRLEN + 8] = "(none)";

		wg_peer_get_info(p, &info);
		hex(key, info.public_key);
		if (info.has_endpoint) {
			const struct sockaddr *sa = &info.endpoint.addr.sa;
			char host[INET6_ADDRSTRLEN];

			if (sa->sa_family == AF_INET6) {
				inet_ntop(AF_INET6, &info.endpoint.addr.in6.sin6_addr, host,
					  sizeof(host));
				snprintf(ep, sizeof(ep), "[%s]:%u", host,
					 ntohs(info.endpoint.addr.in6.sin6_port));
			} else {
				inet_ntop(AF_INET, &info.endpoint.addr.in4.sin_addr, host,
					  sizeof(host));
				snprintf(ep, sizeof(ep), "%s:%u", host,
					 ntohs(info.endpoint.addr.in4.sin_port));
			}
		}
		if (info.last_handshake_wall_ns)
			log_info("peer %s endpoint %s latest handshake %llu s ago transfer "
				 "%llu B received, %llu B sent",
				 key, ep,
				 (unsigned long long)((now - info.last_handshake_wall_ns) /
						      1000000000ULL),
				 (unsigned long long)info.rx_bytes,
				 (unsigned long long)info.tx_bytes);
		else
			log_info("peer %s endpoint %s latest handshake never transfer %llu B "
				 "received, %llu B sent",
				 key, ep, (unsigned long long)info.rx_bytes,
				 (unsigned long long)info.tx_bytes);
	}
	wg_device_get_stats(m->zt.dev, &st);
	zt_engine_unlock(&m->zt);
	log_info("stats: handshakes_completed=%llu handshakes_responded=%llu "
		 "handshakes_timed_out=%llu packets_invalid=%llu cookie_replies_sent=%llu",
		 (unsigned long long)st.handshakes_completed,
		 (unsigned long long)st.handshakes_responded,
		 (unsigned long long)st.handshakes_timed_out,
		 (unsigned long long)st.packets_invalid,
		 (unsigned long long)st.cookie_replies_sent);
}

static void log_peers_signal(void *arg)
{
	log_peers(arg);
}

static void run(struct proxy_main *m)
{
	enum { N_FIXED = 2 };
	struct pollfd pfd[N_FIXED + 1 + UAPI_MAX_CLIENTS];

	for (;;) {
		size_t n_uapi;
		int ret;

		pfd[0] = (struct pollfd){.fd = m->sig_fd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = m->zt.stop_fd, .events = POLLIN};
		n_uapi =
		    uapi_pollfds(&m->uapi, pfd + N_FIXED, sizeof(pfd) / sizeof(pfd[0]) - N_FIXED);
		ret = poll(pfd, N_FIXED + n_uapi, uapi_timeout_ms(&m->uapi));
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (pfd[0].revents && !signals_handle(m->sig_fd, log_peers_signal, m))
			return;
		if (pfd[1].revents)
			return;
		uapi_handle(&m->uapi, pfd + N_FIXED, n_uapi);
	}
}

static void *loop_main(void *arg)
{
	struct proxy *px = arg;

	loop_run(&px->loop);
	return NULL;
}

static int stack_addrs(struct proxy_main *m)
{
	const struct proxy_interface *ifc = &m->px.conf.iface;
	ip4_addr_t a4;
	ip6_addr_t a6;
	bool has4 = false, has6 = false;

	for (size_t i = 0; i < ifc->n_addrs; i++) {
		const struct proxy_ip *ip = &ifc->addrs[i].ip;

		if (ip->family == AF_INET && !has4) {
			a4.addr = ip->in4.s_addr;
			has4 = true;
		} else if (ip->family == AF_INET6 && !has6) {
			memcpy(a6.addr, &ip->in6, 16);
			ip6_addr_clear_zone(&a6);
			has6 = true;
		}
	}
	if (ifc->n_dns) {
		proxy_ip_to_lwip(&ifc->dns[0], &m->px.stack.dns);
		m->px.stack.has_dns = true;
	}
	lwipmem_set_budget((size_t)m->opt.proxy_memory << 20);
	return stack_init(&m->px.stack, &m->zt, ifc->mtu, has4 ? &a4 : NULL, has6 ? &a6 : NULL);
}

/* Two descriptors per connection: take the hard limit, as Go programs
 * (wireproxy) do. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	static struct proxy_main m;
	const char *file = NULL, *sock = NULL, *name = NULL;
	char err[PROXY_CONF_ERR_LEN], *text;
	struct uapi_ops ops;
	pthread_t loop_thread;
	size_t len;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("zinctun-proxy v%s\n", ZINCTUN_VERSION);
			return 0;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--foreground")) {
			/* always in the foreground */
		} else if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
			sock = argv[++i];
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			name = argv[++i];
		} else if (!strcmp(argv[i], "--") && i + 2 == argc && !file) {
			file = argv[++i]; /* a FILE that may start with '-' */
		} else if (argv[i][0] != '-' && !file) {
			file = argv[i];
		} else {
			usage(stderr);
			return 1;
		}
	}
	if (!file) {
		usage(stderr);
		return 1;
	}
	if (name)
		snprintf(m.name, sizeof(m.name), "%s", name);
	else
		default_name(&m, file);
	if (!getenv("LOG_LEVEL"))
		setenv("LOG_LEVEL", "info", 0);
	daemon_options(&m);
	log_init(m.name, m.opt.log_level);

	ret = read_text(file, &text, &len);
	if (ret) {
		fprintf(stderr, "%s: %s\n", file, strerror(-ret));
		return 1;
	}
	ret = proxy_conf_parse(file, text, len, conf_read, NULL, &m.px.conf, err, sizeof(err));
	explicit_bzero(text, len);
	free(text);
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}

	raise_fd_limit();
	m.sig_fd = signals_open();
	if (m.sig_fd < 0) {
		fprintf(stderr, "zinctun-proxy: %s\n", strerror(errno));
		return 1;
	}
	ret = zt_init(&m.zt, m.name, &m.opt.dp);
	/* lwIP in place of the TUN; stack_init fills the sink in below */
	if (!ret)
		ret = zt_datapath_init_sink(&m.zt, &m.px.stack.sink);
	if (ret) {
		fprintf(stderr, "zinctun-proxy: cannot start the device: %s\n", strerror(-ret));
		return 1;
	}
	zt_set_mtu(&m.zt, m.px.conf.iface.mtu);
	if (apply_conf(&m, file))
		return 1;
	if (loop_init(&m.px.loop) || stack_addrs(&m)) {
		fprintf(stderr, "zinctun-proxy: cannot start lwIP\n");
		return 1;
	}
	m.px.stack.end_batch = conn_flush_queued;
	m.px.stack.end_ctx = &m.px;
	m.px.loop.tick = services_tick;
	m.px.loop.tick_ctx = &m.px;
	m.px.loop.lock = stack_lock;
	m.px.loop.unlock = stack_unlock;
	m.px.loop.lock_ctx = &m.px.stack;
	if (services_open(&m.px, file))
		return 1;
	ret = socket_path(&m, sock);
	ops = (struct uapi_ops){.get = uapi_get, .set = uapi_set, .ctx = &m.zt};
	if (!ret)
		ret = uapi_open_path(&m.uapi, m.sock_path, &ops);
	if (ret) {
		fprintf(stderr, "zinctun-proxy: cannot open the configuration socket %s: %s\n",
			m.sock_path, strerror(-ret));
		return 1;
	}
	ret = zt_start(&m.zt);
	if (!ret)
		ret = zt_datapath_start(&m.zt);
	if (!ret)
		stack_start(&m.px.stack);
	if (!ret)
		ret = -pthread_create(&loop_thread, NULL, loop_main, &m.px);
	if (ret) {
		uapi_close(&m.uapi);
		fprintf(stderr, "zinctun-proxy: cannot start threads: %s\n", strerror(-ret));
		return 1;
	}
	log_info("Proxy started (%s, configuration socket %s)", m.name, m.sock_path);
	run(&m);
	uapi_close(&m.uapi);
	stack_close(&m.px.stack); /* lwIP's threads send no more */
	zt_datapath_stop(&m.zt);
	zt_stop(&m.zt);
	log_info("Shutting down");
	/* lwIP and the loop thread end with the process */
	_exit(0);
}
