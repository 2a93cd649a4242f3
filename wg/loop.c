/* A datagram to a peer's endpoint that the allowed IPs route to that same
 * peer is our own encrypted datagram come back (the endpoint's route leads
 * into the tunnel: no fwmark rule, no route to the endpoint outside it).
 * Sealing it again sends it to the same place, where it comes back once
 * more, 32 bytes larger, and once past the MTU as two fragments, each
 * looping: hundreds of MB a second. It is refused before any nonce or
 * staging. Datagrams to one peer's endpoint routed through another peer
 * (onion routing) still go, as in the Linux module. A later fragment has
 * no ports and is not refused: sealed once more, it comes back as a whole
 * datagram to the endpoint and stops there. */
#include "loop.h"

#include <string.h>

#include "device.h"
#include "event.h"
#include "peer.h"

enum {
	IP_PROTO_UDP = 17,
	IP6_FRAGMENT = 44,
	IP6_HDR_LEN = 40,
	IP6_FRAG_HDR_LEN = 8,
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The UDP header of pkt (a first or only fragment), or NULL. */
static const uint8_t *udp_header(const uint8_t *p, size_t len, int *family)
{
	size_t l4;

	if (len >= 20 && p[0] >> 4 == 4) {
		*family = AF_INET;
		l4 = (size_t)(p[0] & 0x0f) * 4;
		if (p[9] != IP_PROTO_UDP || (be16(p + 6) & 0x1fff))
			return NULL;
	} else if (len >= IP6_HDR_LEN && p[0] >> 4 == 6) {
		*family = AF_INET6;
		l4 = IP6_HDR_LEN;
		if (p[6] == IP6_FRAGMENT && len >= l4 + IP6_FRAG_HDR_LEN && p[l4] == IP_PROTO_UDP &&
		    !(be16(p + l4 + 2) & 0xfff8))
			l4 += IP6_FRAG_HDR_LEN;
		else if (p[6] != IP_PROTO_UDP)
			return NULL;
	} else {
		return NULL;
	}
	return l4 >= 20 && len >= l4 + 8 ? p + l4 : NULL;
}

static bool to_endpoint(const uint8_t *p, size_t len, const struct wg_endpoint *ep)
{
	int family = 0;
	const uint8_t *udp = udp_header(p, len, &family);

	if (!udp || family != ep->addr.sa.sa_family)
		return false;
	if (family == AF_INET)
		return !memcmp(p + 16, &ep->addr.in4.sin_addr, 4) &&
		       !memcmp(udp + 2, &ep->addr.in4.sin_port, 2);
	return !memcmp(p + 24, &ep->addr.in6.sin6_addr, 16) &&
	       !memcmp(udp + 2, &ep->addr.in6.sin6_port, 2);
}

bool wg_loop_refuse(struct wg_device *dev, struct wg_peer *peer, const uint8_t *pkt, size_t len)
{
	if (!peer->has_endpoint || !to_endpoint(pkt, len, &peer->endpoint))
		return false;
	dev->stats.dropped_routing_loop++;
	peer->loop_drops++;
	/* once a minute per peer, with the count since the last report */
	if (!peer->loop_reported || dev->now - peer->loop_reported_at >= WG_LOOP_REPORT_INTERVAL) {
		wg_event_peer_attempt(dev, WG_EVENT_ROUTING_LOOP, peer, peer->loop_drops);
		peer->loop_reported = true;
		peer->loop_reported_at = dev->now;
		peer->loop_drops = 0;
	}
	return true;
}
