/* The link monitor (linkmon.h): rtnetlink events of our link and its
 * addresses, followed into the namespace the link moves to. */
#include "linkmon.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/if_tun.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "sandbox.h"
#include "tun.h"

#ifndef SOL_NETLINK /* <sys/socket.h> has it only with newer C libraries */
#define SOL_NETLINK 270
#endif

/* A message from a namespace we do not follow the link in (our own, seen
 * on peer_fd: lm->fd reports those). */
enum { NSID_IGNORE = -3 };

/* What one RTM_NEWLINK / RTM_DELLINK says, and from which namespace. */
struct link_msg {
	int type;
	int nsid; /* the sender's namespace as we know it, LINKMON_HERE */
	int ifindex;
	int new_nsid; /* DELLINK of a move: target, as the sender knows it */
	int new_ifindex;
	bool has_mtu;
	uint32_t mtu;
};

/* Opened with no capability but keep in effect: the kernel refuses every
 * change (route, link, address) sent on it without a destination, and the
 * sandbox forbids sends with one (sandbox.h). keep: CAP_NET_BROADCAST for
 * peer_fd, which other namespaces' events reach only through it. */
static int nl_socket(uint64_t keep)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	int fd = zt_sandbox_socket_unprivileged(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
						NETLINK_ROUTE, keep);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static int join(int fd, int opt, int group)
{
	return setsockopt(fd, SOL_NETLINK, opt, &group, sizeof(group)) < 0 ? -errno : 0;
}

/* Asks for every address of every link here (the kernel may ignore a
 * filter by index): the answers come on lm->fd with seq addr_seq. */
static void dump_addrs(struct linkmon *lm)
{
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
	} req = {0};

	if (lm->dumping) {
		lm->redump = true;
		return;
	}
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_GETADDR;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = ++lm->addr_seq;
	req.ifa.ifa_family = AF_UNSPEC;
	memset(&lm->pending, 0, sizeof(lm->pending));
	lm->redump = false;
	if (send(lm->fd, &req, sizeof(req), 0) < 0)
		log_debug("netlink: address dump: %s", strerror(errno));
	else
		lm->dumping = true;
}

/* The dump is complete: its addresses are the link's (if it is here). */
static void addrs_done(struct linkmon *lm, struct link_event *ev)
{
	struct if_addrs found = lm->nsid == LINKMON_HERE ? lm->pending : (struct if_addrs){0};

	lm->dumping = false;
	if (memcmp(&found, &lm->addrs, sizeof(found))) {
		lm->addrs = found;
		ev->addrs_changed = true;
	}
	if (lm->redump)
		dump_addrs(lm);
}

static void handle_addr(struct linkmon *lm, const struct nlmsghdr *nh)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	const struct rtattr *rta;
	const uint8_t *local = NULL, *address = NULL;
	int len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifa));
	size_t alen = ifa->ifa_family == AF_INET ? 4 : 16;
	uint32_t flags = ifa->ifa_flags;

	if ((int)ifa->ifa_index != lm->ifindex || lm->nsid != LINKMON_HERE)
		return;
	if (!lm->dumping || nh->nlmsg_seq != lm->addr_seq) {
		dump_addrs(lm); /* an event: look at the whole list again */
		return;
	}
	if (nh->nlmsg_type != RTM_NEWADDR)
		return;
	for (rta = IFA_RTA(ifa); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFA_FLAGS && RTA_PAYLOAD(rta) >= sizeof(flags))
			memcpy(&flags, RTA_DATA(rta), sizeof(flags));
		else if (rta->rta_type == IFA_LOCAL && RTA_PAYLOAD(rta) >= alen)
			local = RTA_DATA(rta);
		else if (rta->rta_type == IFA_ADDRESS && RTA_PAYLOAD(rta) >= alen)
			address = RTA_DATA(rta);
	}
	/* IFA_ADDRESS is the peer's on a point-to-point link: IFA_LOCAL first */
	if (local || address)
		ifaddr_offer(&lm->pending, ifa->ifa_family, flags, ifa->ifa_scope,
			     local ? local : address);
}

