/* TUN device setup, and the data path's packet I/O on its queues. */
#include "tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "wg/wg.h"
#include "be.h"
#include "ip.h"
#include "offload.h"

static void set_name(struct ifreq *ifr, const char *name)
{
	size_t len = strnlen(name, IF_NAMESIZE - 1);

	memcpy(ifr->ifr_name, name, len);
	ifr->ifr_name[len] = '\0';
}

/* An interface ioctl on name, through any socket. */
static int ifreq_ioctl(unsigned long req, const char *name, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	set_name(ifr, name);
	if (fd < 0)
		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, req, ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The interface's driver name ("tun", "bridge", ...), from ethtool. */
static int link_driver(const char *name, char *driver, size_t len)
{
	struct ethtool_drvinfo info;
	struct ifreq ifr = {0};
	int ret;

	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GDRVINFO;
	ifr.ifr_data = (void *)&info;
	ret = ifreq_ioctl(SIOCETHTOOL, name, &ifr);
	if (!ret)
		snprintf(driver, len, "%.*s", (int)sizeof(info.driver), info.driver);
	return ret;
}

int tun_get_mtu(const char *name, uint32_t *mtu)
{
	struct ifreq ifr = {0};
	int ret;

	ret = ifreq_ioctl(SIOCGIFMTU, name, &ifr);
	if (!ret)
		*mtu = (uint32_t)ifr.ifr_mtu;
	return ret;
}

/* What the kernel's TUNSETIFF refusal means for the name asked for. */
static void explain_setiff(const char *name, int err, char *msg, size_t len)
{
	char driver[sizeof(((struct ethtool_drvinfo *)0)->driver)];

	switch (err) {
	case EPERM:
		snprintf(msg, len, "creating interface %s needs CAP_NET_ADMIN", name);
		return;
	case EBUSY:
		snprintf(msg, len, "interface %s is held by another daemon", name);
		return;
	case EINVAL:
		if (!if_nametoindex(name))
			break;
		/* no driver information (lo): no TUN either */
		if (link_driver(name, driver, sizeof(driver)))
			snprintf(driver, sizeof(driver), "no driver information");
		if (strcmp(driver, TUN_DRIVER))
			snprintf(msg, len, "interface %s exists and is not a TUN device (%s)", name,
				 driver);
		else
			snprintf(msg, len,
				 "interface %s exists with other TUN flags (TAP or multi-queue)",
				 name);
		return;
	}
	snprintf(msg, len, "cannot create TUN interface %s: %s", name, strerror(err));
}

int tun_create(const char *name, bool vnet_hdr, bool multi_queue, char *msg, size_t msglen)
{
	struct ifreq ifr = {0}, mtu = {.ifr_mtu = WG_DEFAULT_MTU};
	int fd, ret;

	if (strlen(name) >= IF_NAMESIZE) {
		snprintf(msg, msglen, "interface name too long");
		return -ENAMETOOLONG;
	}
	fd = open(TUN_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT || ret == -ENODEV || ret == -ENXIO)
			snprintf(msg, msglen,
				 TUN_DEV " is missing (%s): load the tun module "
					 "or create the device node",
				 strerror(-ret));
		else if (ret == -EACCES || ret == -EPERM)
			snprintf(msg, msglen,
				 "cannot open " TUN_DEV " (%s): creating interface "
				 "%s needs root with CAP_NET_ADMIN",
				 strerror(-ret), name);
		else
			snprintf(msg, msglen, "cannot open " TUN_DEV ": %s", strerror(-ret));
		return ret;
	}
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	if (vnet_hdr)
		ifr.ifr_flags |= IFF_VNET_HDR;
	if (multi_queue)
		ifr.ifr_flags |= IFF_MULTI_QUEUE;
	set_name(&ifr, name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		ret = -errno;
		close(fd);
		explain_setiff(name, -ret, msg, msglen);
		return ret;
	}
	ret = ifreq_ioctl(SIOCSIFMTU, ifr.ifr_name, &mtu);
	if (ret) {
		close(fd);
		snprintf(msg, msglen, "cannot set the MTU of %s: %s", name, strerror(-ret));
		return ret;
	}
	return fd;
}

int tun_attach_queue(int fd, const char *name)
{
	struct ifreq ifr = {0};
	int q, ret;

	if (ioctl(fd, TUNGETIFF, &ifr) < 0)
		return -errno;
	if (!(ifr.ifr_flags & IFF_MULTI_QUEUE))
		return -EOPNOTSUPP;
	q = open(TUN_DEV, O_RDWR | O_CLOEXEC);
	if (q < 0)
		return -errno;
	/* a queue must ask for the flags the device was created with */
	ifr.ifr_flags &= IFF_TUN | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE;
	set_name(&ifr, name);
	if (ioctl(q, TUNSETIFF, &ifr) < 0) {
		ret = -errno;
		close(q);
		return ret;
	}
	return q;
}

int tun_adopt(int fd, char name[IF_NAMESIZE])
{
	struct ifreq ifr = {0};

	if (ioctl(fd, TUNGETIFF, &ifr) < 0)
		return -errno;
	/* an inherited IFF_VNET_HDR device is fine: the runtime asks */
	if (!(ifr.ifr_flags & IFF_TUN) || !(ifr.ifr_flags & IFF_NO_PI))
		return -EINVAL;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return tun_get_name(fd, name);
}

