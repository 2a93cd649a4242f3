/* The TUN interface: creation, adoption of an inherited fd, MTU, and the
 * data path's packet I/O on its queues. */
#ifndef ZT_TUN_H
#define ZT_TUN_H

#include <linux/if_tun.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

enum { TUN_MAX_QUEUES = 8 };

#ifndef TUN_F_USO4 /* UDP segmentation offload: Linux 6.2 and its headers */
#define TUN_F_USO4 0x20
#define TUN_F_USO6 0x40
#endif

#define TUN_DEV "/dev/net/tun"
#define TUN_DRIVER "tun" /* ethtool's driver name of TUN and TAP devices */

/* Creates (or attaches to) TUN interface "name" and sets the default MTU.
 * Returns the fd, or a negative errno with msg in the user's terms. */
int tun_create(const char *name, bool vnet_hdr, bool multi_queue, char *msg, size_t msglen);
/* Opens one more queue like fd; -EOPNOTSUPP if it has a single queue. */
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
/* With IFF_VNET_HDR: sets the header size and the richest TUN_F_* set the
 * kernel accepts (*offloads). *vnet_hdr: reads and writes carry the header. */
int tun_setup_offload(int fd, bool *vnet_hdr, unsigned int *offloads);

/* An in-process stack in place of the kernel's TUN (zinctun-proxy's lwIP):
 * the receive thread writes each batch's plain IP packets (complete
 * checksums; a TCP run as one, GRO_STACK) between begin and end; the stack
 * sends through its own zt_tx_open batch. Writes outside a batch may be
 * refused (-EAGAIN). */
struct tun_sink {
	void (*begin)(void *ctx);
	/* one IP packet in pieces; 0, or -errno (never -EINVAL) when refused */
	int (*write)(void *ctx, const struct iovec *iov, int n);
	void (*end)(void *ctx);
	void *ctx;
};

/* The device as the data path sees it: only through the calls below, so a
 * sink can stand in for the kernel's TUN. */
struct tun_dev {
	int fd[TUN_MAX_QUEUES];	     /* non-blocking; [0] is the device's first */
	int n_queues;		     /* 0 with a sink: nothing to read */
	bool vnet_hdr;		     /* reads and writes carry a virtio-net header */
	bool uso;		     /* coalesced UDP writes are taken (TUN_F_USO4) */
	const struct tun_sink *sink; /* writes go here instead, if set */
};

/* The queue for a packet: a hash of its flow, the same both ways, since the
 * kernel steers a flow's outgoing packets to the queue its incoming ones
 * were written to, so each reader thread gets whole flows. */
int tun_queue_of(const uint8_t *pkt, size_t len, int n_queues);
/* One packet from queue q (behind the virtio-net header when vnet_hdr): its
 * length, or -errno (-EAGAIN: empty). */
ssize_t tun_read(const struct tun_dev *t, int q, uint8_t *buf, size_t len);
/* One IP packet to its flow's queue or the sink; 0, or -errno: drop. */
int tun_write(const struct tun_dev *t, const uint8_t *pkt, size_t len);
/* One coalesced packet as gro_item_prepare laid it out (iov[0], the
 * header, not for a sink). -EINVAL: the kernel takes no coalesced ones. */
int tun_write_gro(const struct tun_dev *t, const struct iovec *iov, int n);
/* Bracket a receive batch's writes (for a sink). */
void tun_batch_begin(const struct tun_dev *t);
void tun_batch_end(const struct tun_dev *t);

#endif
