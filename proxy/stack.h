/* lwIP as the tunnel's IP stack: one point-to-point netif that stands
 * where the TUN device would. The data path's receive thread hands it
 * decrypted packets through a tun_sink (daemon/tun.h), and the packets
 * lwIP sends are sealed and sent by the thread that made them (a
 * zt_tx_open batch): no thread or system call in between either way. */
#ifndef ZTP_STACK_H
#define ZTP_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "lwip/ip_addr.h"
#include "lwip/netif.h"

#include "proxy_conf.h"
#include "tun.h"

struct tx;
struct zt_runtime;

/* lwIP's state is guarded by its core lock (LOCK_TCPIP_CORE). Every
 * thread that runs lwIP takes it: the data path's receive thread for a
 * batch of packets (through the sink), the proxy's event loop (through
 * stack_lock), lwIP's own tcpip thread for its timers. The fields below
 * are read and written under it. */
struct stack {
	struct netif netif;
	struct tun_sink sink; /* the data path's way in (stack_init fills it) */
	struct tx *tx;	      /* what lwIP sends: sealed and sent on its thread */
	uint32_t mtu;
	bool has4, has6; /* the tunnel has an address of the family */
	ip_addr_t dns;	 /* [Interface] DNS (first), IPADDR_ANY if none */
	bool has_dns;
	uint8_t out[65536]; /* a chained pbuf flattened */
	/* sending (stack_set_open); before and after, what
	 * lwIP sends is dropped (TCP retransmits) */
	bool open;
	/* the lock is held by a batch or stack_lock: what lwIP sends waits
	 * in tx for its end (one system call for many packets); else
	 * (lwIP's timers) it goes at once */
	bool held;
	bool sending; /* tx is being sent: a packet written back is dropped */
	/* Packets go into lwIP in batches; while one is in, in_batch is set,
	 * and after it end_batch(end_ctx) runs, still under the lock: what
	 * the batch's callbacks deferred is done there (one write to a host
	 * socket for many segments). */
	bool in_batch;
	void (*end_batch)(void *ctx);
	void *end_ctx;
};

/* Starts lwIP's tcpip thread, adds the netif with the first IPv4 and IPv6
 * Address of ifc (either may be absent), MTU and DNS, and fills s->sink
 * (for zt_datapath_init_sink); what lwIP sends goes through zt's data path. */
int stack_init(struct stack *s, struct zt_runtime *zt, const struct proxy_interface *ifc);
/* Sending starts (after zt_datapath_start) and stops (before
 * zt_datapath_stop). */
void stack_set_open(struct stack *s, bool open);
/* The core lock, for anything else that runs lwIP: what lwIP sends
 * meanwhile goes out at stack_unlock, as one batch. */
void stack_lock(struct stack *s);
void stack_unlock(struct stack *s);

#endif
