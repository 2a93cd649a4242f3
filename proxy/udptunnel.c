/* [UDPProxyTunnel]: datagrams from each local client address go out of
 * their own lwIP UDP pcb (their own port in the tunnel) to Target, and the
 * answers come back to that client; a flow idle for InactivityTimeout
 * seconds is forgotten. SOCKS5 UDP ASSOCIATE: one relay socket per
 * association, its datagrams carrying the RFC 1928 header. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lwip/tcpip.h"
#include "lwip/udp.h"

#include "conn.h"
#include "log.h"
#include "proxy.h"
#include "socks5.h"

enum {
	UDP_DGRAM_MAX = 65535,
	UDP_READS_PER_EVENT = 32,
	UDP_MAX_FLOWS = 1024, /* per tunnel: then the least recently active goes */
};

struct udp_flow {
	struct udp_tunnel *t;
	struct sockaddr_storage from;
	socklen_t from_len;
	struct udp_pcb *pcb;
	uint64_t last_ms;
	struct udp_flow *next;
};

struct udp_tunnel {
	struct loop_handler h;
	struct proxy *px;
	const struct proxy_listener *svc;
	int fd;
	ip_addr_t target;
	bool resolved;
	struct resolve *dns;
	struct udp_flow *flows;
	size_t n_flows;
	struct udp_tunnel *next;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void flow_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *from,
		      u16_t port)
{
	struct udp_flow *f = arg;
	uint8_t *buf = f->t->px->io;
	u16_t len;

	(void)pcb;
	if (port != f->t->svc->target.port || !ip_addr_cmp(from, &f->t->target)) {
		pbuf_free(p);
		return;
	}
	len = pbuf_copy_partial(p, buf, p->tot_len, 0);
	pbuf_free(p);
	f->last_ms = now_ms();
	sendto(f->t->fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&f->from, f->from_len);
}

static void flow_evict_oldest(struct udp_tunnel *t)
{
	struct udp_flow **oldest = &t->flows, *f;

	for (struct udp_flow **fp = &t->flows; *fp; fp = &(*fp)->next)
		if ((*fp)->last_ms < (*oldest)->last_ms)
			oldest = fp;
	f = *oldest;
	if (!f)
		return;
	*oldest = f->next;
	udp_remove(f->pcb);
	free(f);
	t->n_flows--;
}

static struct udp_flow *flow_get(struct udp_tunnel *t, const struct sockaddr_storage *from,
				 socklen_t len)
{
	struct udp_flow *f;

	for (f = t->flows; f; f = f->next)
		if (f->from_len == len && !memcmp(&f->from, from, len))
			return f;
	if (t->n_flows >= UDP_MAX_FLOWS)
		flow_evict_oldest(t);
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	/* no udp_bind: the first udp_sendto binds it to a free port (Debian's
	 * lwIP refuses an explicit bind to IP_ANY_TYPE after the first one) */
	f->pcb = udp_new_ip_type(IP_GET_TYPE(&t->target));
	if (!f->pcb) {
		free(f);
		return NULL;
	}
	f->t = t;
	memcpy(&f->from, from, len);
	f->from_len = len;
	udp_recv(f->pcb, flow_recv, f);
	f->next = t->flows;
	t->flows = f;
	t->n_flows++;
	return f;
}

static void udp_tunnel_resolved(void *arg, const ip_addr_t *addr)
{
	struct udp_tunnel *t = arg;

	t->dns = NULL;
	if (addr) {
		t->target = *addr;
		t->resolved = true;
	}
}

