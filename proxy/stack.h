/* lwIP as the tunnel's IP stack: one point-to-point netif whose packets go
 * to and come from the daemon's data path (runtime.c) through a packet
 * socket pair that stands where the TUN device would. */
#ifndef ZTP_STACK_H
#define ZTP_STACK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lwip/ip_addr.h"
#include "lwip/netif.h"

struct stack {
	struct netif netif;
	int fd; /* our end of the pair; the daemon reads and writes the other */
	uint32_t mtu;
	bool has4, has6;
	ip4_addr_t addr4;
	ip6_addr_t addr6;
	ip_addr_t dns; /* [Interface] DNS (first), IPADDR_ANY if none */
	bool has_dns;
	uint8_t out[65536]; /* a chained pbuf flattened (under the core lock) */
	pthread_t reader;
	bool reader_started;
	/* Packets go into lwIP in batches; while one is in (under the core
	 * lock) in_batch is set, and after it end_batch(end_ctx) runs, still
	 * under the lock: what the batch's callbacks deferred is done there
	 * (one write to a host socket for many segments). */
	bool in_batch;
	void (*end_batch)(void *ctx);
	void *end_ctx;
};

/* Starts lwIP's tcpip thread and adds the netif with the given addresses
 * (either may be absent); fd is our end of the packet pair. */
int stack_init(struct stack *s, int fd, uint32_t mtu, const ip4_addr_t *a4, const ip6_addr_t *a6);
/* The thread that reads packets from the pair into lwIP. */
int stack_start(struct stack *s);

#endif
