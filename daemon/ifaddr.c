#include "ifaddr.h"

#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>

enum { RANK_NONE, RANK_LINK, RANK_GLOBAL };

static int rank6(uint32_t flags, unsigned int scope)
{
	if (flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED))
		return RANK_NONE;
	if (scope == RT_SCOPE_UNIVERSE)
		return RANK_GLOBAL;
	return scope == RT_SCOPE_LINK ? RANK_LINK : RANK_NONE;
}

void ifaddr_offer(struct if_addrs *a, int family, uint32_t flags, unsigned int scope,
		  const uint8_t *addr)
{
	int r;

	if (family == AF_INET && !a->has4 && !(flags & IFA_F_SECONDARY)) {
		memcpy(a->v4, addr, sizeof(a->v4));
		a->has4 = true;
	} else if (family == AF_INET6) {
		r = rank6(flags, scope);
		if (r == RANK_NONE || (a->has6 && r <= a->rank6))
			return;
		memcpy(a->v6, addr, sizeof(a->v6));
		a->has6 = true;
		a->rank6 = r;
	}
}