static void udp_tunnel_event(struct loop *l, struct loop_handler *h, uint32_t events)
{
	struct udp_tunnel *t = (struct udp_tunnel *)h;
	uint8_t *buf = t->px->io;

	(void)l;
	(void)events;
	for (int i = 0; i < UDP_READS_PER_EVENT; i++) {
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		ssize_t r = recvfrom(t->fd, buf, UDP_DGRAM_MAX, MSG_DONTWAIT,
				     (struct sockaddr *)&from, &len);
		struct udp_flow *f;
		struct pbuf *p;

		if (r < 0)
			return;
		if (!t->resolved) {
			bool done;

			if (!t->dns)
				t->dns = resolve_start(&t->px->stack, t->svc->target.host,
						       udp_tunnel_resolved, t, &done);
			continue; /* dropped: the name is being looked up */
		}
		f = flow_get(t, &from, len);
		p = f ? pbuf_alloc(PBUF_TRANSPORT, (u16_t)r, PBUF_RAM) : NULL;
		if (!p)
			continue;
		memcpy(p->payload, buf, (size_t)r);
		f->last_ms = now_ms();
		udp_sendto(f->pcb, p, &t->target, t->svc->target.port);
		pbuf_free(p);
	}
}

int udp_tunnel_open(struct proxy *px, const struct proxy_listener *svc)
{
	struct sockaddr_storage ss;
	socklen_t len = proxy_sockaddr(&svc->bind, &ss);
	struct udp_tunnel *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	t->fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (t->fd < 0 || bind(t->fd, (struct sockaddr *)&ss, len) < 0) {
		ret = -errno;
		if (t->fd >= 0)
			close(t->fd);
		free(t);
		return ret;
	}
	t->h.fn = udp_tunnel_event;
	t->px = px;
	t->svc = svc;
	if (svc->target.is_ip) {
		proxy_ip_to_lwip(&svc->target.ip, &t->target);
		t->resolved = true;
	}
	t->next = px->udp;
	px->udp = t;
	return loop_add(&px->loop, t->fd, &t->h, EPOLLIN);
}

uint64_t udp_tunnel_sweep(struct proxy *px)
{
	uint64_t now = now_ms(), next = UINT64_MAX;

	for (struct udp_tunnel *t = px->udp; t; t = t->next) {
		uint64_t idle = (uint64_t)t->svc->inactivity_timeout * 1000;

		if (!idle)
			continue;
		for (struct udp_flow **fp = &t->flows; *fp;) {
			struct udp_flow *f = *fp;

			if (now - f->last_ms >= idle) {
				*fp = f->next;
				udp_remove(f->pcb);
				free(f);
				t->n_flows--;
				continue;
			}
			if (PROXY_UDP_SWEEP_MS < next)
				next = PROXY_UDP_SWEEP_MS;
			fp = &f->next;
		}
	}
	return next;
}

/* ---- SOCKS5 UDP ASSOCIATE ---- */

struct udp_relay {
	struct loop_handler h;
	struct proxy *px;
	int fd;
	struct udp_pcb *pcb[2]; /* IPv4, IPv6: made at the first datagram of each */
	struct sockaddr_storage client;
	socklen_t client_len; /* 0 until its first datagram */
};

static void relay_from_tunnel(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *from,
			      u16_t port)
{
	struct udp_relay *r = arg;
	uint8_t *buf = r->px->io;
	struct socks5_addr src = {.port = port};
	size_t hl;

	(void)pcb;
	if (!r->client_len || p->tot_len > UDP_DGRAM_MAX - SOCKS5_UDP_HEADER_MAX) {
		pbuf_free(p);
		return;
	}
	if (IP_IS_V6(from)) {
		src.atyp = SOCKS5_ATYP_IPV6;
		memcpy(src.ipv6, ip_2_ip6(from)->addr, 16);
	} else {
		src.atyp = SOCKS5_ATYP_IPV4;
		memcpy(src.ipv4, &ip_2_ip4(from)->addr, 4);
	}
	hl = socks5_udp_header(buf, &src);
	hl += pbuf_copy_partial(p, buf + hl, p->tot_len, 0);
	pbuf_free(p);
	sendto(r->fd, buf, hl, MSG_DONTWAIT, (struct sockaddr *)&r->client, r->client_len);
}

