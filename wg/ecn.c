/* ECN across the tunnel, bit for bit as the Linux module: sending, the data
 * message's outer DS field is ip_tunnel_ecn_encap(0, inner) (send.c,
 * wg_packet_send_staged_packets), i.e. INET_ECN_encapsulate with an outer
 * TOS of 0: DSCP 0 (nothing of the inner DSCP leaks) and the inner ECN
 * bits, but CE goes out as ECT(0) (the mark belongs to the inner packet).
 * Receiving, wg_packet_consume_data_done applies INET_ECN_decapsulate(skb,
 * outer ds, inner ds) and ignores its verdict: an outer CE marks an ECT or
 * CE inner packet CE, an outer ECT(1) turns an ECT(0) inner one ECT(1)
 * (INET_ECN_set_ect1), and a not-ECT inner packet passes unchanged even
 * under an outer CE (RFC 6040 would drop it, the module does not). */
#include "ecn.h"

#include <stdbool.h>

enum {
	ECN_MASK = 3,
	ECN_NOT_ECT = 0,
	ECN_ECT_1 = 1,
	ECN_ECT_0 = 2,
	ECN_CE = 3,
	IP4_OFF_CSUM = 10,
};

/* The packet's DS field (IPv4 TOS, IPv6 traffic class); false if not IP. */
static bool get_ds(const uint8_t *p, size_t len, bool *v6, uint8_t *ds)
{
	if (len >= 20 && p[0] >> 4 == 4) {
		*v6 = false;
		*ds = p[1];
		return true;
	}
	if (len >= 40 && p[0] >> 4 == 6) {
		*v6 = true;
		*ds = (uint8_t)((p[0] & 0x0f) << 4 | p[1] >> 4);
		return true;
	}
	return false;
}

uint8_t wg_ecn_encap(const uint8_t *pkt, size_t len)
{
	uint8_t ds, ecn;
	bool v6;

	if (!get_ds(pkt, len, &v6, &ds))
		return 0; /* a keepalive: ip_tunnel_get_dsfield gives 0 */
	ecn = ds & ECN_MASK;
	return ecn == ECN_CE ? ECN_ECT_0 : ecn;
}

/* The IPv4 header checksum updated for the 16-bit word holding the TOS
 * (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m')), as IP_ECN_set_ce does. */
static void set_tos4(uint8_t *p, uint8_t tos)
{
	uint32_t sum = (uint16_t) ~(p[IP4_OFF_CSUM] << 8 | p[IP4_OFF_CSUM + 1]);

	sum += (uint16_t) ~(p[0] << 8 | p[1]);
	sum += (uint32_t)(p[0] << 8 | tos);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	p[1] = tos;
	p[IP4_OFF_CSUM] = (uint8_t)(sum >> 8);
	p[IP4_OFF_CSUM + 1] = (uint8_t)sum;
}

void wg_ecn_decap(uint8_t *pkt, size_t len, uint8_t outer)
{
	uint8_t ds, to;
	bool v6;

	if (!get_ds(pkt, len, &v6, &ds) || (ds & ECN_MASK) == ECN_NOT_ECT)
		return;
	if ((outer & ECN_MASK) == ECN_CE)
		to = ds | ECN_CE;
	else if ((outer & ECN_MASK) == ECN_ECT_1 && (ds & ECN_MASK) == ECN_ECT_0)
		to = (uint8_t)((ds & ~ECN_MASK) | ECN_ECT_1);
	else
		return;
	if (to == ds)
		return;
	if (!v6) {
		set_tos4(pkt, to);
		return;
	}
	pkt[0] = (uint8_t)((pkt[0] & 0xf0) | to >> 4);
	pkt[1] = (uint8_t)((pkt[1] & 0x0f) | to << 4);
}
