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
 * the peer's own endpoint: sealing it would send it there again. */
bool wg_loop_refuse(struct wg_device *dev, struct wg_peer *peer, const uint8_t *pkt, size_t len);

#endif
