/* The running daemon: the engine under one lock, and the threads that feed
 * it (TUN reader, UDP receiver, handshake worker, timer). */
#ifndef ZT_RUNTIME_H
#define ZT_RUNTIME_H

#include <net/if.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "clock.h"
#include "drops.h"
#include "enginelock.h"
#include "hsqueue.h"
#include "ifaddr.h"
#include "offload.h"
#include "tun.h"
#include "udp.h"
#include "wg/wg.h"
#include "workers.h"

struct zt;

/* One TUN queue and the thread that reads it (queue 0 is tun_fd). */
struct zt_tunq {
	struct zt *zt;
	int fd;
};

/* Which thread owns what, which lock guards which field (the engine lock:
 * mtu, timer_deadline, udp's sets; atomics; fields fixed before zt_start):
 * see doc/datapath.md, "Concurrency". */
struct zt {
	pthread_mutex_t lock; /* the engine lock: every wg_device_* call (enginelock.h) */
	ZT_LOCKSTAT_DECL
	struct wg_device *dev;
	struct udp udp;
	struct hsqueue hsq; /* incoming handshake messages, bounded */
	int tun_fd;
	struct zt_tunq tunq[TUN_MAX_QUEUES]; /* [0].fd == tun_fd */
	int n_tunq;
	char ifname[IF_NAMESIZE];
	int ifindex;
	uint32_t mtu;
	_Atomic uint32_t tx_mtu; /* mtu, readable without the lock */
	bool vnet_hdr;           /* TUN reads/writes carry a virtio-net header */
	atomic_bool tun_gro;     /* coalesce TCP segments on TUN writes */
	bool tun_uso;            /* ... and UDP datagrams (USO) */
	struct if_addrs addrs;   /* the interface's, under the lock (ICMP source) */
	int icmp_fd;             /* raw IPv4 socket for ICMP errors from addrs.v4, or -1 */
	struct offload_stats offload_stats; /* TUN packets the segmenter dropped */
	struct zt_drops drops;              /* the daemon's other drops */
	int stop_fd; /* eventfd, readable once a stop was requested */
	atomic_bool stopping;
	int timer_fd;            /* the timer thread's alarm (clock.h) */
	uint64_t timer_deadline; /* when it is set to go off (ZT_CLOCK ns) */
	struct zt_dp_options opt; /* the switches zt_init was given */
	struct wpool pool; /* crypto workers for both directions */
	bool rx_fanout;    /* opens spread over the workers too (zt_start) */
	bool tx_fuse;      /* super-packets sealed as they are segmented */
	bool pool_started;
	pthread_t threads[3 + TUN_MAX_QUEUES];
	int n_threads;
};

/* Takes ownership of tun_fd; creates the engine and binds a random port,
 * with the data path's switches in opt. */
int zt_init(struct zt *zt, int tun_fd, const char *ifname, const struct zt_dp_options *opt);
int zt_start(struct zt *zt);
/* Safe from any thread; the main loop sees stop_fd become readable. */
void zt_request_stop(struct zt *zt);
/* Stops and joins the threads. */
void zt_stop(struct zt *zt);
void zt_destroy(struct zt *zt);
/* zt_timers_changed (declared in enginelock.h): zt_engine_unlock calls it,
 * so every release of the engine lock wakes the timer thread when the
 * engine's next deadline became sooner than it planned. */
/* The TUN MTU changed (netlink). Takes the lock. */
void zt_set_mtu(struct zt *zt, uint32_t mtu);

#endif
