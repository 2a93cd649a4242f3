/* [TCPClientTunnel]: a local connection to Target inside the tunnel.
 * [TCPServerTunnel]: a tunnel connection to ListenPort, to a local Target. */
#ifndef ZTP_FORWARD_H
#define ZTP_FORWARD_H

#include <stddef.h>

struct conn;
struct proxy;
struct proxy_listener;

/* A conn for the accepted host socket fd (admitted at once: a forward
 * waits for no request), or NULL (fd closed). */
struct conn *forward_accepted(struct proxy *px, int fd, const struct proxy_listener *svc);
/* lwIP's listener on ListenPort; at most cap connections at once. */
int tcp_server_open(struct proxy *px, const struct proxy_listener *svc, size_t cap);

#endif
