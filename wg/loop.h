/* Routing loops: our own outer datagrams routed back into the tunnel.
 * Internal. */
#ifndef WG_LOOP_H
#define WG_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wg_device;
struct wg_peer;

/* True (counted, reported) when pkt, routed to peer, is a UDP datagram to
 * the peer's own endpoint: sealing it would send it there again; or
 * WireGuard inside WireGuard with no TTL left. Else *ttl: the outer TTL /
 * hop limit (0: the system's default). */
bool wg_loop_refuse(struct wg_device *dev, struct wg_peer *peer, const uint8_t *pkt, size_t len,
		    uint8_t *ttl);

#endif
