/* A host socket spliced to an lwIP TCP pcb (see conn.h). Runs with the core
 * lock held: the loop's handlers and lwIP's callbacks alike. A callback
 * that aborts its own pcb returns ERR_ABRT, as lwIP requires. */
#include "conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "log.h"
#include "proxy.h"

enum {
	CONN_IOV = 16,
	CONN_U16_MAX = 0xffff,
	/* segments left free in lwIP's send queue before we stop reading */
	CONN_QUEUE_SLACK = 8,
	/* a stash that lwIP refused for want of memory, with nothing in flight
	 * whose acknowledgement would retry it, is retried this often (lwIP's
	 * poll timer, in 500 ms ticks) */
	CONN_POLL_TICKS = 1,
};

static void conn_event(struct loop *l, struct loop_handler *h, uint32_t events);

static void conn_free(struct loop_handler *h)
{
	struct conn *c = (struct conn *)h;

	free(c->fe);
	free(c);
}

/* A conn on fd with its front end's state (zeroed), in the loop; NULL if
 * not (fd left open). */
static struct conn *conn_add(struct proxy *px, int fd, size_t fe_size, enum conn_state state,
			     uint32_t ep)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c || (fe_size && !(c->fe = calloc(1, fe_size)))) {
		free(c);
		return NULL;
	}
	c->h.fn = conn_event;
	c->h.free = conn_free;
	c->px = px;
	c->fd = fd;
	c->since_ms = zt_mono_ms();
	c->state = state;
	c->ep = ep;
	if (!loop_add(&px->loop, fd, &c->h, ep))
		return c;
	conn_free(&c->h);
	return NULL;
}

/* Which host events the conn wants. */
static void conn_want(struct conn *c, uint32_t ep)
{
	if (c->dead || ep == c->ep)
		return;
	c->ep = ep;
	if (loop_mod(&c->px->loop, c->fd, &c->h, ep))
		log_debug("proxy: epoll_ctl: %s", strerror(errno));
}

bool conn_close(struct conn *c, bool abort)
{
	bool aborted = false;

	if (c->dead)
		return false;
	c->dead = true;
	if (c->front && c->front->closed)
		c->front->closed(c);
	if (c->dns)
		resolve_cancel(c->dns);
	c->dns = NULL;
	if (c->pcb) {
		tcp_arg(c->pcb, NULL);
		tcp_recv(c->pcb, NULL);
		tcp_sent(c->pcb, NULL);
		tcp_err(c->pcb, NULL);
		tcp_poll(c->pcb, NULL, 0);
		if (abort || tcp_close(c->pcb) != ERR_OK) {
			tcp_abort(c->pcb);
			aborted = c->aborted = true;
		}
		c->pcb = NULL;
	}
	if (c->fd >= 0) {
		if (abort) {
			/* an RST to the host too, as the tunnel side got or sent one */
			struct linger lg = {.l_onoff = 1, .l_linger = 0};

			setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		}
		close(c->fd);
		c->fd = -1;
	}
	if (c->owner) {
		c->owner->n--;
		if (c->owner->ended)
			c->owner->ended(c->owner, c);
		c->owner = NULL;
	}
	if (c->pending)
		pbuf_free(c->pending);
	c->pending = NULL;
	free(c->stash);
	c->stash = NULL;
	loop_retire(&c->px->loop, &c->h);
	return aborted;
}

static bool conn_maybe_finish(struct conn *c)
{
	if (c->host_eof && c->tun_eof && !c->pending && c->host_shut)
		return conn_close(c, false);
	return false;
}

/* Tunnel bytes to the host; what is written is acknowledged to lwIP.
 * Returns true if the pcb was aborted. */
static bool conn_flush(struct conn *c)
{
	while (c->pending) {
		struct iovec iov[CONN_IOV];
		struct msghdr msg = {.msg_iov = iov};
		size_t total = 0;
		ssize_t w;

		for (struct pbuf *q = c->pending; q && msg.msg_iovlen < CONN_IOV; q = q->next) {
			if (!q->len)
				continue;
			iov[msg.msg_iovlen++] =
			    (struct iovec){.iov_base = q->payload, .iov_len = q->len};
			total += q->len;
		}
		w = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				conn_want(c, c->ep | EPOLLOUT);
				return false;
			}
			log_debug("proxy: host connection: %s", strerror(errno));
			return conn_close(c, true);
		}
		/* one write may take more than 64 KiB (coalesced segments
		 * are pbufs of up to 64 KiB each) */
		for (size_t left = (size_t)w; left;) {
			u16_t n = left > CONN_U16_MAX ? CONN_U16_MAX : (u16_t)left;

			c->pending = pbuf_free_header(c->pending, n);
			tcp_recved(c->pcb, n);
			left -= n;
		}
		if ((size_t)w < total) {
			conn_want(c, c->ep | EPOLLOUT);
			return false;
		}
	}
	conn_want(c, c->ep & ~EPOLLOUT);
	if (c->tun_eof && !c->host_shut) {
		shutdown(c->fd, SHUT_WR);
		c->host_shut = true;
	}
	return conn_maybe_finish(c);
}

