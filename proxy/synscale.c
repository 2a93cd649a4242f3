/* Raising the window scale of lwIP's SYNs (synscale.h). */
#include "synscale.h"

#include "be.h"
#include "ip.h"
#include "proxy_limits.h"

enum {
	TCP_OFF_DOFF = 12, /* data offset, in 32-bit words, high nibble */
	TCP_OFF_FLAGS = 13,
	TCP_FLAG_SYN = 0x02,
	TCP_OPT_END = 0,
	TCP_OPT_NOP = 1,
	TCP_OPT_WS = 3, /* RFC 7323: kind 3, length 3, shift */
	TCP_OPT_WS_LEN = 3,
};

/* The TCP header's offset in pkt, or 0 when pkt is no whole unfragmented
 * TCP header. */
static size_t tcp_offset(const uint8_t *pkt, size_t len)
{
	size_t l4;

	if (!len)
		return 0;
	if (ip_version(pkt) == 4) {
		if (len < IP4_HDR_MIN || ip4_hdr_len(pkt) < IP4_HDR_MIN || ip4_is_fragment(pkt) ||
		    pkt[IP4_OFF_PROTO] != IP_PROTO_TCP)
			return 0;
		l4 = ip4_hdr_len(pkt);
	} else if (ip_version(pkt) == 6) {
		if (len < IP6_HDR_LEN || pkt[IP6_OFF_NEXT] != IP_PROTO_TCP)
			return 0;
		l4 = IP6_HDR_LEN;
	} else {
		return 0;
	}
	return l4 + TCP_HDR_MIN <= len ? l4 : 0;
}

/* RFC 1624: the checksum after one 16-bit word (at an even offset from
 * the start of the segment) changed from old to new. */
static void csum_replace16(uint8_t *field, uint16_t old, uint16_t new)
{
	uint32_t sum = (uint16_t)~get_be16(field) + (uint32_t)(uint16_t)~old + new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	put_be16(field, (uint16_t)~sum);
}

bool syn_scale_rewrite(uint8_t *pkt, size_t len, uint8_t from, uint8_t to)
{
	size_t l4 = tcp_offset(pkt, len), doff, i;
	uint8_t *tcp;

	if (!l4)
		return false;
	tcp = pkt + l4;
	if (!(tcp[TCP_OFF_FLAGS] & TCP_FLAG_SYN))
		return false;
	doff = (size_t)(tcp[TCP_OFF_DOFF] >> 4) * 4;
	if (doff < TCP_HDR_MIN || l4 + doff > len)
		return false;
	for (i = TCP_HDR_MIN; i < doff && tcp[i] != TCP_OPT_END;) {
		size_t olen;

		if (tcp[i] == TCP_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= doff)
			return false;
		olen = tcp[i + 1];
		if (olen < 2 || i + olen > doff)
			return false;
		if (tcp[i] == TCP_OPT_WS && olen == TCP_OPT_WS_LEN) {
			size_t at = i + 2, word = at & ~(size_t)1;
			uint16_t old = get_be16(tcp + word);

			if (tcp[at] != from)
				return false;
			tcp[at] = to;
			csum_replace16(tcp + TCP_OFF_CSUM, old, get_be16(tcp + word));
			return true;
		}
		i += olen;
	}
	return false;
}
