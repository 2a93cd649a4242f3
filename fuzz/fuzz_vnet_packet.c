/* fuzz-sources: proxy/vnet_packet.c daemon/csum.c */
/* fuzz-options: -max_len=70000 */
/* The proxy's intake of the data path's packets (proxy/vnet_packet.c):
 * a virtio-net header and a packet, as the packet pair carries them.
 *
 * Input: a 10-byte virtio-net header, then the packet. Checks: nothing is
 * read or written outside the packet (ASan), a plain one (no flags, no
 * gso type) is left unchanged, an offloaded one taken has IP length fields
 * that agree with its length, and a completed TCP checksum complements the sum of the rest. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proxy/vnet_packet.h"
#include "be.h"
#include "csum.h"
#include "ip.h"
#include "../proxy/proxy_limits.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vnet_hdr h;
	uint8_t *pkt;
	size_t len;

	if (size < VNET_HDR_LEN)
		return 0;
	memcpy(&h, data, VNET_HDR_LEN);
	len = size - VNET_HDR_LEN;
	/* exactly the packet's bytes: ASan sees any read past them */
	pkt = malloc(len ? len : 1);
	if (!pkt)
		return 0;
	memcpy(pkt, data + VNET_HDR_LEN, len);
	if (vnet_packet_finish(&h, pkt, len) == 0) {
		bool v4 = ip_version(pkt) == 4;

		check(len <= PROXY_STACK_PACKET_MAX, "a packet longer than a pbuf taken");
		if (h.gso_type == VNET_GSO_NONE && !(h.flags & VNET_F_NEEDS_CSUM)) {
			check(!memcmp(pkt, data + VNET_HDR_LEN, len), "a plain packet changed");
			free(pkt);
			return 0;
		}
		if (v4)
			check(get_be16(pkt + IP4_OFF_TOT_LEN) == len, "IPv4 length disagrees");
		else
			check(ip_version(pkt) == 6 &&
				  (size_t)get_be16(pkt + IP6_OFF_PAYLOAD_LEN) + IP6_HDR_LEN == len,
			      "IPv6 length disagrees");
		if (h.flags & VNET_F_NEEDS_CSUM) {
			/* the field's new value complements the sum of the L4
			 * bytes as they came (the partial sum in the field) */
			size_t l4 = h.csum_start;
			uint16_t c;

			memcpy(&c, pkt + l4 + TCP_OFF_CSUM, 2);
			check(csum_fold(csum_add(0, data + VNET_HDR_LEN + l4, len - l4) + c) ==
				  0xffff,
			      "the completed checksum does not verify");
			check(!memcmp(pkt, data + VNET_HDR_LEN, l4 + TCP_OFF_CSUM),
			      "bytes before the checksum changed");
		} else {
			check(!memcmp(pkt, data + VNET_HDR_LEN, len), "a packet changed");
		}
	}
	free(pkt);
	return 0;
}