/* Keeps a copy of bytes for the tunnel (c->stash is NULL). */
static bool conn_stash(struct conn *c, const void *data, size_t len)
{
	if (len && !(c->stash = malloc(len)))
		return false;
	if (len)
		memcpy(c->stash, data, len);
	c->stash_len = len;
	return true;
}

/* Hands bytes to lwIP; what it cannot take now waits in the stash and the
 * host is not read until the pcb's sent callback. */
static bool conn_to_tunnel(struct conn *c, const uint8_t *data, size_t len)
{
	while (len) {
		u16_t n = len > CONN_U16_MAX ? CONN_U16_MAX : (u16_t)len;
		err_t err;

		if (n > tcp_sndbuf(c->pcb))
			n = (u16_t)tcp_sndbuf(c->pcb);
		err = n ? tcp_write(c->pcb, data, n, TCP_WRITE_FLAG_COPY) : ERR_MEM;
		if (err == ERR_MEM)
			return conn_stash(c, data, len);
		if (err != ERR_OK)
			return false;
		data += n;
		len -= n;
	}
	return true;
}

static bool conn_stash_retry(struct conn *c)
{
	uint8_t *s = c->stash;
	size_t len = c->stash_len;
	bool ok;

	c->stash = NULL;
	c->stash_len = 0;
	ok = conn_to_tunnel(c, s, len);
	free(s);
	return ok;
}

static bool conn_room(struct conn *c)
{
	return !c->stash && tcp_sndbuf(c->pcb) > 0 &&
	       tcp_sndqueuelen(c->pcb) + CONN_QUEUE_SLACK < TCP_SND_QUEUELEN;
}

/* One read of host bytes into the tunnel, if lwIP has room. */
static void conn_pump_host(struct conn *c)
{
	size_t room;
	ssize_t r;

	if (!conn_room(c)) {
		conn_want(c, c->ep & ~EPOLLIN);
		return;
	}
	room = tcp_sndbuf(c->pcb);
	if (room > sizeof(c->px->io))
		room = sizeof(c->px->io);
	r = recv(c->fd, c->px->io, room, MSG_DONTWAIT);
	if (r < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			log_debug("proxy: host connection: %s", strerror(errno));
			conn_close(c, true);
		}
		return;
	}
	if (r == 0) {
		c->host_eof = true;
		conn_want(c, c->ep & ~EPOLLIN);
		tcp_shutdown(c->pcb, 0, 1);
		tcp_output(c->pcb);
		conn_maybe_finish(c);
		return;
	}
	if (!conn_to_tunnel(c, c->px->io, (size_t)r)) {
		log_debug("proxy: tcp_write refused %zd bytes", r);
		conn_close(c, true);
		return;
	}
	if (c->stash)
		conn_want(c, c->ep & ~EPOLLIN);
	tcp_output(c->pcb);
}

/* Inside a batch of packets the write to the host waits for the batch's
 * end (conn_flush_queued): one system call for all its segments. */
static err_t conn_tunnel_data(struct conn *c)
{
	if (c->state != CONN_RELAY)
		return ERR_OK;
	if (!c->px->stack.in_batch)
		return conn_flush(c) ? ERR_ABRT : ERR_OK;
	if (!c->flush_queued) {
		c->flush_queued = true;
		c->next_flush = c->px->flushq;
		c->px->flushq = c;
	}
	return ERR_OK;
}

void conn_flush_queued(void *arg)
{
	struct proxy *px = arg;

	while (px->flushq) {
		struct conn *c = px->flushq;

		px->flushq = c->next_flush;
		c->flush_queued = false;
		/* dead ones are freed only by the loop, which needs the lock */
		if (!c->dead && c->state == CONN_RELAY)
			conn_flush(c);
	}
}

static err_t conn_on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	struct conn *c = arg;

	(void)pcb;
	(void)err;
	if (!p)
		c->tun_eof = true;
	else if (c->pending)
		pbuf_cat(c->pending, p);
	else
		c->pending = p;
	return conn_tunnel_data(c);
}

static err_t conn_on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	struct conn *c = arg;

	(void)pcb;
	(void)len;
	if (c->state != CONN_RELAY || c->host_eof)
		return ERR_OK;
	if (c->stash && !conn_stash_retry(c))
		return conn_close(c, true) ? ERR_ABRT : ERR_OK;
	if (c->stash)
		tcp_output(c->pcb);
	if (conn_room(c))
		conn_want(c, c->ep | EPOLLIN);
	return ERR_OK;
}

/* Also ends a connection attempt at its deadline (lwIP's own takes
 * minutes). */
static err_t conn_on_poll(void *arg, struct tcp_pcb *pcb)
{
	struct conn *c = arg;

	if (c->state == CONN_CONNECTING && zt_mono_ms() - c->since_ms >= PROXY_CONNECT_TIMEOUT_MS) {
		c->front->connected(c, false, ERR_TIMEOUT);
		return conn_close(c, true) ? ERR_ABRT : ERR_OK;
	}
	return conn_on_sent(arg, pcb, 0);
}

