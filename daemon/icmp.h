/* ICMP / ICMPv6 "destination unreachable" for packets with no peer. */
#ifndef ZT_ICMP_H
#define ZT_ICMP_H

#include <stddef.h>
#include <stdint.h>

#include "ifaddr.h"

enum { ICMP_REPLY_MAX = 1280 };

/* Builds the error for the IP packet pkt into out (ICMP_REPLY_MAX bytes):
 * IPv4 type 3 code 1 (host unreachable), IPv6 type 1 code 3 (address
 * unreachable), sent back to the source from the interface's own address
 * in "from" (as the kernel's errors), or where it has none of that family
 * (or from is NULL) from the unreachable destination.
 * Returns its length, or 0 when no error may be sent (an ICMP error,
 * a fragment, a multicast/broadcast/unspecified address, a malformed
 * packet). */
size_t icmp_unreachable(const uint8_t *pkt, size_t len, const struct if_addrs *from, uint8_t *out);

#endif