static void relay_send(struct udp_relay *r, const ip_addr_t *to, uint16_t port, const uint8_t *data,
		       size_t len)
{
	int v6 = IP_IS_V6(to);
	struct pbuf *p;

	if (!r->pcb[v6]) {
		r->pcb[v6] = udp_new_ip_type(v6 ? IPADDR_TYPE_V6 : IPADDR_TYPE_V4);
		if (!r->pcb[v6])
			return;
		udp_recv(r->pcb[v6], relay_from_tunnel, r);
	}
	p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_RAM);
	if (!p)
		return;
	memcpy(p->payload, data, len);
	udp_sendto(r->pcb[v6], p, to, port);
	pbuf_free(p);
}

static void relay_event(struct loop *l, struct loop_handler *h, uint32_t events)
{
	struct udp_relay *r = (struct udp_relay *)h;
	uint8_t *buf = r->px->io;

	(void)l;
	(void)events;
	if (r->fd < 0)
		return; /* released */
	for (int i = 0; i < UDP_READS_PER_EVENT; i++) {
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		ssize_t n = recvfrom(r->fd, buf, UDP_DGRAM_MAX, MSG_DONTWAIT,
				     (struct sockaddr *)&from, &len);
		struct socks5_addr dst;
		ip_addr_t to;
		int hl;

		if (n < 0)
			return;
		/* the first sender is the client; others are ignored */
		if (!r->client_len) {
			memcpy(&r->client, &from, len);
			r->client_len = len;
		} else if (len != r->client_len || memcmp(&from, &r->client, len)) {
			continue;
		}
		hl = socks5_udp_parse(buf, (size_t)n, &dst);
		if (hl < 0)
			continue;
		if (dst.atyp == SOCKS5_ATYP_IPV4) {
			IP_ADDR4(&to, dst.ipv4[0], dst.ipv4[1], dst.ipv4[2], dst.ipv4[3]);
		} else if (dst.atyp == SOCKS5_ATYP_IPV6) {
			IP_ADDR6(&to, 0, 0, 0, 0);
			memcpy(ip_2_ip6(&to)->addr, dst.ipv6, 16);
			ip6_addr_clear_zone(ip_2_ip6(&to));
		} else if (!ipaddr_aton(dst.domain, &to)) {
			continue; /* names in datagrams are not looked up */
		}
		relay_send(r, &to, dst.port, buf + hl, (size_t)n - (size_t)hl);
	}
}

static void relay_free(struct loop_handler *h)
{
	free(h);
}

int socks_udp_associate(struct conn *c, struct udp_relay **out)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct udp_relay *r;
	struct socks5_addr bound = {0};
	uint8_t reply[SOCKS5_REPLY_MAX];
	size_t n;

	/* the relay listens on the address the client reached us on */
	if (getsockname(c->fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	else
		((struct sockaddr_in *)&ss)->sin_port = 0;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -1;
	r->h.fn = relay_event;
	r->h.free = relay_free;
	r->px = c->px;
	r->fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&ss, len) < 0 ||
	    getsockname(r->fd, (struct sockaddr *)&ss, &len) < 0)
		goto fail;
	if (loop_add(&c->px->loop, r->fd, &r->h, EPOLLIN))
		goto fail;
	if (ss.ss_family == AF_INET6) {
		bound.atyp = SOCKS5_ATYP_IPV6;
		memcpy(bound.ipv6, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
		bound.port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	} else {
		bound.atyp = SOCKS5_ATYP_IPV4;
		memcpy(bound.ipv4, &((struct sockaddr_in *)&ss)->sin_addr, 4);
		bound.port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
	n = socks5_reply(reply, SOCKS5_REP_SUCCESS, &bound);
	conn_send_host(c, reply, n);
	*out = r;
	return 0;
fail:
	log_debug("proxy: SOCKS5 UDP relay: %s", strerror(errno));
	if (r->fd >= 0)
		close(r->fd);
	free(r);
	return -1;
}

void socks_udp_release(struct udp_relay *r)
{
	for (int i = 0; i < 2; i++)
		if (r->pcb[i])
			udp_remove(r->pcb[i]);
	close(r->fd);
	r->fd = -1;
	loop_retire(&r->px->loop, &r->h);
}
