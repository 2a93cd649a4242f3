/* ICMP / ICMPv6 "destination unreachable" for packets with no peer. */
#ifndef ZT_ICMP_H
#define ZT_ICMP_H

#include <stddef.h>
#include <stdint.h>

enum { ICMP_REPLY_MAX = 1280 };

/* Builds the error for the IP packet pkt into out (ICMP_REPLY_MAX bytes):
 * IPv4 type 3 code 1 (host unreachable), IPv6 type 1 code 3 (address
 * unreachable), sent from the unreachable destination back to the source.
 * Returns its length, or 0 when no error may be sent (an ICMP error,
 * a fragment, a multicast/broadcast/unspecified address, a malformed
 * packet). */
size_t icmp_unreachable(const uint8_t *pkt, size_t len, uint8_t *out);

#endif
