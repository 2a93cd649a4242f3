/* The services of the configuration file: a listening host socket for each
 * [Socks5], [http] and [TCPClientTunnel], an lwIP listener for each
 * [TCPServerTunnel], a UDP socket for each [UDPProxyTunnel].
 *
 * Each service that makes connections has its share of the descriptors
 * (the limit less PROXY_FD_RESERVE, divided among them; half of it in
 * connections for [Socks5], whose UDP ASSOCIATE holds a second one). A
 * client has PROXY_REQUEST_DEADLINE_MS to authenticate and send its
 * request; a connection accepted at the cap closes the oldest one still
 * waiting for that, or is closed itself when none is. */
#ifndef ZTP_SERVICES_H
#define ZTP_SERVICES_H

#include <stdint.h>

struct proxy;

/* Opens every service's listener; errors say FILE:LINE. */
int services_open(struct proxy *px, const char *file);
/* Milliseconds until the services want a tick: request deadlines, idle
 * UDP flows, a listener out of descriptors. */
uint64_t services_tick(void *px);

#endif
