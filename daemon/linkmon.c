#include "linkmon.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int linkmon_open(void)
{
	struct sockaddr_nl sa;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	sa.nl_groups = RTMGRP_LINK;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static void parse_link(const struct nlmsghdr *nh, int ifindex, struct link_event *ev)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	const struct rtattr *rta;
	int len;

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) || ifi->ifi_index != ifindex)
		return;
	if (nh->nlmsg_type == RTM_DELLINK) {
		ev->deleted = true;
		return;
	}
	len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFLA_MTU && RTA_PAYLOAD(rta) >= sizeof(uint32_t)) {
			memcpy(&ev->mtu, RTA_DATA(rta), sizeof(uint32_t));
			ev->mtu_changed = true;
		}
	}
}

int linkmon_read(int fd, int ifindex, struct link_event *ev)
{
	/* aligned for nlmsghdr */
	uint32_t buf[8192 / sizeof(uint32_t)];

	memset(ev, 0, sizeof(*ev));
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		struct nlmsghdr *nh;
		int len;

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return 0;
		len = (int)n;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (unsigned int)len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == RTM_NEWLINK || nh->nlmsg_type == RTM_DELLINK)
				parse_link(nh, ifindex, ev);
		}
	}
}
