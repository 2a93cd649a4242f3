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

enum {
	UDP_RETIRE_WAIT_MS = 1000, /* udp_bind's wait for the old sockets' users */
	UDP_RUN_MAX_SEGS = 64,
	UDP_RUN_MAX_BYTES = 65000, /* a GSO send is one UDP datagram to the kernel */
};

/* One generation of the sockets, closed when its last reference goes
 * ("Socket lifetime" in doc/datapath.md). */
struct udp_socks {
	int fd4, fd6;
	int refs; /* struct udp's own (while current) + one per thread using it */
};

struct udp {
	/* A leaf lock guarding cur, retired and refs; port and fwmark are
	 * written under it and the engine lock, read under either. */
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
/* Binds new sockets on port (0: random) and swaps them in; on failure the
 * old ones stay. udp_wait_retired, called without the engine lock (their
 * users need it to drop them), waits up to UDP_RETIRE_WAIT_MS for them. */
int udp_bind(struct udp *u, uint16_t port);
void udp_wait_retired(struct udp *u);
int udp_set_fwmark(struct udp *u, uint32_t mark);
/* *held becomes a reference to the current set, releasing an older one. */
void udp_socks_hold(struct udp *u, struct udp_socks **held);
void udp_socks_drop(struct udp *u, struct udp_socks **held);
/* Sends from the endpoint's sticky source address. udp_send_on: on a held
 * set, without the lock. */
/* ds: the outer IP header's DS field (TOS / traffic class), as the engine
 * chose it (wg_io.send). */
int udp_send(struct udp *u, const struct wg_endpoint *to, const void *buf, size_t len, uint8_t ds);
int udp_send_on(const struct udp_socks *s, const struct wg_endpoint *to, const void *buf,
		size_t len, uint8_t ds);

/* Datagrams for one endpoint, DS field and TTL back to back in buf, each seg
 * bytes but the last: one GSO send, or a sendmmsg. */
struct udp_run {
	const struct wg_endpoint *to;
	uint8_t ds, ttl; /* ttl: 0 for the system's */
	uint8_t *buf;
	size_t len, seg;
	int count;
};
/* Adds a datagram, extending the last run when it can carry it (adjacent,
 * same endpoint, DS field and TTL, fits, within UDP_RUN_MAX_*) and may_extend;
 * runs needs room for one more. Returns the new count. */
int udp_runs_add(struct udp_run *runs, int n, bool may_extend, const struct wg_endpoint *to,
		 uint8_t ds, uint8_t ttl, uint8_t *buf, size_t len);
/* On a held set, without the lock: how many datagrams went out. GSO goes
 * off for good at its first EIO; a run the path refuses goes out datagram
 * by datagram and its size is noted (gso_path.h). */
int udp_send_runs(struct udp *u, const struct udp_socks *s, const struct udp_run *runs, int n);
/* udp_init's gso and gro, unless the kernel refused them. */
bool udp_gso_enabled(void);
bool udp_gro_enabled(void);

struct udp_batch {
	struct mmsghdr msgs[UDP_BATCH];
	struct iovec iov[UDP_BATCH];
	struct sockaddr_storage from[UDP_BATCH];
	uint8_t ctrl[UDP_BATCH][128];
	uint8_t *bufs[UDP_BATCH]; /* in one zt_pages_alloc mapping, from bufs[0] */
	struct wg_endpoint ep[UDP_BATCH];
	size_t len[UDP_BATCH];
	size_t seg[UDP_BATCH]; /* UDP_GRO segment size, 0: one datagram */
	uint8_t ds[UDP_BATCH]; /* the outer DS field (IP_TOS / IPV6_TCLASS cmsg) */
};

int udp_batch_init(struct udp_batch *b);
void udp_batch_free(struct udp_batch *b);
/* Non-blocking: receives up to UDP_BATCH buffers (each len / seg datagrams,
 * the last shorter). Returns the count or -errno. */
int udp_recv_batch(int fd, struct udp_batch *b);

#endif
