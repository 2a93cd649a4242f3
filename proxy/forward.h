/* [TCPClientTunnel]: a local connection to Target inside the tunnel.
 * [TCPServerTunnel]: a tunnel connection to ListenPort, to a local Target. */
#ifndef ZTP_FORWARD_H
#define ZTP_FORWARD_H

#include <stddef.h>

#include "conn.h"

struct proxy_listener;

extern const struct conn_front forward_front; /* [TCPClientTunnel] */
/* lwIP's listener on ListenPort; at most cap connections at once. */
int tcp_server_open(struct proxy *px, const struct proxy_listener *svc, size_t cap);

#endif
