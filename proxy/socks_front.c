/* [Socks5]: RFC 1928 CONNECT (and RFC 1929 authentication) through
 * proxy/socks5.h; UDP ASSOCIATE relays through udptunnel.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"
#include "proxy.h"
#include "socks5.h"

enum { SOCKS_READ = 1024 };

struct socks_fe {
	struct socks5 s;
	struct udp_relay *relay; /* UDP ASSOCIATE */
};

static enum socks5_rep socks_rep_for(err_t err)
{
	switch (err) {
	case ERR_RST:
		return SOCKS5_REP_CONN_REFUSED;
	case ERR_VAL: /* the name did not resolve */
	case ERR_ABRT:
		return SOCKS5_REP_HOST_UNREACHABLE;
	case ERR_RTE:
		return SOCKS5_REP_NET_UNREACHABLE;
	default:
		return SOCKS5_REP_GENERAL_FAILURE;
	}
}

static void socks_connected(struct conn *c, bool ok, err_t err)
{
	uint8_t reply[SOCKS5_REPLY_MAX];
	struct socks5_addr bound = {0};
	size_t n;

	if (!ok) {
		n = socks5_reply(reply, socks_rep_for(err), NULL);
		conn_send_host(c, reply, n);
		return;
	}
	if (IP_IS_V6(&c->pcb->local_ip)) {
		bound.atyp = SOCKS5_ATYP_IPV6;
		memcpy(bound.ipv6, ip_2_ip6(&c->pcb->local_ip)->addr, 16);
	} else {
		bound.atyp = SOCKS5_ATYP_IPV4;
		memcpy(bound.ipv4, &ip_2_ip4(&c->pcb->local_ip)->addr, 4);
	}
	bound.port = c->pcb->local_port;
	n = socks5_reply(reply, SOCKS5_REP_SUCCESS, &bound);
	if (!conn_send_host(c, reply, n)) {
		conn_close(c, true);
		return;
	}
	conn_relay(c);
}

static void socks_connect(struct conn *c, const struct socks5_addr *dst)
{
	ip_addr_t addr;

	switch (dst->atyp) {
	case SOCKS5_ATYP_IPV4:
		IP_ADDR4(&addr, dst->ipv4[0], dst->ipv4[1], dst->ipv4[2], dst->ipv4[3]);
		conn_connect(c, &addr, dst->port);
		break;
	case SOCKS5_ATYP_IPV6:
		IP_ADDR6(&addr, 0, 0, 0, 0);
		memcpy(ip_2_ip6(&addr)->addr, dst->ipv6, 16);
		ip6_addr_clear_zone(ip_2_ip6(&addr));
		conn_connect(c, &addr, dst->port);
		break;
	default:
		conn_connect_host(c, dst->domain, dst->port);
		break;
	}
}

static void socks_readable(struct conn *c)
{
	struct socks_fe *fe = c->fe;
	struct socks5_step step;
	uint8_t buf[SOCKS_READ];
	ssize_t r = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (r <= 0) {
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			conn_close(c, false);
		return;
	}
	if (fe->relay) { /* UDP ASSOCIATE: the TCP side only says when it ends */
		return;
	}
	socks5_feed(&fe->s, buf, (size_t)r, &step);
	if (step.out_len && !conn_send_host(c, step.out, step.out_len)) {
		conn_close(c, true);
		return;
	}
	switch (step.action) {
	case SOCKS5_MORE:
		break;
	case SOCKS5_CLOSE:
		conn_close(c, false);
		break;
	case SOCKS5_CONNECT:
		socks5_wipe(&fe->s);
		if (conn_set_early(c, buf + step.used, (size_t)r - step.used)) {
			conn_close(c, true);
			return;
		}
		conn_want(c, 0);
		socks_connect(c, &step.dst);
		break;
	case SOCKS5_UDP_ASSOCIATE:
		socks5_wipe(&fe->s);
		if (socks_udp_associate(c, &fe->relay)) {
			uint8_t reply[SOCKS5_REPLY_MAX];
			size_t n = socks5_reply(reply, SOCKS5_REP_GENERAL_FAILURE, NULL);

			conn_send_host(c, reply, n);
			conn_close(c, false);
		}
		break;
	}
}

static void socks_closed(struct conn *c)
{
	struct socks_fe *fe = c->fe;

	if (fe->relay)
		socks_udp_release(fe->relay);
	fe->relay = NULL;
}

static const struct conn_front socks_front = {
    .readable = socks_readable,
    .connected = socks_connected,
    .closed = socks_closed,
};

void socks_accepted(struct proxy *px, int fd, const struct proxy_listener *svc)
{
	struct socks_fe *fe = calloc(1, sizeof(*fe));
	struct conn *c;

	if (!fe) {
		close(fd);
		return;
	}
	c = conn_new(px, fd, &socks_front, svc);
	if (!c) {
		free(fe);
		return;
	}
	c->fe = fe;
	socks5_init(&fe->s, svc->has_auth ? svc->username : NULL,
		    svc->has_auth ? svc->password : NULL);
}
