/* The data path: the UDP receive thread (UDP -> TUN, rx.c; it reads TUN
 * queue 0 too) and a thread per further TUN queue (TUN -> UDP, tx.c), in
 * batches, with a pool of crypto workers. Which thread owns which field: doc/datapath.md,
 * "Concurrency". */
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

struct zt_runtime;

/* One TUN queue and the thread that reads it. */
struct zt_tunq {
	struct zt_runtime *zt;
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
	DP_PAR_MIN_BYTES = 8 << 10, /* less is sealed inline: a wake-up costs more */
	DP_MIN_SLICE = 8,	    /* packets per worker slice: less is not worth a wakeup */
	DP_BUSY_MAX = 64,	    /* batches in a row before a poll looks at stop_fd */
};

/* Takes tun_fd (the first queue): attaches the others, sets the offloads,
 * opens the ICMP socket. After zt_init, before the sandbox. */
int zt_datapath_init(struct zt_runtime *zt, int tun_fd);
/* The same with an in-process device, which must outlive the data path. */
int zt_datapath_init_sink(struct zt_runtime *zt, const struct tun_sink *sink);
/* Starts the crypto workers, then the UDP and TUN threads (after zt_start). */
int zt_datapath_start(struct zt_runtime *zt);
/* Requests the stop, joins the data path threads and the workers. */
void zt_datapath_stop(struct zt_runtime *zt);
/* Closes the TUN queues and the ICMP socket. */
void zt_datapath_destroy(struct zt_runtime *zt);

/* A transmit batch an in-process device fills (zt_tx_add sends a full one
 * first; zt_tx_send seals and sends). Calls on one batch must not overlap;
 * NULL when out of memory. It lives as long as the process. */
struct tx;
struct tx *zt_tx_open(struct zt_runtime *zt);
void zt_tx_add(struct tx *t, const uint8_t *pkt, size_t len);
void zt_tx_send(struct tx *t);
/* TUN queue q's batch for a thread that polls it with other descriptors:
 * zt_tx_turn reads what the queue has and sends it (the packets read, -1:
 * stop; *more: the read stopped for room). */
struct tx *zt_tx_open_queue(struct zt_runtime *zt, int q);
int zt_tx_turn(struct tx *t, bool *more);
void zt_tx_close(struct tx *t);

/* For tx.c, rx.c and their helpers. */
void *zt_tun_main(void *arg); /* arg: the struct zt_tunq of its queue */
void *zt_udp_main(void *arg);
/* One IP packet to TUN; a refusal is counted (zt_tun_refused). */
void zt_tun_write(struct zt_runtime *zt, const uint8_t *pkt, size_t len);
/* Counts refused packets: drops.tun_full, or drops.stack_refused for a sink. */
void zt_tun_refused(struct zt_runtime *zt, uint64_t n);
/* wpool_run's min_slice for n packets of bytes in all (n: inline). */
int zt_datapath_slice(int n, size_t bytes);

#endif
