/* SOCKS5 UDP ASSOCIATE (see socks_udp.h). */
#include "socks_udp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lwip/udp.h"

#include "addr.h"
#include "conn.h"
#include "dgram.h"
#include "log.h"
#include "proxy.h"
#include "resolve.h"
#include "socks_proto.h"

struct socks_udp {
	struct loop_handler h; /* first: the loop's pointer is the relay's */
	struct proxy *px;
	int fd;
	struct udp_pcb *pcb[2]; /* IPv4, IPv6: made at the first datagram of each */
	ip_addr_t client_ip;	/* the TCP client's */
	ip_addr_t want_ip;	/* the declared DST.ADDR; any: not declared */
	uint16_t want_port;	/* the declared DST.PORT; 0: not declared */
	struct sockaddr_storage client;
	socklen_t client_len; /* 0 until its first datagram */
	/* DST.ADDR names, through the tunnel's DNS: the last name looked up,
	 * its address once known, and the datagram that waits for it */
	struct resolve *dns;
	char name[PROXY_HOST_MAX + 1];
	bool name_known;
	ip_addr_t name_ip;
	uint8_t *held;
	size_t held_len;
	uint16_t held_port;
};

static void relay_from_tunnel(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *from,
			      u16_t port)
{
	struct socks_udp *r = arg;
	uint8_t *buf = r->px->io;
	struct socks5_addr src;
	size_t hl;

	(void)pcb;
	if (!r->client_len || p->tot_len > PROXY_UDP_DGRAM_MAX - SOCKS5_UDP_HEADER_MAX) {
		pbuf_free(p);
		return;
	}
	addr_to_socks(from, port, &src);
	hl = socks5_udp_header(buf, &src);
	hl += pbuf_copy_partial(p, buf + hl, p->tot_len, 0);
	pbuf_free(p);
	sendto(r->fd, buf, hl, MSG_DONTWAIT, (struct sockaddr *)&r->client, r->client_len);
}

static void relay_send(struct socks_udp *r, const ip_addr_t *to, uint16_t port, const uint8_t *data,
		       size_t len)
{
	int v6 = IP_IS_V6(to);

	if (addr_forbidden(&r->px->conf.iface, to))
		return;
	if (!r->pcb[v6]) {
		r->pcb[v6] = udp_new_ip_type(v6 ? IPADDR_TYPE_V6 : IPADDR_TYPE_V4);
		if (!r->pcb[v6])
			return;
		udp_recv(r->pcb[v6], relay_from_tunnel, r);
	}
	dgram_send(r->pcb[v6], data, len, to, port);
}

static void relay_drop_held(struct socks_udp *r)
{
	free(r->held);
	r->held = NULL;
}

static void relay_resolved(void *arg, const ip_addr_t *addr)
{
	struct socks_udp *r = arg;

	r->dns = NULL;
	if (addr) {
		r->name_ip = *addr;
		r->name_known = true;
		relay_send(r, addr, r->held_port, r->held, r->held_len);
	} else {
		r->name[0] = '\0'; /* the next datagram tries again */
	}
	relay_drop_held(r);
}

/* A datagram for a name: sent at once when it is the last one looked up,
 * else held (one at a time) until the lookup through the tunnel ends. */
static void relay_send_named(struct socks_udp *r, const struct socks5_addr *dst,
			     const uint8_t *data, size_t len)
{
	if (!strcmp(dst->domain, r->name)) {
		if (r->name_known)
			relay_send(r, &r->name_ip, dst->port, data, len);
		return; /* or being looked up: dropped */
	}
	if (r->dns)
		return;
	relay_drop_held(r);
	r->held = malloc(len ? len : 1);
	if (!r->held)
		return;
	memcpy(r->held, data, len);
	r->held_len = len;
	r->held_port = dst->port;
	strcpy(r->name, dst->domain);
	r->name_known = false;
	r->dns = resolve_start(&r->px->stack, r->name, relay_resolved, r);
}

/* True when the datagram's source is the client: its TCP connection's
 * address, and what it declared; the first such source is then the only
 * one (replies go there). */
