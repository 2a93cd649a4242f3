/* TUN device setup through /dev/net/tun and interface ioctls. */
#include "tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "env.h"

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

/* The interface's driver name ("tun", "bridge", ...), from ethtool. */
static int link_driver(const char *name, char *driver, size_t len)
{
	struct ethtool_drvinfo info;
	struct ifreq ifr;
	int ret;

	memset(&info, 0, sizeof(info));
	memset(&ifr, 0, sizeof(ifr));
	info.cmd = ETHTOOL_GDRVINFO;
	set_name(&ifr, name);
	ifr.ifr_data = (void *)&info;
	ret = ifreq_ioctl(SIOCETHTOOL, &ifr);
	if (!ret)
		snprintf(driver, len, "%.*s", (int)sizeof(info.driver), info.driver);
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
		if (link_driver(name, driver, sizeof(driver)) == 0 && strcmp(driver, TUN_DRIVER)) {
			snprintf(msg, len, "interface %s exists and is not a TUN device (%s)", name,
				 driver);
			return;
		}
		if (if_nametoindex(name)) {
			snprintf(msg, len, "interface %s exists with other TUN flags (TAP or "
				 "multi-queue)", name);
			return;
		}
		break;
	}
	snprintf(msg, len, "cannot create TUN interface %s: %s", name, strerror(err));
}

int tun_create(const char *name, char *msg, size_t msglen)
{
	struct ifreq ifr;
	int fd, ret;

	if (strlen(name) >= IF_NAMESIZE) {
		snprintf(msg, msglen, "interface name too long");
		return -ENAMETOOLONG;
	}
	fd = open(TUN_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT || ret == -ENODEV || ret == -ENXIO)
			snprintf(msg, msglen, TUN_DEV " is missing (%s): load the tun module "
				 "or create the device node", strerror(-ret));
		else if (ret == -EACCES || ret == -EPERM)
			snprintf(msg, msglen, "cannot open " TUN_DEV " (%s): creating interface "
				 "%s needs root with CAP_NET_ADMIN", strerror(-ret), name);
		else
			snprintf(msg, msglen, "cannot open " TUN_DEV ": %s", strerror(-ret));
		return ret;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	if (!tun_offload_disabled())
		ifr.ifr_flags |= IFF_VNET_HDR;
	if (tun_queues_wanted() > 1)
		ifr.ifr_flags |= IFF_MULTI_QUEUE;
	set_name(&ifr, name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		ret = -errno;
		close(fd);
		explain_setiff(name, -ret, msg, msglen);
		return ret;
	}
	ret = tun_set_mtu(ifr.ifr_name, TUN_DEFAULT_MTU);
	if (ret) {
		close(fd);
		snprintf(msg, msglen, "cannot set the MTU of %s: %s", name, strerror(-ret));
		return ret;
	}
	return fd;
}

int tun_queues_wanted(void)
{
	const char *v = getenv("ZINCTUN_TUN_QUEUES");
	long n = v && *v ? strtol(v, NULL, 10) : 1;

	return n < 1 ? 1 : n > TUN_MAX_QUEUES ? TUN_MAX_QUEUES : (int)n;
}

int tun_attach_queue(int fd, const char *name)
{
	struct ifreq ifr;
	int q, ret;

	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(fd, TUNGETIFF, &ifr) < 0)
		return -errno;
	if (!(ifr.ifr_flags & IFF_MULTI_QUEUE))
		return -EOPNOTSUPP;
	q = open(TUN_DEV, O_RDWR | O_CLOEXEC);
	if (q < 0)
		return -errno;
	/* TUNGETIFF reports IFF_TUN|IFF_NO_PI|IFF_VNET_HDR|IFF_MULTI_QUEUE as
	 * set at creation; a queue must ask for the same */
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

int tun_get_name(int fd, char name[IF_NAMESIZE])
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
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

bool tun_offload_disabled(void)
{
	return env_on("ZINCTUN_NO_TUN_OFFLOAD");
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

/* ---- batched reads (io_uring, raw system calls: no liburing) ---- */

static int uring_setup(unsigned int entries, struct io_uring_params *p)
{
	long r = syscall(__NR_io_uring_setup, entries, p);

	return r < 0 ? -errno : (int)r;
}

static int uring_register(int fd, unsigned int op, const void *arg, unsigned int n)
{
	return syscall(__NR_io_uring_register, fd, op, arg, n) < 0 ? -errno : 0;
}

static void *map_ring(int fd, size_t len, uint64_t off)
{
	void *p =
	    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, (off_t)off);

	return p == MAP_FAILED ? NULL : p;
}

