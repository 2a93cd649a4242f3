/* A datagram to a peer's endpoint that the allowed IPs route to that same
 * peer is our own encrypted datagram come back (the endpoint's route leads
 * into the tunnel: no fwmark rule, no route to the endpoint outside it).
 * Sealing it again sends it to the same place, where it comes back once
 * more, 32 bytes larger, and once past the MTU as two fragments, each
 * looping: hundreds of MB a second. It is refused before any nonce or
 * staging. Datagrams to one peer's endpoint routed through another peer
 * (onion routing) still go, as in the Linux module. A later fragment has
 * no ports and is not refused: sealed once more, it comes back as a whole
 * datagram to the endpoint and stops there.
 * A loop through two interfaces (each one's endpoint routed into the other)
 * is not ours to see: each pass is WireGuard inside WireGuard, which must
 * keep working. Such a datagram (or any UDP fragment, which may be one)
 * goes out with the inner TTL or hop limit less WG_NEST_TTL_STEP, and is
 * refused once that leaves none: a loop ends after a few passes, even as
 * fragments that each loop, and real nesting keeps a TTL for the path. */
#include "loop.h"

#include <string.h>

#include "device.h"
#include "event.h"
#include "messages.h"
#include "peer.h"

enum {
	IP_PROTO_UDP = 17,
	IP6_FRAGMENT = 44,
	IP6_HDR_LEN = 40,
	IP6_FRAG_HDR_LEN = 8,
	UDP_HDR_LEN = 8,
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* What the guards look at in an IP packet. */
struct inner {
	int family;
	uint8_t ttl;	    /* TTL or hop limit */
	bool udp_fragment;  /* a fragment of a UDP datagram */
	const uint8_t *udp; /* its UDP header (only or first fragment), else NULL */
};

static bool parse(const uint8_t *p, size_t len, struct inner *in)
{
	size_t l4;

	memset(in, 0, sizeof(*in));
	if (len >= 20 && p[0] >> 4 == 4) {
		in->family = AF_INET;
		in->ttl = p[8];
		l4 = (size_t)(p[0] & 0x0f) * 4;
		if (p[9] != IP_PROTO_UDP)
			return true;
		in->udp_fragment = be16(p + 6) & 0x3fff; /* MF or an offset */
		if (be16(p + 6) & 0x1fff)
			return true;
	} else if (len >= IP6_HDR_LEN && p[0] >> 4 == 6) {
		in->family = AF_INET6;
		in->ttl = p[7];
		l4 = IP6_HDR_LEN;
		if (p[6] == IP6_FRAGMENT && len >= l4 + IP6_FRAG_HDR_LEN && p[l4] == IP_PROTO_UDP) {
			in->udp_fragment = true;
			if (be16(p + l4 + 2) & 0xfff8)
				return true;
			l4 += IP6_FRAG_HDR_LEN;
		} else if (p[6] != IP_PROTO_UDP) {
			return true;
		}
	} else {
		return false;
	}
	if (l4 >= 20 && len >= l4 + UDP_HDR_LEN)
		in->udp = p + l4;
	return true;
}

static bool to_endpoint(const struct inner *in, const uint8_t *p, const struct wg_endpoint *ep)
{
	if (!in->udp || in->family != ep->addr.sa.sa_family)
		return false;
	if (in->family == AF_INET)
		return !memcmp(p + 16, &ep->addr.in4.sin_addr, 4) &&
		       !memcmp(in->udp + 2, &ep->addr.in4.sin_port, 2);
	return !memcmp(p + 24, &ep->addr.in6.sin6_addr, 16) &&
	       !memcmp(in->udp + 2, &ep->addr.in6.sin6_port, 2);
}

/* A WireGuard message inside (by its type and size), or a fragment of a
 * UDP datagram, which may be one. */
static bool nested(const struct inner *in, const uint8_t *p, size_t len)
{
	size_t n;

	if (in->udp_fragment)
		return true;
	if (!in->udp)
		return false;
	n = (size_t)(p + len - in->udp);
	if (be16(in->udp + 4) < n)
		n = be16(in->udp + 4);
	return n > UDP_HDR_LEN &&
	       wg_message_type(in->udp + UDP_HDR_LEN, n - UDP_HDR_LEN) != WG_MESSAGE_INVALID;
}

static bool refuse(struct wg_device *dev, struct wg_peer *peer)
{
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

bool wg_loop_refuse(struct wg_device *dev, struct wg_peer *peer, const uint8_t *pkt, size_t len,
		    uint8_t *ttl)
{
	struct inner in;

	*ttl = 0;
	if (!parse(pkt, len, &in))
		return false;
	if (peer->has_endpoint && to_endpoint(&in, pkt, &peer->endpoint))
		return refuse(dev, peer);
	if (!nested(&in, pkt, len))
		return false;
	if (in.ttl <= WG_NEST_TTL_STEP)
		return refuse(dev, peer);
	*ttl = (uint8_t)(in.ttl - WG_NEST_TTL_STEP);
	return false;
}
