/* lwIP glue: tcpip_init, the netif, and the packet pump between the netif
 * and the daemon's data path. */
#include "stack.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "lwip/init.h"
#include "lwip/ip.h"
#include "lwip/pbuf.h"
#include "lwip/tcpip.h"

#include "log.h"
#include "proxy_limits.h"
#include "vnet_packet.h"

enum { STACK_READ_MAX = VNET_HDR_LEN + PROXY_STACK_PACKET_MAX, STACK_BATCH = 32 };

/* netif->output(_ip6), under the core lock: the packet to the data path,
 * which routes and seals it, behind an empty virtio-net header (the pair
 * carries one, as a TUN with IFF_VNET_HDR does). A full pair drops it, as
 * a full TUN queue would: TCP retransmits. */
static err_t stack_emit(struct netif *netif, struct pbuf *p)
{
	static const struct vnet_hdr none;
	struct stack *s = netif->state;
	struct iovec iov[2] = {{.iov_base = (void *)&none, .iov_len = VNET_HDR_LEN},
			       {.iov_base = p->payload, .iov_len = p->tot_len}};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};

	if (p->tot_len != p->len) {
		pbuf_copy_partial(p, s->out, p->tot_len, 0);
		iov[1].iov_base = s->out;
	}
	if (sendmsg(s->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("proxy: packet to the tunnel dropped (%s)", strerror(errno));
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

/* Decrypted packets from the data path into lwIP, handed to ip_input under
 * the core lock, a batch at a time (one lock and one system call for up to
 * STACK_BATCH packets). Each comes behind a virtio-net header: a run of one
 * flow's TCP segments arrives coalesced (vnet_packet.h) and goes in as one
 * segment. Each is read into a buffer and copied into a pbuf of its size:
 * lwIP's heap cannot shrink a pbuf (mem_trim is a no-op over malloc), and a
 * queued pbuf of 64 KiB per small segment would blow the memory a
 * connection may hold. */
static void *stack_reader(void *arg)
{
	struct stack *s = arg;
	static uint8_t in[STACK_BATCH][STACK_READ_MAX];
	struct mmsghdr msgs[STACK_BATCH];
	struct iovec iov[STACK_BATCH];

	for (int i = 0; i < STACK_BATCH; i++) {
		iov[i] = (struct iovec){.iov_base = in[i], .iov_len = STACK_READ_MAX};
		msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
	}
	for (;;) {
		int n = recvmmsg(s->fd, msgs, STACK_BATCH, MSG_WAITFORONE, NULL);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		LOCK_TCPIP_CORE();
		s->in_batch = true;
		for (int i = 0; i < n; i++) {
			size_t len = msgs[i].msg_len;
			struct vnet_hdr h;
			struct pbuf *p;

			if (len <= VNET_HDR_LEN)
				continue;
			memcpy(&h, in[i], VNET_HDR_LEN);
			len -= VNET_HDR_LEN;
			if (vnet_packet_finish(&h, in[i] + VNET_HDR_LEN, len)) {
				log_debug("proxy: malformed packet from the tunnel dropped");
				continue;
			}
			p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_RAM);
			if (!p)
				continue; /* dropped: TCP retransmits */
			memcpy(p->payload, in[i] + VNET_HDR_LEN, len);
			if (s->netif.input(p, &s->netif) != ERR_OK)
				pbuf_free(p);
		}
		s->in_batch = false;
		if (s->end_batch)
			s->end_batch(s->end_ctx);
		UNLOCK_TCPIP_CORE();
	}
	return NULL;
}

int stack_init(struct stack *s, int fd, uint32_t mtu, const ip4_addr_t *a4, const ip6_addr_t *a6)
{
	ip4_addr_t mask, gw;

	s->fd = fd;
	s->mtu = mtu;
	tcpip_init(NULL, NULL);
	LOCK_TCPIP_CORE();
	ip4_addr_set_any(&gw);
	IP4_ADDR(&mask, 255, 255, 255, 255);
	if (a4) {
		s->has4 = true;
		s->addr4 = *a4;
	}
	if (!netif_add(&s->netif, a4 ? &s->addr4 : IP4_ADDR_ANY4, &mask, &gw, s, stack_netif_init,
		       ip_input)) {
		UNLOCK_TCPIP_CORE();
		return -ENOMEM;
	}
	if (a6) {
		s->has6 = true;
		s->addr6 = *a6;
		netif_ip6_addr_set(&s->netif, 0, &s->addr6);
		netif_ip6_addr_set_state(&s->netif, 0, IP6_ADDR_PREFERRED);
	}
	netif_set_default(&s->netif);
	netif_set_link_up(&s->netif);
	netif_set_up(&s->netif);
	UNLOCK_TCPIP_CORE();
	return 0;
}

int stack_start(struct stack *s)
{
	int ret = pthread_create(&s->reader, NULL, stack_reader, s);

	if (ret)
		return -ret;
	s->reader_started = true;
	return 0;
}
