/* [UDPProxyTunnel] (see udptunnel.h). */
#include "udptunnel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lwip/udp.h"

#include "addr.h"
#include "clock.h"
#include "dgram.h"
#include "proxy.h"
#include "resolve.h"

enum {
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
	f->last_ms = zt_mono_ms();
	sendto(f->t->fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&f->from, f->from_len);
}

/* Forgets the flow *fp points to. */
static void flow_drop(struct udp_tunnel *t, struct udp_flow **fp)
{
	struct udp_flow *f = *fp;

	*fp = f->next;
	udp_remove(f->pcb);
	free(f);
	t->n_flows--;
}

static struct udp_flow *flow_get(struct udp_tunnel *t, const struct sockaddr_storage *from,
				 socklen_t len)
{
	struct udp_flow *f, **oldest = &t->flows;

	for (f = t->flows; f; f = f->next)
		if (f->from_len == len && !memcmp(&f->from, from, len))
			return f;
	if (t->n_flows >= UDP_MAX_FLOWS) {
		for (struct udp_flow **fp = &t->flows; *fp; fp = &(*fp)->next)
			if ((*fp)->last_ms < (*oldest)->last_ms)
				oldest = fp;
		flow_drop(t, oldest);
	}
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

/* A datagram from a host client, in px->io. */
static void udp_tunnel_dgram(void *ctx, const struct sockaddr_storage *from, socklen_t len,
			     size_t n)
{
	struct udp_tunnel *t = ctx;
	struct udp_flow *f;

	if (!t->resolved) {
		if (!t->dns)
			t->dns = resolve_start(&t->px->stack, t->svc->target.host,
					       udp_tunnel_resolved, t);
		return; /* dropped: the name is being looked up */
	}
	f = flow_get(t, from, len);
	if (!f)
		return;
	f->last_ms = zt_mono_ms();
	dgram_send(f->pcb, t->px->io, n, &t->target, t->svc->target.port);
}

static void udp_tunnel_event(struct loop *l, struct loop_handler *h, uint32_t events)
{
	(void)l;
	(void)events;
	dgram_read(((struct udp_tunnel *)h)->px, ((struct udp_tunnel *)h)->fd, udp_tunnel_dgram, h);
}

int udp_tunnel_open(struct proxy *px, const struct proxy_listener *svc)
{
	struct udp_tunnel *t = calloc(1, sizeof(*t));
	int fd = t ? proxy_bind(&svc->bind, SOCK_DGRAM) : -ENOMEM;

	if (fd < 0) {
		free(t);
		return fd;
	}
	t->fd = fd;
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
	uint64_t now = zt_mono_ms(), next = UINT64_MAX;

	for (struct udp_tunnel *t = px->udp; t; t = t->next) {
		uint64_t idle = (uint64_t)t->svc->inactivity_timeout * 1000;

		if (!idle)
			continue;
		for (struct udp_flow **fp = &t->flows; *fp;) {
			if (now - (*fp)->last_ms >= idle) {
				flow_drop(t, fp);
				continue;
			}
			next = PROXY_UDP_SWEEP_MS;
			fp = &(*fp)->next;
		}
	}
	return next;
}
