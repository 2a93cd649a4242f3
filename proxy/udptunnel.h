/* [UDPProxyTunnel]: datagrams from each local client address go out of
 * their own lwIP UDP pcb (their own port in the tunnel) to Target, and the
 * answers come back to that client; a flow idle for InactivityTimeout
 * seconds is forgotten. */
#ifndef ZTP_UDPTUNNEL_H
#define ZTP_UDPTUNNEL_H

#include <stdint.h>

struct proxy;
struct proxy_listener;

int udp_tunnel_open(struct proxy *px, const struct proxy_listener *svc);
/* Forgets the idle flows; milliseconds until it wants to look again. */
uint64_t udp_tunnel_sweep(struct proxy *px);

#endif
