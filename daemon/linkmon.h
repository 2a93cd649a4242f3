/* Watches our link through rtnetlink: MTU changes and deletion. */
#ifndef ZT_LINKMON_H
#define ZT_LINKMON_H

#include <stdbool.h>
#include <stdint.h>

/* A non-blocking NETLINK_ROUTE socket subscribed to link events, or -errno. */
int linkmon_open(void);

struct link_event {
	bool deleted;	  /* our link went away */
	bool mtu_changed; /* mtu holds the new value */
	uint32_t mtu;
};

/* Reads every pending message; reports the events for ifindex. Returns 0,
 * or a negative errno if the socket failed (ENOBUFS: events were lost, the
 * caller re-checks the link itself). */
int linkmon_read(int fd, int ifindex, struct link_event *ev);

#endif
