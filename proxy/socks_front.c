/* [Socks5]: RFC 1928 CONNECT (and RFC 1929 authentication) through
 * proxy/socks_proto.h; UDP ASSOCIATE relays through socks_udp.c. */
#include "socks_front.h"

#include <errno.h>
#include <sys/socket.h>

#include "addr.h"
#include "proxy_conf.h"
#include "socks_proto.h"
#include "socks_udp.h"

enum { SOCKS_READ = 1024 };

struct socks_fe {
	struct socks5 s;
	struct socks_udp *relay; /* UDP ASSOCIATE */
};

static enum socks5_rep socks_rep_for(err_t err)
{
	switch (err) {
	case CONN_ERR_FORBIDDEN:
		return SOCKS5_REP_NOT_ALLOWED;
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

/* The reply to the request; bound NULL for a failure. */
static bool socks_reply(struct conn *c, enum socks5_rep rep, const struct socks5_addr *bound)
{
	uint8_t reply[SOCKS5_REPLY_MAX];

	return conn_send_host(c, reply, socks5_reply(reply, rep, bound));
}

static void socks_connected(struct conn *c, bool ok, err_t err)
{
	struct socks5_addr bound = {0};

	if (!ok) {
		socks_reply(c, socks_rep_for(err), NULL);
		return;
	}
	addr_to_socks(&c->pcb->local_ip, c->pcb->local_port, &bound);
	if (!socks_reply(c, SOCKS5_REP_SUCCESS, &bound)) {
		conn_close(c, true);
		return;
	}
	conn_relay(c);
}

static void socks_connect(struct conn *c, const struct socks5_addr *dst)
{
	ip_addr_t addr;

	if (dst->atyp == SOCKS5_ATYP_DOMAIN)
		conn_connect_host(c, dst->domain, dst->port);
	else if (addr_from_socks(dst, &addr))
		conn_connect(c, &addr, dst->port);
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
	if (fe->relay) /* UDP ASSOCIATE: the TCP side only says when it ends */
		return;
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
		if (conn_admit(c, buf + step.used, (size_t)r - step.used))
			socks_connect(c, &step.dst);
		break;
	case SOCKS5_UDP_ASSOCIATE:
		c->admitted = true;
		socks5_wipe(&fe->s);
		if (socks_udp_open(c, &step.dst, &fe->relay)) {
			socks_reply(c, SOCKS5_REP_GENERAL_FAILURE, NULL);
			conn_close(c, false);
		}
		break;
	}
}

static void socks_closed(struct conn *c)
{
	struct socks_fe *fe = c->fe;

	if (fe->relay)
		socks_udp_close(fe->relay);
	fe->relay = NULL;
}

static void socks_opened(struct conn *c)
{
	const struct proxy_listener *svc = c->svc;

	socks5_init(&((struct socks_fe *)c->fe)->s, svc->has_auth ? svc->username : NULL,
		    svc->has_auth ? svc->password : NULL);
}

const struct conn_front socks_front = {
    .fe_size = sizeof(struct socks_fe),
    .opened = socks_opened,
    .readable = socks_readable,
    .connected = socks_connected,
    .closed = socks_closed,
};
