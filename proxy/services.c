/* The services of the configuration file: a listening host socket for each
 * [Socks5], [http] and [TCPClientTunnel], an lwIP listener for each
 * [TCPServerTunnel], a UDP socket for each [UDPProxyTunnel]. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "proxy.h"

struct listener {
	struct loop_handler h;
	struct proxy *px;
	const struct proxy_listener *svc;
	int fd;
	struct listener *next_paused;
};

void proxy_ip_to_lwip(const struct proxy_ip *in, ip_addr_t *out)
{
	if (in->family == AF_INET6) {
		IP_ADDR6(out, 0, 0, 0, 0);
		memcpy(ip_2_ip6(out)->addr, &in->in6, 16);
		ip6_addr_clear_zone(ip_2_ip6(out));
	} else {
		IP_ADDR4(out, 0, 0, 0, 0);
		ip_2_ip4(out)->addr = in->in4.s_addr;
	}
}

/* A numeric host:port as a socket address. */
socklen_t proxy_sockaddr(const struct proxy_hostport *hp, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (hp->ip.family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = hp->ip.in6;
		s6->sin6_port = htons(hp->port);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_addr = hp->ip.in4;
	s4->sin_port = htons(hp->port);
	return sizeof(*s4);
}

static void listener_accept(struct loop *l, struct loop_handler *h, uint32_t events)
{
	struct listener *ls = (struct listener *)h;

	(void)l;
	(void)events;
	for (int i = 0; i < 16; i++) {
		int fd = accept4(ls->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE) {
				/* out of descriptors: the listener would stay readable
				 * and spin the loop; it waits until a connection ends */
				log_err("proxy: accept: %s; pausing %s:%u until a connection ends",
					strerror(errno), ls->svc->bind.host, ls->svc->bind.port);
				loop_mod(&ls->px->loop, ls->fd, &ls->h, 0);
				ls->next_paused = ls->px->paused;
				ls->px->paused = ls;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				log_debug("proxy: accept: %s", strerror(errno));
			}
			return;
		}
		switch (ls->svc->kind) {
		case PROXY_SOCKS5:
			socks_accepted(ls->px, fd, ls->svc);
			break;
		case PROXY_HTTP:
			http_accepted(ls->px, fd, ls->svc);
			break;
		default:
			forward_accepted(ls->px, fd, ls->svc);
			break;
		}
	}
}

static int listener_open(struct proxy *px, const struct proxy_listener *svc)
{
	struct sockaddr_storage ss;
	socklen_t len = proxy_sockaddr(&svc->bind, &ss);
	struct listener *ls = calloc(1, sizeof(*ls));
	int one = 1, fd;

	if (!ls)
		return -ENOMEM;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		free(ls);
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, PROXY_CONNECT_BACKLOG) < 0) {
		int ret = -errno;

		close(fd);
		free(ls);
		return ret;
	}
	ls->h.fn = listener_accept;
	ls->px = px;
	ls->svc = svc;
	ls->fd = fd;
	return loop_add(&px->loop, fd, &ls->h, EPOLLIN);
}

static const char *kind_name(enum proxy_kind k)
{
	static const char *const names[] = {
	    [PROXY_SOCKS5] = "Socks5",
	    [PROXY_HTTP] = "http",
	    [PROXY_TCP_CLIENT] = "TCPClientTunnel",
	    [PROXY_TCP_SERVER] = "TCPServerTunnel",
	    [PROXY_UDP] = "UDPProxyTunnel",
	};
	return names[k];
}

int services_open(struct proxy *px, const char *file)
{
	for (size_t i = 0; i < px->conf.n_listeners; i++) {
		const struct proxy_listener *svc = &px->conf.listeners[i];
		int ret;

		switch (svc->kind) {
		case PROXY_TCP_SERVER:
			ret = tcp_server_open(px, svc);
			break;
		case PROXY_UDP:
			ret = udp_tunnel_open(px, svc);
			break;
		default:
			ret = listener_open(px, svc);
			break;
		}
		if (ret) {
			fprintf(stderr, "%s:%u: [%s]: cannot listen: %s\n", file, svc->line,
				kind_name(svc->kind), strerror(-ret));
			return -1;
		}
		if (svc->kind == PROXY_TCP_SERVER)
			log_info("[%s] tunnel port %u -> %s:%u", kind_name(svc->kind),
				 svc->listen_port, svc->target.host, svc->target.port);
		else if (svc->target.port)
			log_info("[%s] on %s:%u -> %s:%u", kind_name(svc->kind), svc->bind.host,
				 svc->bind.port, svc->target.host, svc->target.port);
		else
			log_info("[%s] on %s:%u", kind_name(svc->kind), svc->bind.host,
				 svc->bind.port);
	}
	return 0;
}

void services_resume(struct proxy *px)
{
	while (px->paused) {
		struct listener *ls = px->paused;

		px->paused = ls->next_paused;
		loop_mod(&px->loop, ls->fd, &ls->h, EPOLLIN);
	}
}

uint64_t services_tick(void *arg)
{
	return udp_tunnel_sweep(arg);
}
