/* lwIP glue: tcpip_init, the netif, and its two ways to the daemon's data
 * path (stack.h). */
#include "stack.h"

#include <errno.h>
#include <string.h>

#include "lwip/init.h"
#include "lwip/ip.h"
#include "lwip/pbuf.h"
#include "lwip/tcpip.h"

#include "addr.h"
#include "datapath.h"
#include "log.h"
#include "proxy_limits.h"

/* Seals and sends what lwIP queued; a packet the data path writes back
 * meanwhile (an ICMP error for a packet with no peer) is dropped rather
 * than fed to lwIP from inside its own output. */
static void stack_send(struct stack *s)
{
	s->sending = true;
	zt_tx_send(s->tx);
	s->sending = false;
}

/* netif->output(_ip6), under the core lock: the packet to the data path,
 * which routes and seals it. Held (a batch, the event loop), it waits for
 * the end of it; else it goes at once. */
static err_t stack_emit(struct netif *netif, struct pbuf *p)
{
	struct stack *s = netif->state;
	uint8_t *pkt = p->payload;

	if (!s->open)
		return ERR_OK;
	if (p->tot_len != p->len) {
		pbuf_copy_partial(p, s->out, p->tot_len, 0);
		pkt = s->out;
	}
	s->sending = true; /* a full batch is sent first */
	zt_tx_add(s->tx, pkt, p->tot_len);
	s->sending = false;
	if (!s->held)
		stack_send(s);
	return ERR_OK;
}

static err_t stack_out4(struct netif *netif, struct pbuf *p, const ip4_addr_t *dst)
{
	(void)dst;
	return stack_emit(netif, p);
}

static err_t stack_out6(struct netif *netif, struct pbuf *p, const ip6_addr_t *dst)
{
	(void)dst;
	return stack_emit(netif, p);
}

static err_t stack_netif_init(struct netif *netif)
{
	struct stack *s = netif->state;

	netif->name[0] = 'w';
	netif->name[1] = 'g';
	netif->mtu = (u16_t)s->mtu;
	netif->output = stack_out4;
	netif->output_ip6 = stack_out6;
	netif->flags = 0; /* point-to-point: no ARP, no neighbour discovery */
	return ERR_OK;
}

void stack_lock(struct stack *s)
{
	LOCK_TCPIP_CORE();
	s->held = true;
}

void stack_unlock(struct stack *s)
{
	stack_send(s);
	s->held = false;
	UNLOCK_TCPIP_CORE();
}

/* The sink: a receive batch of decrypted packets into lwIP, on the data
 * path's receive thread, under one hold of the core lock. */
static void sink_begin(void *ctx)
{
	struct stack *s = ctx;

	stack_lock(s);
	s->in_batch = true;
}

/* One IP packet: a run of one flow's TCP segments arrives coalesced, its
 * checksum complete (GRO_STACK), and goes in as one segment: lwIP checks
 * it once and acknowledges it once. It is copied into a pbuf of its size:
 * lwIP's heap cannot shrink a pbuf (mem_trim is a no-op over malloc), and
 * a queued pbuf of 64 KiB per small segment would blow the memory a
 * connection may hold. A refusal is counted as drops.stack_refused. */
static int sink_write(void *ctx, const struct iovec *iov, int n)
{
	struct stack *s = ctx;
	struct pbuf *p;
	size_t len = 0, off = 0;

	if (!s->in_batch || s->sending)
		return -EAGAIN;
	for (int i = 0; i < n; i++)
		len += iov[i].iov_len;
	if (!len || len > PROXY_STACK_PACKET_MAX)
		return -EMSGSIZE;
	p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_RAM);
	if (!p)
		return -ENOMEM; /* dropped: TCP retransmits */
	for (int i = 0; i < n; i++) {
		memcpy((uint8_t *)p->payload + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	if (s->netif.input(p, &s->netif) != ERR_OK)
		pbuf_free(p);
	return 0;
}

static void sink_end(void *ctx)
{
	struct stack *s = ctx;

	s->in_batch = false;
	if (s->end_batch)
		s->end_batch(s->end_ctx);
	stack_unlock(s);
}

int stack_init(struct stack *s, struct zt_runtime *zt, const struct proxy_interface *ifc)
{
	ip_addr_t a4 = IPADDR4_INIT(0), a6, mask = IPADDR4_INIT(0xffffffffUL);

	s->tx = zt_tx_open(zt);
	if (!s->tx)
		return -ENOMEM;
	s->sink =
	    (struct tun_sink){.begin = sink_begin, .write = sink_write, .end = sink_end, .ctx = s};
	s->mtu = ifc->mtu;
	for (size_t i = ifc->n_addrs; i--;) { /* the first of each family */
		bool v4 = ifc->addrs[i].ip.family == AF_INET;

		proxy_ip_to_lwip(&ifc->addrs[i].ip, v4 ? &a4 : &a6);
		*(v4 ? &s->has4 : &s->has6) = true;
	}
	if (ifc->n_dns) {
		proxy_ip_to_lwip(&ifc->dns[0], &s->dns);
		s->has_dns = true;
	}
	tcpip_init(NULL, NULL);
	LOCK_TCPIP_CORE();
	if (!netif_add(&s->netif, ip_2_ip4(&a4), ip_2_ip4(&mask), IP4_ADDR_ANY4, s,
		       stack_netif_init, ip_input)) {
		UNLOCK_TCPIP_CORE();
		return -ENOMEM;
	}
	if (s->has6) {
		netif_ip6_addr_set(&s->netif, 0, ip_2_ip6(&a6));
		netif_ip6_addr_set_state(&s->netif, 0, IP6_ADDR_PREFERRED);
	}
	netif_set_default(&s->netif);
	netif_set_link_up(&s->netif);
	netif_set_up(&s->netif);
	UNLOCK_TCPIP_CORE();
	return 0;
}

void stack_set_open(struct stack *s, bool open)
{
	LOCK_TCPIP_CORE();
	s->open = open;
	UNLOCK_TCPIP_CORE();
}