int tun_get_name(int fd, char name[IF_NAMESIZE])
{
	struct ifreq ifr = {0};

	if (ioctl(fd, TUNGETIFF, &ifr) < 0)
		return -errno;
	memcpy(name, ifr.ifr_name, IF_NAMESIZE);
	name[IF_NAMESIZE - 1] = '\0';
	return 0;
}

int tun_netns_is(int fd, dev_t dev, ino_t ino)
{
	struct stat st;
	int ns = ioctl(fd, TUNGETDEVNETNS);
	int ret;

	if (ns < 0)
		return -errno;
	ret = fstat(ns, &st) < 0 ? -errno : st.st_dev == dev && st.st_ino == ino;
	close(ns);
	return ret;
}

int tun_setup_offload(int fd, bool *vnet_hdr, unsigned int *offloads)
{
	/* the most the kernel may accept first; older kernels lack USO */
	static const unsigned int tries[] = {
	    TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN | TUN_F_USO4 | TUN_F_USO6,
	    TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN,
	    TUN_F_CSUM,
	};
	struct ifreq ifr = {0};
	int sz = VNET_HDR_LEN;

	*vnet_hdr = false;
	*offloads = 0;
	if (ioctl(fd, TUNGETIFF, &ifr) < 0)
		return -errno;
	if (!(ifr.ifr_flags & IFF_VNET_HDR))
		return 0;
	if (ioctl(fd, TUNSETVNETHDRSZ, &sz) < 0)
		return -errno;
	*vnet_hdr = true;
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (ioctl(fd, TUNSETOFFLOAD, (unsigned long)tries[i]) == 0) {
			*offloads = tries[i];
			return 0;
		}
	}
	return 0;
}

int tun_queue_of(const uint8_t *pkt, size_t len, int n_queues)
{
	uint32_t h = 0, w;
	size_t l4 = 0;
	uint8_t proto = 0;

	if (n_queues <= 1 || !len)
		return 0;
	if (ip_version(pkt) == 4 && len >= IP4_HDR_MIN) {
		l4 = ip4_hdr_len(pkt);
		proto = pkt[IP4_OFF_PROTO];
		for (int i = IP4_OFF_SRC; i < IP4_OFF_DST + 4; i += 4) {
			memcpy(&w, pkt + i, 4);
			h += w;
		}
		if (ip4_is_fragment(pkt)) /* no ports */
			proto = 0;
	} else if (ip_version(pkt) == 6 && len >= IP6_HDR_LEN) {
		l4 = IP6_HDR_LEN;
		proto = pkt[IP6_OFF_NEXT];
		for (int i = IP6_OFF_SRC; i < IP6_OFF_DST + 16; i += 4) {
			memcpy(&w, pkt + i, 4);
			h += w;
		}
	}
	/* the ports: the sum is the same both ways */
	if ((proto == IP_PROTO_TCP || proto == IP_PROTO_UDP) && l4 + 4 <= len)
		h += (uint32_t)get_be16(pkt + l4) + get_be16(pkt + l4 + 2);
	h ^= proto;
	h *= 0x9e3779b1u; /* spread the sum into the high bits */
	return (int)((uint64_t)h * (uint32_t)n_queues >> 32);
}

static int tun_fd_for(const struct tun_dev *t, const uint8_t *pkt, size_t len)
{
	return t->fd[tun_queue_of(pkt, len, t->n_queues)];
}

ssize_t tun_read(const struct tun_dev *t, int q, uint8_t *buf, size_t len)
{
	ssize_t r = read(t->fd[q], buf, len);

	return r < 0 ? -errno : r;
}

int tun_write(const struct tun_dev *t, const uint8_t *pkt, size_t len)
{
	static const struct vnet_hdr none;
	struct iovec iov[2] = {
	    {.iov_base = (void *)&none, .iov_len = VNET_HDR_LEN},
	    {.iov_base = (void *)pkt, .iov_len = len},
	};
	ssize_t r;

	if (t->sink)
		return t->sink->write(t->sink->ctx, &iov[1], 1);
	/* TUN writes do not block */
	if (t->vnet_hdr)
		r = writev(tun_fd_for(t, pkt, len), iov, 2);
	else
		r = write(tun_fd_for(t, pkt, len), pkt, len);
	return r < 0 ? -errno : 0;
}

int tun_write_gro(const struct tun_dev *t, const struct iovec *iov, int n)
{
	int fd;

	if (t->sink) /* the packet without its virtio-net header */
		return t->sink->write(t->sink->ctx, iov + 1, n - 1);
	/* the head's addresses and ports pick the queue, as for its segments */
	fd = tun_fd_for(t, iov[1].iov_base, iov[1].iov_len);
	return writev(fd, iov, n) < 0 ? -errno : 0;
}

void tun_batch_begin(const struct tun_dev *t)
{
	if (t->sink)
		t->sink->begin(t->sink->ctx);
}

void tun_batch_end(const struct tun_dev *t)
{
	if (t->sink)
		t->sink->end(t->sink->ctx);
}
