/* ICMP / ICMPv6 "destination unreachable" for packets with no peer. */
#ifndef ZT_ICMP_H
#define ZT_ICMP_H

#include <stddef.h>
#include <stdint.h>

#include "ifaddr.h"

enum { ICMP_REPLY_MAX = 1280 };

/* Builds the host/address unreachable error for pkt into out
 * (ICMP_REPLY_MAX bytes), from "from"'s address of the family, else from
 * the unreachable destination. Returns its length, or 0 when no error may
 * be sent (an ICMP error, a fragment, a multicast source...). */
size_t icmp_unreachable(const uint8_t *pkt, size_t len, const struct if_addrs *from, uint8_t *out);

#endif
