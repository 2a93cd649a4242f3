/* Address conversions between the configuration's, lwIP's, the sockets'
 * and SOCKS5's forms, and the destinations the proxy refuses. */
#ifndef ZTP_ADDR_H
#define ZTP_ADDR_H

#include <stdbool.h>
#include <sys/socket.h>

#include "lwip/ip_addr.h"

#include "proxy_conf.h"
#include "socks_proto.h"

void proxy_ip_to_lwip(const struct proxy_ip *in, ip_addr_t *out);
/* A socket of type (non-blocking) bound to a numeric host:port, a stream
 * one listening: its descriptor, or -errno. */
int proxy_bind(const struct proxy_hostport *hp, int type);
/* An IPv4 or IPv6 socket address as lwIP's address and port. */
void addr_from_sockaddr(const struct sockaddr_storage *ss, ip_addr_t *ip, uint16_t *port);
/* A SOCKS5 address as lwIP's; a domain only if it is an address literal
 * (false otherwise: names are looked up elsewhere or not at all). */
bool addr_from_socks(const struct socks5_addr *in, ip_addr_t *out);
void addr_to_socks(const ip_addr_t *ip, uint16_t port, struct socks5_addr *out);

/* Loopback, 0/8, ::, the tunnel's own addresses and their IPv4-mapped
 * forms: lwIP would answer them itself, [TCPServerTunnel]s behind them. */
bool addr_forbidden(const struct proxy_interface *ifc, const ip_addr_t *ip);

#endif
