/* Classifying a datagram by its header and size (wg.h). */
#include "messages.h"

int wg_message_type(const uint8_t *pkt, size_t len)
{
	if (!pkt || len < sizeof(struct wg_message_header) || pkt[1] || pkt[2] || pkt[3])
		return WG_MESSAGE_INVALID;
	switch (pkt[0]) {
	case WG_MESSAGE_HANDSHAKE_INITIATION:
		return len == sizeof(struct wg_message_handshake_initiation) ? pkt[0]
									     : WG_MESSAGE_INVALID;
	case WG_MESSAGE_HANDSHAKE_RESPONSE:
		return len == sizeof(struct wg_message_handshake_response) ? pkt[0]
									   : WG_MESSAGE_INVALID;
	case WG_MESSAGE_HANDSHAKE_COOKIE:
		return len == sizeof(struct wg_message_handshake_cookie) ? pkt[0]
									 : WG_MESSAGE_INVALID;
	case WG_MESSAGE_DATA:
		return len >= WG_MESSAGE_MINIMUM_LENGTH ? pkt[0] : WG_MESSAGE_INVALID;
	default:
		return WG_MESSAGE_INVALID;
	}
}
