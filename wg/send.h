/* Outgoing (send.c): routing by destination, staged packets, handshake
 * initiations, keepalives, transport data. Internal. */
#ifndef WG_SEND_H
#define WG_SEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "peer.h"

/* The source or destination address of an IPv4/IPv6 packet; false if the
 * packet is too short or not IP. */
bool wg_ip_addr(const uint8_t *pkt, size_t len, bool src, int *family, const uint8_t **addr);
/* The peer that owns addr in allowed IPs, or NULL. */
struct wg_peer *wg_device_route(struct wg_device *dev, int family, const uint8_t *addr);

/* The peer's staged packets (waiting for a handshake): dropped, counted. */
void wg_staged_purge(struct wg_peer *peer);
size_t wg_staged_count(const struct wg_peer *peer);

void wg_send_handshake_initiation(struct wg_device *dev, struct wg_peer *peer, bool is_retry);
/* At once, with mac2, after a cookie reply to our initiation (once per attempt). */
void wg_send_handshake_initiation_cookie_retry(struct wg_device *dev, struct wg_peer *peer);
void wg_send_keepalive(struct wg_device *dev, struct wg_peer *peer);
/* Sends staged packets with the current keypair, or starts a handshake. */
void wg_send_staged(struct wg_device *dev, struct wg_peer *peer);

#endif
