/* The interface's own address per family: the source of our ICMP errors
 * (icmp.h), so they read as coming from this host. */
#ifndef ZT_IFADDR_H
#define ZT_IFADDR_H

#include <stdbool.h>
#include <stdint.h>

struct if_addrs {
	bool has4, has6;
	int rank6; /* how good v6 is (ifaddr.c), while has6 */
	uint8_t v4[4], v6[16];
};

/* Offers one address (RTM_NEWADDR order and flags). Kept as the kernel
 * picks: IPv4's first primary, IPv6's first global else link-local, never
 * a tentative one. */
void ifaddr_offer(struct if_addrs *a, int family, uint32_t flags, unsigned int scope,
		  const uint8_t *addr);

#endif
