/* The data path: a thread per TUN queue (TUN -> encrypt -> UDP, tx.c) and
 * the UDP receive thread (UDP -> decrypt -> TUN, rx.c), in batches, with
 * the TUN and UDP offloads and a pool of crypto workers. It reaches the
 * TUN device only through tun.h's tun_read, tun_write and tun_write_gro.
 * Which thread owns which field: doc/datapath.md, "Concurrency". */
#ifndef ZT_DATAPATH_H
#define ZT_DATAPATH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offload.h"
#include "tun.h"
#include "workers.h"

struct zt;

/* One TUN queue and the thread that reads it. */
struct zt_tunq {
	struct zt *zt;
	int index; /* into tun.fd[] */
};

struct zt_datapath {
	struct tun_dev tun;		     /* written at init, read-only after */
	struct zt_tunq tunq[TUN_MAX_QUEUES]; /* one reader thread each */
	atomic_bool tun_gro; /* coalesce on TUN writes: off at the kernel's first refusal */
	int icmp_fd;	     /* raw IPv4 socket for ICMP errors from addrs.v4, or -1 */
	struct offload_stats offload_stats; /* TUN packets the segmenter dropped */
	struct wpool pool;		    /* crypto workers for both directions */
	bool rx_fanout;			    /* opens spread over the workers too */
	bool tx_fuse;			    /* super-packets sealed as they are segmented */
	bool pool_started;
	pthread_t threads[1 + TUN_MAX_QUEUES];
	int n_threads;
};

enum {
	/* a batch smaller than this is sealed/opened on the calling thread:
	 * waking a worker costs more than the crypto of a few small packets */
	DP_PAR_MIN_BYTES = 8 << 10,
	DP_MIN_SLICE = 8, /* packets per worker slice: less is not worth a wakeup */
	DP_BUSY_MAX = 64, /* batches in a row before a poll looks at stop_fd */
};

/* Takes ownership of tun_fd (the device's first queue): attaches the
 * other queues, sets the TUN offloads (as zt->opt allows), opens the ICMP
 * socket. At start-up,
 * after zt_init and before the sandbox. */
int zt_datapath_init(struct zt *zt, int tun_fd);
/* The same with an in-process device (tun.h's struct tun_sink, which must
 * outlive the data path) instead of a TUN: no queue to read, writes go to
 * the sink as whole IP packets, coalesced as zt->opt allows. */
int zt_datapath_init_sink(struct zt *zt, const struct tun_sink *sink);
/* Starts the crypto workers, then the UDP and TUN threads (after zt_start). */
int zt_datapath_start(struct zt *zt);
/* Requests the stop, joins the data path threads and the workers. */
void zt_datapath_stop(struct zt *zt);
/* Closes the TUN queues and the ICMP socket. */
void zt_datapath_destroy(struct zt *zt);

/* A transmit batch an in-process device fills with the packets it sends
 * (the kernel's TUN is read by zt_tun_main instead): zt_tx_add takes one
 * IP packet (sending the batch first when it is full), zt_tx_send routes,
 * seals and sends what it holds. Calls on one batch must not overlap (the
 * caller's lock); zt_tx_open returns NULL when out of memory (the TUN
 * readers take theirs from it too). Between zt_datapath_start and
 * zt_datapath_stop; the batch lives as long as the process. */
struct tx;
struct tx *zt_tx_open(struct zt *zt);
void zt_tx_add(struct tx *t, const uint8_t *pkt, size_t len);
void zt_tx_send(struct tx *t);

/* For tx.c, rx.c and their helpers. */
void *zt_tun_main(void *arg); /* arg: the struct zt_tunq of its queue */
void *zt_udp_main(void *arg);
/* One IP packet to TUN; a refusal is counted (zt_tun_refused). */
void zt_tun_write(struct zt *zt, const uint8_t *pkt, size_t len);
/* Counts n packets the device refused: drops.tun_full for the kernel's
 * TUN, drops.stack_refused for a sink. */
void zt_tun_refused(struct zt *zt, uint64_t n);
/* wpool_run's min_slice for a batch of n packets, bytes in all: the whole
 * batch (inline) when it is small. */
int zt_datapath_slice(int n, size_t bytes);

#endif
