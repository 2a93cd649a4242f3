/* Host datagrams to and from lwIP (see dgram.h). */
#include "dgram.h"

#include <string.h>

#include "proxy.h"

void dgram_read(struct proxy *px, int fd,
		void (*fn)(void *ctx, const struct sockaddr_storage *from, socklen_t len, size_t n),
		void *ctx)
{
	for (int i = 0; i < PROXY_UDP_READS; i++) {
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		ssize_t n = recvfrom(fd, px->io, PROXY_UDP_DGRAM_MAX, MSG_DONTWAIT,
				     (struct sockaddr *)&from, &len);

		if (n < 0)
			return;
		fn(ctx, &from, len, (size_t)n);
	}
}

err_t dgram_send(struct udp_pcb *pcb, const void *data, size_t len, const ip_addr_t *to,
		 uint16_t port)
{
	struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_RAM);
	err_t err;

	if (!p)
		return ERR_BUF;
	memcpy(p->payload, data, len);
	err = udp_sendto(pcb, p, to, port);
	pbuf_free(p);
	return err;
}
