/* The interface's own address per family, as the kernel would answer from
 * it: the source of the ICMP errors the daemon sends for destinations no
 * peer covers (icmp.h), so that they read as coming from this host, not
 * from the unreachable one. */
#ifndef ZT_IFADDR_H
#define ZT_IFADDR_H

#include <stdbool.h>
#include <stdint.h>

struct if_addrs {
	bool has4, has6;
	int rank6; /* how good v6 is (ifaddr.c), while has6 */
	uint8_t v4[4], v6[16];
};

/* Offers one address of the interface (in the order the kernel lists
 * them; ifa_flags, ifa_scope as in RTM_NEWADDR). Kept: for IPv4 the first
 * primary address, as inet_select_addr; for IPv6 the first global one,
 * else the first link-local one, never one still tentative (DAD). */
void ifaddr_offer(struct if_addrs *a, int family, uint32_t flags, unsigned int scope,
		  const uint8_t *addr);

#endif