int linkmon_open(struct linkmon *lm, int tun_fd, int ifindex)
{
	struct stat st;
	int one = 1, ret;

	memset(lm, 0, sizeof(*lm));
	lm->tun_fd = tun_fd;
	lm->nsid = LINKMON_HERE;
	lm->ifindex = ifindex;
	lm->peer_fd = nl_socket(1ULL << CAP_NET_BROADCAST);
	if (lm->peer_fd >= 0 &&
	    setsockopt(lm->peer_fd, SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, &one, sizeof(one)) < 0) {
		log_info("netlink: %s (MTU changes after a move to another network "
			 "namespace are not seen)",
			 strerror(errno));
		close(lm->peer_fd);
		lm->peer_fd = -1;
	}
	if (stat("/proc/thread-self/ns/net", &st) == 0) {
		lm->home_dev = st.st_dev;
		lm->home_ino = st.st_ino;
	}
	lm->fd = nl_socket(0);
	if (lm->fd < 0)
		return lm->fd;
	ret = join(lm->fd, NETLINK_ADD_MEMBERSHIP, RTNLGRP_LINK);
	if (ret) {
		close(lm->fd);
		lm->fd = -1;
		return ret;
	}
	if (join(lm->fd, NETLINK_ADD_MEMBERSHIP, RTNLGRP_IPV4_IFADDR) ||
	    join(lm->fd, NETLINK_ADD_MEMBERSHIP, RTNLGRP_IPV6_IFADDR))
		log_info("netlink: %s (address changes are not followed)", strerror(errno));
	dump_addrs(lm);
	return 0;
}

void linkmon_close(struct linkmon *lm)
{
	if (lm->fd >= 0)
		close(lm->fd);
	if (lm->peer_fd >= 0)
		close(lm->peer_fd);
	lm->fd = lm->peer_fd = -1;
}

static void relocate(struct linkmon *lm, struct link_event *ev);

/* Asks on fd which id our namespace has for the TUN's (RTM_GETNSID names
 * it by descriptor, a query any socket may make): the answer, on fd with
 * seq nsid_seq, shows a link that left the namespace we follow before we
 * joined its events. Asking for the link itself there (RTM_GETLINK with
 * IFLA_TARGET_NETNSID) would need CAP_NET_ADMIN in the socket's opener,
 * with which a compromised daemon could change routes and links. */
static void check_nsid(struct linkmon *lm)
{
	struct {
		struct nlmsghdr nh;
		struct rtgenmsg g;
		uint8_t pad[NLMSG_ALIGN(sizeof(struct rtgenmsg)) - sizeof(struct rtgenmsg)];
		struct rtattr rta;
		int32_t fd;
	} req = {0};
	int ns = ioctl(lm->tun_fd, TUNGETDEVNETNS);

	if (ns < 0 || lm->fd < 0) {
		if (ns >= 0)
			close(ns);
		return;
	}
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_GETNSID;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = ++lm->nsid_seq;
	req.g.rtgen_family = AF_UNSPEC;
	req.rta.rta_type = NETNSA_FD;
	req.rta.rta_len = RTA_LENGTH(sizeof(req.fd));
	req.fd = ns;
	if (send(lm->fd, &req, sizeof(req), 0) < 0)
		log_debug("netlink: namespace id query: %s", strerror(errno));
	close(ns); /* the kernel took it during send */
}

/* The answer to check_nsid: a link no longer where we follow it is looked
 * for again. */
static void handle_nsid(struct linkmon *lm, const struct nlmsghdr *nh, struct link_event *ev)
{
	const struct rtgenmsg *g = NLMSG_DATA(nh);
	const struct rtattr *rta =
	    (const struct rtattr *)((const char *)g + NLMSG_ALIGN(sizeof(*g)));
	int len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*g)));
	int32_t nsid = LINKMON_LOST;

	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == NETNSA_NSID && RTA_PAYLOAD(rta) >= sizeof(nsid))
			memcpy(&nsid, RTA_DATA(rta), sizeof(nsid));
	if (lm->nsid >= 0 && nsid != lm->nsid) {
		relocate(lm, ev);
		ev->moved = true;
	}
}

