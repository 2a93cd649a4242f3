/* Datagrams between a host UDP socket and lwIP: the read loop and the send
 * path [UDPProxyTunnel] and SOCKS5 UDP ASSOCIATE share. */
#ifndef ZTP_DGRAM_H
#define ZTP_DGRAM_H

#include <sys/socket.h>

#include "lwip/udp.h"

struct proxy;

/* Up to PROXY_UDP_READS datagrams from fd, each into px->io and handed to
 * fn (n bytes, from its sender). */
void dgram_read(struct proxy *px, int fd,
		void (*fn)(void *ctx, const struct sockaddr_storage *from, socklen_t len, size_t n),
		void *ctx);

/* A copy of data[0..len) sent from pcb to to:port: udp_sendto's result,
 * ERR_BUF if there was no pbuf. */
err_t dgram_send(struct udp_pcb *pcb, const void *data, size_t len, const ip_addr_t *to,
		 uint16_t port);

#endif
