/* The TUN interface: creation, adoption of an inherited fd, MTU, and the
 * data path's packet I/O on its queues. */
#ifndef ZT_TUN_H
#define ZT_TUN_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

enum { TUN_MAX_QUEUES = 8 };

#define TUN_DEV "/dev/net/tun"
#define TUN_DRIVER "tun" /* ethtool's driver name of TUN and TAP devices */

/* Creates (or attaches to) the TUN interface "name" with IFF_TUN|IFF_NO_PI,
 * IFF_VNET_HDR if vnet_hdr (ZINCTUN_NO_TUN_OFFLOAD=1: not) and
 * IFF_MULTI_QUEUE if multi_queue (ZINCTUN_TUN_QUEUES above 1: the runtime
 * attaches the other queues, each read by its own thread), and sets the
 * default MTU. Returns the fd, or a negative errno with msg saying what went
 * wrong in the user's terms (missing CAP_NET_ADMIN or TUN_DEV, a link of
 * that name that is no TUN, another daemon on it). */
int tun_create(const char *name, bool vnet_hdr, bool multi_queue, char *msg, size_t msglen);
/* Opens one more queue of the multi-queue interface "name" (the same
 * flags as fd); returns the new fd or a negative errno, -EOPNOTSUPP if fd's
 * device has a single queue. */
int tun_attach_queue(int fd, const char *name);
/* Adopts an fd from WG_TUN_FD: fills the interface name. */
int tun_adopt(int fd, char name[IF_NAMESIZE]);
/* The device's current name; -EBADFD once it was deleted (the kernel
 * detaches every fd), while a move to another namespace keeps it. */
int tun_get_name(int fd, char name[IF_NAMESIZE]);
/* 1 if the device is in the network namespace whose nsfs file is (dev,
 * ino), 0 if elsewhere, or a negative errno (kernels before 5.2). */
int tun_netns_is(int fd, dev_t dev, ino_t ino);
int tun_get_mtu(const char *name, uint32_t *mtu);
/* If the device has IFF_VNET_HDR (tun_create sets it), sets the header
 * size and the richest offload set the kernel accepts (TUN_F_* bits in
 * *offloads; 0 if none). *vnet_hdr tells whether reads and writes carry
 * the 10-byte header. */
int tun_setup_offload(int fd, bool *vnet_hdr, unsigned int *offloads);

/* An in-process device in place of the kernel's TUN: a userspace IP stack
 * (zinctun-proxy's lwIP). The receive thread hands it each batch of
 * decrypted packets between begin and end, calling write once per whole
 * IP packet, without a system call or a thread in between; the stack
 * sends its own packets through a transmit batch of its own (zt_tx_open),
 * so no queue is read. A packet is plain IP with complete checksums: a
 * run of one flow's TCP segments comes as one packet (GRO_STACK), whose
 * TCP checksum fails if a member's would. Writes outside a batch may be
 * refused (-EAGAIN: dropped). */
struct tun_sink {
	void (*begin)(void *ctx);
	/* one IP packet in pieces; 0, or -errno (never -EINVAL) when refused */
	int (*write)(void *ctx, const struct iovec *iov, int n);
	void (*end)(void *ctx);
	void *ctx;
};

/* The device as the data path sees it. The data path reads and writes
 * packets only through the calls below, so another backend (a userspace
 * stack, through a sink) can stand in for the kernel's TUN. */
struct tun_dev {
	int fd[TUN_MAX_QUEUES];	     /* non-blocking; [0] is the device's first */
	int n_queues;		     /* 0 with a sink: nothing to read */
	bool vnet_hdr;		     /* reads and writes carry a virtio-net header */
	bool uso;		     /* coalesced UDP writes are taken (TUN_F_USO4) */
	const struct tun_sink *sink; /* writes go here instead, if set */
};

/* The descriptor to poll for queue q being readable. */
static inline int tun_queue_fd(const struct tun_dev *t, int q)
{
	return t->fd[q];
}
/* The queue (of n_queues) to write an inner packet to. With several
 * queues a flow is always written to the same one, by a hash of its
 * addresses and ports that is the same both ways: the kernel's tun driver
 * steers a flow's outgoing packets to the queue its incoming ones were
 * written to, so each reader thread gets whole flows. */
int tun_queue_of(const uint8_t *pkt, size_t len, int n_queues);
/* Reads one packet from queue q into buf: its length (the virtio-net
 * header first when vnet_hdr; 0 if nothing), or -errno (-EAGAIN: empty). */
ssize_t tun_read(const struct tun_dev *t, int q, uint8_t *buf, size_t len);
/* Writes one IP packet (behind an empty virtio-net header when vnet_hdr)
 * to the queue of its flow, or to the sink. 0, or -errno (a full queue, a
 * sink's refusal: drop). */
int tun_write(const struct tun_dev *t, const uint8_t *pkt, size_t len);
/* Writes one coalesced packet (gro_item_prepare): iov[0] its virtio-net
 * header (not for a sink), iov[1] the head packet, then the other members'
 * payloads. 0, or -errno (-EINVAL: the kernel takes no coalesced packets). */
int tun_write_gro(const struct tun_dev *t, const struct iovec *iov, int n);
/* Bracket a receive batch's writes (a sink takes them as one batch; the
 * kernel's TUN needs nothing). */
void tun_batch_begin(const struct tun_dev *t);
void tun_batch_end(const struct tun_dev *t);

#endif
