/* Incoming handshake messages (handshake.c). Internal. */
#ifndef WG_HANDSHAKE_H
#define WG_HANDSHAKE_H

#include "device.h"

/* A handshake message through the split path, in one call; answers go out
 * through io.send. */
int wg_receive_handshake(struct wg_device *dev, const struct wg_endpoint *from, const uint8_t *pkt,
			 size_t len);

#endif
