/* Watches our link through rtnetlink: MTU changes, deletion, and moves to
 * another network namespace (the container pattern: `ip link set IF netns
 * X` keeps the TUN, so the daemon keeps serving it from where it started). */
#ifndef ZT_LINKMON_H
#define ZT_LINKMON_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ifaddr.h"

/* Where the link is: our own namespace, somewhere we cannot watch, or
 * (>= 0) the namespace that our namespace knows by that id. */
enum { LINKMON_HERE = -1, LINKMON_LOST = -2 };

struct linkmon {
	int fd;	     /* our namespace's link events, -1 if none */
	int peer_fd; /* events of every namespace we hold an id for
		      * (NETLINK_LISTEN_ALL_NSID), in the link group only
		      * while the link is in one of them; -1 if none */
	int tun_fd;  /* tells a deletion from a move */
	int nsid;    /* LINKMON_HERE, LINKMON_LOST or a namespace id */
	int ifindex; /* the link's index in that namespace */
	bool peer_joined;
	uint32_t nsid_seq;	 /* of the last check_nsid */
	uint32_t addr_seq;	 /* of the last address dump asked for on fd */
	bool dumping, redump;	 /* a dump is under way; ask again after it */
	struct if_addrs pending; /* what the dump under way found so far */
	struct if_addrs addrs;	 /* the link's addresses here (none elsewhere) */
	dev_t home_dev;		 /* our network namespace's nsfs file (0: unknown) */
	ino_t home_ino;
};

/* Addresses: fd also follows the address groups; every change to the
 * link's addresses here asks the kernel for the whole list again (a dump),
 * which becomes lm->addrs once complete. */

/* Opens the sockets (before the sandbox: NETLINK_LISTEN_ALL_NSID needs
 * CAP_NET_BROADCAST, and netlink sockets cannot be made later). Returns 0
 * or a negative errno if even our namespace cannot be watched. */
int linkmon_open(struct linkmon *lm, int tun_fd, int ifindex);
void linkmon_close(struct linkmon *lm);

struct link_event {
	bool deleted;	    /* the link is gone (the TUN was detached) */
	bool moved;	    /* it changed namespace: lm->nsid tells where */
	bool mtu_changed;   /* mtu holds its (possibly unchanged) value */
	bool addrs_changed; /* lm->addrs changed */
	uint32_t mtu;
};

/* Reads every pending message of fd (lm->fd or lm->peer_fd) and reports
 * what happened to the link. Lost events (ENOBUFS) are made up for by
 * asking the TUN and the kernel again. Returns 0 or a negative errno. */
int linkmon_read(struct linkmon *lm, int fd, struct link_event *ev);
/* Its part for one datagram from the kernel on fd, buf aligned for
 * nlmsghdr: every message in it; nsid is the sender's namespace
 * (LINKMON_HERE, an id, or another negative value: not followed). */
void linkmon_handle(struct linkmon *lm, int fd, int nsid, const void *buf, size_t n,
		    struct link_event *ev);

#endif