static bool relay_from_client(struct socks_udp *r, const struct sockaddr_storage *from,
			      socklen_t len)
{
	ip_addr_t ip;
	uint16_t port;

	if (r->client_len)
		return len == r->client_len && !memcmp(from, &r->client, len);
	addr_from_sockaddr(from, &ip, &port);
	if (!ip_addr_cmp(&ip, &r->client_ip) ||
	    (!ip_addr_isany(&r->want_ip) && !ip_addr_cmp(&ip, &r->want_ip)) ||
	    (r->want_port && port != r->want_port))
		return false;
	memcpy(&r->client, from, len);
	r->client_len = len;
	return true;
}

/* A datagram from the host, in px->io. */
static void relay_dgram(void *ctx, const struct sockaddr_storage *from, socklen_t len, size_t n)
{
	struct socks_udp *r = ctx;
	uint8_t *buf = r->px->io;
	struct socks5_addr dst;
	ip_addr_t to;
	int hl;

	if (!relay_from_client(r, from, len))
		return;
	hl = socks5_udp_parse(buf, n, &dst);
	if (hl >= 0 && addr_from_socks(&dst, &to))
		relay_send(r, &to, dst.port, buf + hl, n - (size_t)hl);
	else if (hl >= 0 && dst.atyp == SOCKS5_ATYP_DOMAIN)
		relay_send_named(r, &dst, buf + hl, n - (size_t)hl);
}

static void relay_event(struct loop *l, struct loop_handler *h, uint32_t events)
{
	(void)l;
	(void)events;
	if (((struct socks_udp *)h)->fd >= 0) /* else closed */
		dgram_read(((struct socks_udp *)h)->px, ((struct socks_udp *)h)->fd, relay_dgram,
			   h);
}

static void relay_free(struct loop_handler *h)
{
	free(h);
}

/* The relay's socket, on the address the client reached us on. */
static int relay_bind(struct socks_udp *r, struct conn *c, struct socks5_addr *bound)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	ip_addr_t ip;
	uint16_t port;

	if (getpeername(c->fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	addr_from_sockaddr(&ss, &r->client_ip, &port);
	len = sizeof(ss);
	if (getsockname(c->fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	else
		((struct sockaddr_in *)&ss)->sin_port = 0;
	r->fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&ss, len) < 0 ||
	    getsockname(r->fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	addr_from_sockaddr(&ss, &ip, &port);
	addr_to_socks(&ip, port, bound);
	return loop_add(&c->px->loop, r->fd, &r->h, EPOLLIN);
}

int socks_udp_open(struct conn *c, const struct socks5_addr *from, struct socks_udp **out)
{
	struct socks5_addr bound = {0};
	uint8_t reply[SOCKS5_REPLY_MAX];
	struct socks_udp *r = calloc(1, sizeof(*r));

	if (!r)
		return -1;
	r->h.fn = relay_event;
	r->h.free = relay_free;
	r->px = c->px;
	r->fd = -1;
	if (relay_bind(r, c, &bound)) {
		log_debug("proxy: SOCKS5 UDP relay: %s", strerror(errno));
		if (r->fd >= 0)
			close(r->fd);
		free(r);
		return -1;
	}
	/* a domain DST.ADDR is not looked up: as if not declared */
	if (from->atyp == SOCKS5_ATYP_DOMAIN || !addr_from_socks(from, &r->want_ip))
		ip_addr_set_zero(&r->want_ip);
	r->want_port = from->port;
	conn_send_host(c, reply, socks5_reply(reply, SOCKS5_REP_SUCCESS, &bound));
	*out = r;
	return 0;
}

void socks_udp_close(struct socks_udp *r)
{
	if (r->dns)
		resolve_cancel(r->dns);
	relay_drop_held(r);
	for (int i = 0; i < 2; i++)
		if (r->pcb[i])
			udp_remove(r->pcb[i]);
	close(r->fd);
	r->fd = -1;
	loop_retire(&r->px->loop, &r->h);
}