static void conn_on_err(void *arg, err_t err)
{
	struct conn *c = arg;

	c->pcb = NULL; /* lwIP freed it */
	log_debug("proxy: tunnel connection ended (lwIP error %d)", err);
	if (c->state == CONN_CONNECTING && c->front && c->front->connected)
		c->front->connected(c, false, err);
	conn_close(c, true);
}

static err_t conn_on_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct conn *c = arg;

	(void)err;
	(void)pcb;
	c->front->connected(c, true, ERR_OK);
	return c->aborted ? ERR_ABRT : ERR_OK;
}

static void conn_hook(struct conn *c)
{
	tcp_arg(c->pcb, c);
	tcp_recv(c->pcb, conn_on_recv);
	tcp_sent(c->pcb, conn_on_sent);
	tcp_err(c->pcb, conn_on_err);
	tcp_poll(c->pcb, conn_on_poll, CONN_POLL_TICKS);
	tcp_nagle_disable(c->pcb);
}

void conn_relay(struct conn *c)
{
	if (c->dead)
		return;
	c->state = CONN_RELAY;
	if (c->stash) { /* the early bytes */
		if (!conn_stash_retry(c)) {
			conn_close(c, true);
			return;
		}
		tcp_output(c->pcb);
	}
	conn_want(c, EPOLLIN);
	conn_flush(c);
}

/* The front end is told the connection failed, then the conn closes. */
static void conn_fail(struct conn *c, err_t err)
{
	c->front->connected(c, false, err);
	conn_close(c, false);
}

void conn_connect(struct conn *c, const ip_addr_t *addr, uint16_t port)
{
	err_t err = ERR_MEM;

	if (!c->front->configured && addr_forbidden(&c->px->conf.iface, addr)) {
		log_debug("proxy: a client asked for %s, refused", ipaddr_ntoa(addr));
		conn_fail(c, CONN_ERR_FORBIDDEN);
		return;
	}
	c->pcb = tcp_new_ip_type(IP_GET_TYPE(addr));
	if (c->pcb) {
		conn_hook(c);
		c->state = CONN_CONNECTING;
		err = tcp_connect(c->pcb, addr, port, conn_on_connected);
	}
	if (err != ERR_OK)
		conn_fail(c, err); /* a pcb tcp_connect refused is CLOSED: tcp_close frees it */
}

static void conn_resolved(void *arg, const ip_addr_t *addr)
{
	struct conn *c = arg;

	c->dns = NULL;
	if (addr)
		conn_connect(c, addr, c->port);
	else
		conn_fail(c, ERR_VAL);
}

void conn_connect_host(struct conn *c, const char *host, uint16_t port)
{
	c->state = CONN_RESOLVING;
	c->port = port;
	c->dns = resolve_start(&c->px->stack, host, conn_resolved, c);
}

bool conn_admit(struct conn *c, const void *data, size_t len)
{
	c->admitted = true;
	if (!conn_stash(c, data, len)) {
		conn_close(c, true);
		return false;
	}
	conn_want(c, 0);
	return true;
}

bool conn_send_host(struct conn *c, const void *data, size_t len)
{
	/* a handshake answer fits a fresh socket's buffer */
	return send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len;
}

static void conn_host_connected(struct conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
		log_debug("proxy: local target: %s", strerror(err ? err : errno));
		conn_close(c, true);
		return;
	}
	conn_relay(c);
}

static void conn_event(struct loop *l, struct loop_handler *h, uint32_t events)
{
	struct conn *c = (struct conn *)h;

	(void)l;
	if (c->dead)
		return;
	switch (c->state) {
	case CONN_FRONT:
		c->front->readable(c);
		break;
	case CONN_RESOLVING:
	case CONN_CONNECTING:
		if (events & (EPOLLERR | EPOLLHUP)) {
			log_debug("proxy: client left before the connection was made");
			conn_close(c, true);
		}
		break;
	case CONN_HOST_CONNECTING:
		conn_host_connected(c);
		break;
	case CONN_RELAY:
		if (events & EPOLLOUT)
			conn_flush(c);
		if (!c->dead && !c->host_eof && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
			conn_pump_host(c);
		else if (!c->dead && (events & EPOLLERR)) {
			log_debug("proxy: host connection error");
			conn_close(c, true);
		} else if (!c->dead && (events & EPOLLHUP) && !(c->ep & EPOLLOUT))
			conn_close(c, false);
		break;
	}
}

struct conn *conn_new(struct proxy *px, int fd, const struct conn_front *front, const void *svc)
{
	struct conn *c = conn_add(px, fd, front->fe_size, CONN_FRONT, EPOLLIN);

	if (!c) {
		close(fd);
		return NULL;
	}
	c->front = front;
	c->svc = svc;
	if (front->opened)
		front->opened(c);
	return c;
}

struct conn *conn_new_accepted(struct proxy *px, struct tcp_pcb *pcb, int fd)
{
	struct conn *c = conn_add(px, fd, 0, CONN_HOST_CONNECTING, EPOLLOUT);

	if (c) {
		c->pcb = pcb;
		conn_hook(c);
	}
	return c;
}
