/* [STDIOTunnel]: one TCP connection to Target in the tunnel, carried over
 * the process's stdin and stdout (ssh -o ProxyCommand='zinctun-proxy -c
 * FILE'). It is a [TCPClientTunnel]'s connection on one end of a
 * socketpair; two threads copy stdin to the other end and that end to
 * stdout, which may be pipes, a terminal or files. At most one per file. */
#ifndef ZTP_STDIO_TUNNEL_H
#define ZTP_STDIO_TUNNEL_H

struct proxy;
struct proxy_listener;

/* Before the sandbox: the socketpair and the copying threads. */
int stdio_tunnel_open(const struct proxy_listener *svc);
/* Once the stack sends: the connection (nothing without a section). */
void stdio_tunnel_start(struct proxy *px);

#endif
