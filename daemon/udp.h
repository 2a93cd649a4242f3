/* The UDP sockets: one IPv4 and one IPv6 (V6ONLY) on the same port. */
#ifndef ZT_UDP_H
#define ZT_UDP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "dpbuf.h"
#include "gso_path.h"
#include "wg/wg.h"

/* One generation of the sockets. udp_bind replaces the whole set, and a set
 * is closed only when its last reference goes ("Socket lifetime" in
 * doc/datapath.md): a thread that sends or receives on a set holds a
 * reference (udp_socks_hold / udp_socks_drop). */
struct udp_socks {
	int fd4, fd6;
	int refs; /* struct udp's own (while current) + one per thread using it */
};

struct udp {
	/* Taken inside every function below but the sends on a held set and
	 * the receive; a leaf (no lock is taken while it is held), guarding
	 * cur, retired and each set's refs. port and fwmark are written only
	 * under it and the engine lock (config.c), and read under either (see
	 * doc/datapath.md, "Concurrency"). */
	pthread_mutex_t lock;
	pthread_cond_t released; /* with lock: a replaced set was closed */
	struct udp_socks *cur;	 /* what new sends use */
	int retired;		 /* replaced sets still referenced */
	uint16_t port;
	uint32_t fwmark;
	int wake_fd;		    /* eventfd: tells the receive thread the sockets changed */
	struct gso_paths gso_paths; /* paths too small for a GSO run's segments */
};

/* gso: UDP_SEGMENT sends (ZINCTUN_NO_GSO=1: off); gro: UDP_GRO on the
 * sockets (ZINCTUN_NO_UDP_GRO=1: off). */
int udp_init(struct udp *u, bool gso, bool gro);
void udp_destroy(struct udp *u);
/* Binds new sockets on port (0: random, the same on both families) and
 * swaps them in; on failure the old ones stay. -EADDRINUSE if taken. The
 * old sockets close when their last user drops them: udp_wait_retired,
 * called without the engine lock (their users need it to drop them), waits
 * for that (at most UDP_RETIRE_WAIT_MS), as the kernel waits before closing. */
int udp_bind(struct udp *u, uint16_t port);
void udp_wait_retired(struct udp *u);
int udp_set_fwmark(struct udp *u, uint32_t mark);
/* *held becomes a reference to the current set (the one it held, if
 * another, is released). udp_socks_drop releases it (NULL after). */
void udp_socks_hold(struct udp *u, struct udp_socks **held);
void udp_socks_drop(struct udp *u, struct udp_socks **held);
/* Sends with the sticky source address if the endpoint has one, on the
 * current sockets. udp_send_on: on a held set, without the lock. */
int udp_send(struct udp *u, const struct wg_endpoint *to, const void *buf, size_t len);
int udp_send_on(const struct udp_socks *s, const struct wg_endpoint *to, const void *buf,
		size_t len);

/* A run of datagrams for one endpoint, back to back in buf: count of them,
 * each seg bytes except the last (<= seg). One UDP_SEGMENT (GSO) send when
 * GSO is on, a sendmmsg otherwise. */
struct udp_run {
	const struct wg_endpoint *to;
	uint8_t *buf;
	size_t len, seg;
	int count;
};
enum {
	UDP_RUN_MAX_SEGS = 64,
	UDP_RUN_MAX_BYTES = 65000, /* a GSO send is one UDP datagram to the kernel */
};
/* Builds runs as datagrams are laid out: the datagram of len bytes at buf
 * for "to" extends the last of runs[0, n) when it lies right after it, is
 * for the same endpoint, is no longer than the run's segments and the
 * run's last datagram is full-size, within UDP_RUN_MAX_*; may_extend false
 * always starts a new run (the caller's own reason, e.g. another peer).
 * runs needs room for one more. Returns the new count. */
int udp_runs_add(struct udp_run *runs, int n, bool may_extend, const struct wg_endpoint *to,
		 uint8_t *buf, size_t len);
/* On a held set s, without the lock. Returns how many datagrams went out
 * (failures are logged at debug). GSO
 * is switched off for good at its first EIO. A GSO send the path refuses
 * (segments above its MTU: EMSGSIZE, or EINVAL) goes out one datagram at a
 * time, which the kernel fragments, and that destination gets no GSO for
 * datagrams that large for a while (gso_path.h). */
int udp_send_runs(struct udp *u, const struct udp_socks *s, const struct udp_run *runs, int n);
/* Whether GSO sends are on (udp_init's gso, until GSO failed). */
bool udp_gso_enabled(void);
/* Whether the sockets coalesce what they receive (udp_init's gro, unless
 * the kernel refused UDP_GRO). */
bool udp_gro_enabled(void);

enum {
	UDP_RETIRE_WAIT_MS = 1000, /* udp_bind's wait for the old sockets' users */
};

struct udp_batch {
	struct mmsghdr msgs[UDP_BATCH];
	struct iovec iov[UDP_BATCH];
	struct sockaddr_storage from[UDP_BATCH];
	uint8_t ctrl[UDP_BATCH][128];
	uint8_t *bufs[UDP_BATCH]; /* in one zt_pages_alloc mapping, from bufs[0] */
	struct wg_endpoint ep[UDP_BATCH];
	size_t len[UDP_BATCH];
	size_t seg[UDP_BATCH]; /* UDP_GRO segment size, 0: one datagram */
};

int udp_batch_init(struct udp_batch *b);
void udp_batch_free(struct udp_batch *b);
/* Non-blocking: receives up to UDP_BATCH buffers from fd, fills ep/len/seg
 * (a buffer holds len / seg datagrams of seg bytes, the last shorter).
 * Returns the count (0 when nothing is waiting) or -errno. */
int udp_recv_batch(int fd, struct udp_batch *b);

#endif
