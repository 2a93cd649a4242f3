/* Host names resolved through the tunnel: an A (or AAAA) query over lwIP
 * UDP to the first [Interface] DNS server, proxy/dns.h for the messages.
 * Runs with the core lock held; the callback too. */
#ifndef ZTP_RESOLVE_H
#define ZTP_RESOLVE_H

#include "lwip/ip_addr.h"

struct stack;
struct resolve;

/* addr NULL: no answer (no server, NXDOMAIN, timeout). */
typedef void (*resolve_cb)(void *arg, const ip_addr_t *addr);

/* Starts a lookup; NULL when cb was called at once (an address literal,
 * or no lookup possible: no DNS server, a name too long, no memory). */
struct resolve *resolve_start(struct stack *s, const char *name, resolve_cb cb, void *arg);
/* Cancels a lookup in flight (cb is not called). */
void resolve_cancel(struct resolve *r);

#endif
