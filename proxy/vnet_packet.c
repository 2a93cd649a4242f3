/* virtio-net header + packet -> one IP packet (vnet_packet.h). */
#include "vnet_packet.h"

#include <stdbool.h>

#include "be.h"
#include "csum.h"
#include "ip.h"
#include "proxy_limits.h"

/* The IP length fields agree with len; a coalesced TCP packet's gso type
 * matches its IP version. */
static int vnet_packet_ip_ok(const struct vnet_hdr *h, const uint8_t *pkt, size_t len)
{
	uint8_t gso = h->gso_type & (uint8_t)~VNET_GSO_ECN;

	if (len < 1 || len > PROXY_STACK_PACKET_MAX)
		return -1;
	if (ip_version(pkt) == 4) {
		if (len < IP4_HDR_MIN || ip4_hdr_len(pkt) < IP4_HDR_MIN || ip4_hdr_len(pkt) > len ||
		    get_be16(pkt + IP4_OFF_TOT_LEN) != len)
			return -1;
		return gso == VNET_GSO_NONE || gso == VNET_GSO_TCPV4 ? 0 : -1;
	}
	if (ip_version(pkt) == 6) {
		if (len < IP6_HDR_LEN ||
		    (size_t)get_be16(pkt + IP6_OFF_PAYLOAD_LEN) + IP6_HDR_LEN != len)
			return -1;
		return gso == VNET_GSO_NONE || gso == VNET_GSO_TCPV6 ? 0 : -1;
	}
	return -1;
}

int vnet_packet_finish(const struct vnet_hdr *h, uint8_t *pkt, size_t len)
{
	bool v4 = ip_version(pkt) == 4;
	size_t l4;

	/* a plain packet goes to lwIP as it came (its checks, as before) */
	if (h->gso_type == VNET_GSO_NONE && !(h->flags & VNET_F_NEEDS_CSUM))
		return len <= PROXY_STACK_PACKET_MAX ? 0 : -1;
	if (vnet_packet_ip_ok(h, pkt, len))
		return -1;
	if (!(h->flags & VNET_F_NEEDS_CSUM))
		return 0;
	/* only what the daemon's coalescing leaves partial: a TCP checksum,
	 * right behind the IP header (a UDP one would need 0 -> 0xffff) */
	l4 = v4 ? ip4_hdr_len(pkt) : IP6_HDR_LEN;
	if (pkt[v4 ? IP4_OFF_PROTO : IP6_OFF_NEXT] != IP_PROTO_TCP || h->csum_start != l4 ||
	    h->csum_offset != TCP_OFF_CSUM || l4 + TCP_HDR_MIN > len)
		return -1;
	/* the pseudo header's sum in the field is part of what is summed */
	csum_put(pkt + l4 + TCP_OFF_CSUM, csum_add(0, pkt + l4, len - l4));
	return 0;
}
