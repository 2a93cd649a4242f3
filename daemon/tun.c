/* TUN device setup through /dev/net/tun and interface ioctls. */
#include "tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static void set_name(struct ifreq *ifr, const char *name)
{
	size_t len = strnlen(name, IF_NAMESIZE - 1);

	memcpy(ifr->ifr_name, name, len);
	ifr->ifr_name[len] = '\0';
}

static int ifreq_ioctl(unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (fd < 0)
		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, req, ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int tun_get_mtu(const char *name, uint32_t *mtu)
{
	struct ifreq ifr;
	int ret;

	memset(&ifr, 0, sizeof(ifr));
	set_name(&ifr, name);
	ret = ifreq_ioctl(SIOCGIFMTU, &ifr);
	if (!ret)
		*mtu = (uint32_t)ifr.ifr_mtu;
	return ret;
}

int tun_set_mtu(const char *name, uint32_t mtu)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	set_name(&ifr, name);
	ifr.ifr_mtu = (int)mtu;
	return ifreq_ioctl(SIOCSIFMTU, &ifr);
}

int tun_create(const char *name)
{
	struct ifreq ifr;
	int fd, ret;

	if (strlen(name) >= IF_NAMESIZE)
		return -ENAMETOOLONG;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	if (!tun_offload_disabled())
		ifr.ifr_flags |= IFF_VNET_HDR;
	set_name(&ifr, name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = tun_set_mtu(ifr.ifr_name, TUN_DEFAULT_MTU);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int tun_adopt(int fd, char name[IF_NAMESIZE])
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(fd, TUNGETIFF, &ifr) < 0)
		return -errno;
	/* an inherited IFF_VNET_HDR device is fine: the runtime asks */
	if (!(ifr.ifr_flags & IFF_TUN) || !(ifr.ifr_flags & IFF_NO_PI))
		return -EINVAL;
	memcpy(name, ifr.ifr_name, IF_NAMESIZE);
	name[IF_NAMESIZE - 1] = '\0';
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

bool tun_offload_disabled(void)
{
	const char *v = getenv("ZINCTUN_NO_TUN_OFFLOAD");

	return v && *v && strcmp(v, "0") != 0;
}

#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#define TUN_F_USO6 0x40
#endif

int tun_setup_offload(int fd, bool *vnet_hdr, unsigned int *offloads)
{
	/* the most the kernel may accept first; older kernels lack USO */
	static const unsigned int tries[] = {
	    TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN | TUN_F_USO4 | TUN_F_USO6,
	    TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN,
	    TUN_F_CSUM,
	};
	struct ifreq ifr;
	int sz = 10; /* struct virtio_net_hdr */

	*vnet_hdr = false;
	*offloads = 0;
	memset(&ifr, 0, sizeof(ifr));
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