void tun_ring_free(struct tun_ring *r)
{
	if (r->sqe_map)
		munmap(r->sqe_map, r->sqe_len);
	if (r->cq_map && r->cq_map != r->sq_map)
		munmap(r->cq_map, r->cq_len);
	if (r->sq_map)
		munmap(r->sq_map, r->sq_len);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* Only IORING_OP_READ, no SQE flags, no registration once enabled: the
 * ring can do nothing read(2) could not. (The TUN fd is not registered as
 * a fixed file: the ring would keep the device alive until its deferred
 * teardown, after the daemon exits.) */
static int restrict_ring(int fd)
{
	struct io_uring_restriction res[1];
	int ret;

	memset(res, 0, sizeof(res));
	res[0].opcode = IORING_RESTRICTION_SQE_OP;
	res[0].sqe_op = IORING_OP_READ;
	ret = uring_register(fd, IORING_REGISTER_RESTRICTIONS, res, 1);
	if (ret)
		return ret;
	return uring_register(fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
}

int tun_ring_init(struct tun_ring *r, int tun_fd, unsigned int entries)
{
	struct io_uring_params p;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	/* opt-in: fewer system calls per packet, but in bench-tunnel's
	 * unlimited-rate UDP runs the drops only move from the TUN queue to
	 * the receiving application's socket (see doc/datapath.md) */
	if (!env_on("ZINCTUN_URING"))
		return -ENOTSUP;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_R_DISABLED;
	ret = uring_setup(entries, &p);
	if (ret < 0)
		return ret;
	r->fd = ret;
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_len > r->sq_len)
			r->sq_len = r->cq_len;
		r->cq_len = r->sq_len;
	}
	r->sq_map = map_ring(r->fd, r->sq_len, IORING_OFF_SQ_RING);
	if (r->sq_map && (p.features & IORING_FEAT_SINGLE_MMAP))
		r->cq_map = r->sq_map;
	else if (r->sq_map)
		r->cq_map = map_ring(r->fd, r->cq_len, IORING_OFF_CQ_RING);
	r->sqe_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqe_map = map_ring(r->fd, r->sqe_len, IORING_OFF_SQES);
	if (!r->sq_map || !r->cq_map || !r->sqe_map) {
		ret = -ENOMEM;
		goto fail;
	}
	r->sq_head = (uint32_t *)((uint8_t *)r->sq_map + p.sq_off.head);
	r->sq_tail = (uint32_t *)((uint8_t *)r->sq_map + p.sq_off.tail);
	r->sq_mask = (uint32_t *)((uint8_t *)r->sq_map + p.sq_off.ring_mask);
	r->sq_array = (uint32_t *)((uint8_t *)r->sq_map + p.sq_off.array);
	r->cq_head = (uint32_t *)((uint8_t *)r->cq_map + p.cq_off.head);
	r->cq_tail = (uint32_t *)((uint8_t *)r->cq_map + p.cq_off.tail);
	r->cq_mask = (uint32_t *)((uint8_t *)r->cq_map + p.cq_off.ring_mask);
	r->cqes = (uint8_t *)r->cq_map + p.cq_off.cqes;
	r->sqes = r->sqe_map;
	r->entries = p.sq_entries < entries ? p.sq_entries : entries;
	r->tun_fd = tun_fd;
	ret = restrict_ring(r->fd);
	if (ret)
		goto fail;
	return 0;
fail:
	tun_ring_free(r);
	return ret;
}

static int ring_enter(int fd, unsigned int submit, unsigned int wait)
{
	long ret;

	do
		ret =
		    syscall(__NR_io_uring_enter, fd, submit, wait, IORING_ENTER_GETEVENTS, NULL, 0);
	while (ret < 0 && errno == EINTR && !submit);
	return ret < 0 ? -errno : (int)ret;
}

int tun_ring_read(struct tun_ring *r, uint8_t *const *bufs, size_t len, int n, int32_t *res)
{
	struct io_uring_sqe *sqes = r->sqes;
	const struct io_uring_cqe *cqes = r->cqes;
	uint32_t tail = *r->sq_tail, mask = *r->sq_mask, head;
	int got = 0, ret;

	if (n > (int)r->entries)
		n = (int)r->entries;
	for (int i = 0; i < n; i++) {
		uint32_t idx = (tail + (uint32_t)i) & mask;
		struct io_uring_sqe *q = &sqes[idx];

		memset(q, 0, sizeof(*q));
		q->opcode = IORING_OP_READ;
		q->fd = r->tun_fd;
		q->off = (uint64_t)-1;
		q->rw_flags = RWF_NOWAIT; /* EAGAIN, not a wait for data */
		q->addr = (uint64_t)(uintptr_t)bufs[i];
		q->len = (uint32_t)len;
		q->user_data = (uint64_t)i;
		r->sq_array[idx] = idx;
		res[i] = -EAGAIN;
	}
	__atomic_store_n(r->sq_tail, tail + (uint32_t)n, __ATOMIC_RELEASE);
	/* the TUN fd is non-blocking: every read ends (data or EAGAIN) within
	 * the call, so waiting for all n does not sleep on the queue */
	ret = ring_enter(r->fd, (unsigned int)n, (unsigned int)n);
	if (ret < 0)
		return ret;
	if (ret != n)
		return -EIO; /* a read was refused: SQEs left behind, give up the ring */
	head = *r->cq_head;
	while (got < n) {
		if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
			ret = ring_enter(r->fd, 0, (unsigned int)(n - got));
			if (ret < 0)
				return ret;
			continue;
		}
		const struct io_uring_cqe *c = &cqes[head & *r->cq_mask];

		if (c->user_data < (uint64_t)n)
			res[c->user_data] = c->res;
		head++;
		got++;
	}
	__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	return 0;
}
