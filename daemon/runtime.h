/* The running daemon: the engine under one lock, the handshake and timer
 * threads, and the data path's state (datapath.h). */
#ifndef ZT_RUNTIME_H
#define ZT_RUNTIME_H

#include <net/if.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "clock.h"
#include "datapath.h"
#include "enginelock.h"
#include "hsqueue.h"
#include "ifaddr.h"
#include "udp.h"
#include "wg/wg.h"

struct zt_runtime;

/* Packets dropped around the engine (it counts its own): relaxed atomics,
 * touched on error paths only. */
struct zt_drops {
	atomic_uint_least64_t tun_full;	     /* a TUN write refused (queue full, link down) */
	atomic_uint_least64_t stack_refused; /* packets an in-process stack did not take */
	atomic_uint_least64_t socket_error;  /* datagrams the UDP socket did not send */
	atomic_uint_least64_t
	    handshake_queue_full;	    /* handshake messages the queue had no room for */
	atomic_uint_least64_t unrecognised; /* datagrams of no message type (junk, mismatch) */
};

static inline void zt_drops_add(atomic_uint_least64_t *counter, uint64_t n)
{
	atomic_fetch_add_explicit(counter, n, memory_order_relaxed);
}

static inline uint64_t zt_drops_read(atomic_uint_least64_t *counter)
{
	return atomic_load_explicit(counter, memory_order_relaxed);
}

/* Which thread owns and which lock guards each field: doc/datapath.md,
 * "Concurrency" (the engine lock: mtu, timer_deadline, udp's sets). */
struct zt_runtime {
	pthread_mutex_t lock; /* the engine lock: every wg_device_* call (enginelock.h) */
	uint64_t lock_now;    /* env.now_ns's reading in this hold of it, 0 until read */
	ZT_LOCKSTAT_DECL
	struct wg_device *dev;
	struct udp udp;
	struct hsqueue hsq;    /* incoming handshake messages, bounded */
	struct zt_datapath dp; /* the data path's own (datapath.h) */
	char ifname[IF_NAMESIZE];
	int ifindex;
	uint32_t mtu;
	_Atomic uint32_t tx_mtu; /* mtu, readable without the lock */
	struct if_addrs addrs;	 /* the interface's, under the lock (ICMP source) */
	struct zt_drops drops;	 /* the daemon's drops around the engine */
	int stop_fd;		 /* eventfd, readable once a stop was requested */
	atomic_bool stopping;
	int timer_fd;		  /* the timer thread's alarm (clock.h) */
	uint64_t timer_deadline;  /* when it is set to go off (ZT_CLOCK ns) */
	struct zt_dp_options opt; /* the switches zt_init was given */
	pthread_t threads[2];
	int n_threads;
	/* told of each engine event after the log, under the engine lock;
	 * set before the threads start (the proxy's named endpoints) */
	void (*on_event)(const struct wg_event *ev);
};

/* Creates the engine and binds a random port (then zt_datapath_init). */
int zt_init(struct zt_runtime *zt, const char *ifname, const struct zt_dp_options *opt);
/* Starts the timer and handshake threads (then zt_datapath_start). */
int zt_start(struct zt_runtime *zt);
/* Safe from any thread; the main loop sees stop_fd become readable. */
void zt_request_stop(struct zt_runtime *zt);
/* Stops and joins the timer and handshake threads (after zt_datapath_stop). */
void zt_stop(struct zt_runtime *zt);
void zt_destroy(struct zt_runtime *zt);
/* The TUN MTU changed (netlink). Takes the lock. */
void zt_set_mtu(struct zt_runtime *zt, uint32_t mtu);

#endif
