/* An ICMP "unreachable" for packets with no peer (as the kernel's
 * WireGuard), at most UNREACH_PER_SECOND per TUN thread. */
#ifndef ZT_UNREACH_H
#define ZT_UNREACH_H

#include <stddef.h>
#include <stdint.h>

struct zt_runtime;

enum { UNREACH_PER_SECOND = 100 };

/* One thread's rate window. */
struct unreach_rate {
	uint64_t window; /* when the current second began (ZT_CLOCK ns) */
	uint32_t count;	 /* errors sent in it */
};

/* Answers the IP packet pkt; takes the engine lock for a moment. */
void zt_send_unreachable(struct zt_runtime *zt, struct unreach_rate *rate, const uint8_t *pkt,
			 size_t len);

#endif