/* Follows the link to (nsid, ifindex): the link group of every namespace
 * only while it is in another one, so that an idle daemon is not woken by
 * the links of every container on the host. */
static void set_location(struct linkmon *lm, int nsid, int ifindex)
{
	if (nsid >= 0 && lm->peer_fd < 0)
		nsid = LINKMON_LOST;
	lm->nsid = nsid;
	lm->ifindex = ifindex;
	if (nsid >= 0 && !lm->peer_joined)
		lm->peer_joined = !join(lm->peer_fd, NETLINK_ADD_MEMBERSHIP, RTNLGRP_LINK);
	else if (nsid < 0 && lm->peer_joined)
		lm->peer_joined = join(lm->peer_fd, NETLINK_DROP_MEMBERSHIP, RTNLGRP_LINK) != 0;
	if (nsid >= 0 && !lm->peer_joined)
		lm->nsid = LINKMON_LOST;
	/* it may have moved on before we joined (an MTU set there meanwhile
	 * is seen at its next change) */
	if (lm->nsid >= 0)
		check_nsid(lm);
}

/* The link is not where we watched it. The TUN says whether it exists; if
 * it is back in our namespace its name finds it, else we lose sight of it
 * (its namespace's id, if any, is known only to the one it left). */
static void relocate(struct linkmon *lm, struct link_event *ev)
{
	char name[IF_NAMESIZE];
	int old_nsid = lm->nsid, old_ifindex = lm->ifindex;

	if (tun_get_name(lm->tun_fd, name)) {
		ev->deleted = true;
		return;
	}
	if (lm->home_ino && tun_netns_is(lm->tun_fd, lm->home_dev, lm->home_ino) == 1) {
		set_location(lm, LINKMON_HERE, (int)if_nametoindex(name));
		ev->mtu_changed = !tun_get_mtu(name, &ev->mtu);
	} else {
		set_location(lm, LINKMON_LOST, 0);
	}
	ev->moved |= lm->nsid != old_nsid || lm->ifindex != old_ifindex;
}

static void handle_link(struct linkmon *lm, const struct link_msg *m, struct link_event *ev)
{
	char name[IF_NAMESIZE];

	if (m->nsid != lm->nsid || m->ifindex != lm->ifindex)
		return;
	if (m->type == RTM_NEWLINK) {
		if (m->has_mtu) {
			ev->mtu = m->mtu;
			ev->mtu_changed = true;
		}
		return;
	}
	/* RTM_DELLINK: a deletion detaches the TUN before it is announced,
	 * a move does not */
	if (tun_get_name(lm->tun_fd, name)) {
		ev->deleted = true;
		return;
	}
	/* from our namespace, the target's id is ours too */
	if (m->nsid == LINKMON_HERE && m->new_nsid >= 0 && m->new_ifindex > 0) {
		set_location(lm, m->new_nsid, m->new_ifindex);
		ev->moved = true;
		return;
	}
	relocate(lm, ev);
	ev->moved = true;
}

static void parse_link(const struct nlmsghdr *nh, int nsid, struct link_msg *m)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	const struct rtattr *rta;
	int len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));
	int32_t v;

	memset(m, 0, sizeof(*m));
	m->type = nh->nlmsg_type;
	m->nsid = nsid;
	m->ifindex = ifi->ifi_index;
	m->new_nsid = -1;
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (RTA_PAYLOAD(rta) < sizeof(v))
			continue;
		memcpy(&v, RTA_DATA(rta), sizeof(v));
		switch (rta->rta_type) {
		case IFLA_MTU:
			m->mtu = (uint32_t)v;
			m->has_mtu = true;
			break;
		case IFLA_NEW_NETNSID:
			m->new_nsid = v;
			break;
		case IFLA_NEW_IFINDEX:
			m->new_ifindex = v;
			break;
		}
	}
}

/* The sender's namespace id: on peer_fd the kernel names every other
 * namespace in a control message; messages without one are our own
 * namespace's, which lm->fd reports. */
static int msg_nsid(const struct linkmon *lm, int fd, struct msghdr *mh)
{
	struct cmsghdr *c;
	int nsid;

	if (fd != lm->peer_fd)
		return LINKMON_HERE;
	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == SOL_NETLINK && c->cmsg_type == NETLINK_LISTEN_ALL_NSID &&
		    c->cmsg_len >= CMSG_LEN(sizeof(nsid))) {
			memcpy(&nsid, CMSG_DATA(c), sizeof(nsid));
			return nsid;
		}
	}
	return NSID_IGNORE;
}

/* Lost events: look again at wherever fd watches. */
static void recheck(struct linkmon *lm, int fd, struct link_event *ev)
{
	if (fd == lm->fd && lm->nsid == LINKMON_HERE) {
		relocate(lm, ev);
		lm->dumping = false; /* its answer may be what was lost */
		dump_addrs(lm);
	} else if (fd == lm->peer_fd && lm->nsid >= 0) {
		check_nsid(lm);
	}
}

/* Addresses do not move with a link: gone when it leaves, asked for again
 * when it comes back. */
static void after_read(struct linkmon *lm, struct link_event *ev)
{
	if (!ev->moved || ev->deleted)
		return;
	if (lm->nsid == LINKMON_HERE) {
		dump_addrs(lm);
	} else if (lm->addrs.has4 || lm->addrs.has6) {
		memset(&lm->addrs, 0, sizeof(lm->addrs));
		ev->addrs_changed = true;
	}
}

void linkmon_handle(struct linkmon *lm, int fd, int nsid, const void *buf, size_t n,
		    struct link_event *ev)
{
	int len = (int)n;

	/* len > 0: after a last message whose length is not aligned it is
	 * negative, which NLMSG_OK would take for a large unsigned one */
	for (const struct nlmsghdr *nh = buf;
	     len > 0 && NLMSG_OK(nh, (unsigned int)len) && !ev->deleted; nh = NLMSG_NEXT(nh, len)) {
		struct link_msg m;

		if ((nh->nlmsg_type == RTM_NEWLINK || nh->nlmsg_type == RTM_DELLINK) &&
		    nh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifinfomsg))) {
			parse_link(nh, nsid, &m);
			handle_link(lm, &m, ev);
		} else if ((nh->nlmsg_type == RTM_NEWADDR || nh->nlmsg_type == RTM_DELADDR) &&
			   fd == lm->fd &&
			   nh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifaddrmsg))) {
			handle_addr(lm, nh);
		} else if (nh->nlmsg_type == RTM_NEWNSID && fd == lm->fd &&
			   nh->nlmsg_seq == lm->nsid_seq &&
			   nh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct rtgenmsg))) {
			handle_nsid(lm, nh, ev);
		} else if ((nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR) &&
			   fd == lm->fd && lm->dumping && nh->nlmsg_seq == lm->addr_seq) {
			addrs_done(lm, ev);
		}
	}
}

int linkmon_read(struct linkmon *lm, int fd, struct link_event *ev)
{
	/* aligned for nlmsghdr */
	uint32_t buf[8192 / sizeof(uint32_t)];
	uint64_t cbuf[CMSG_SPACE(sizeof(int)) / sizeof(uint64_t) + 1];
	int ret = 0;

	memset(ev, 0, sizeof(*ev));
	while (!ev->deleted) {
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
		struct sockaddr_nl from;
		struct msghdr mh = {.msg_name = &from,
				    .msg_namelen = sizeof(from),
				    .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf)};
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				recheck(lm, fd, ev);
				continue;
			}
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		/* only the kernel speaks here (a process with CAP_NET_ADMIN
		 * could unicast to us): what it says about namespaces is the
		 * control message, never an attribute */
		if (mh.msg_namelen >= sizeof(from) && from.nl_family == AF_NETLINK && !from.nl_pid)
			linkmon_handle(lm, fd, msg_nsid(lm, fd, &mh), buf, (size_t)n, ev);
	}
	after_read(lm, ev);
	return ret;
}
