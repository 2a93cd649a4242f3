/* [Peer] Endpoints given as host names, followed while handshakes to them
 * fail: at a retry the next of the name's addresses (the other family
 * first) is tried; the name is looked up again when the list is unknown
 * (start, or after a completed handshake), at the engine's give-up, and
 * when every address failed and the last lookup is PROXY_ENDPOINT_LOOKUP_MS
 * old. The seccomp filter forbids what getaddrinfo needs (open, AF_UNIX),
 * so a helper process spawned before it (this program again, run as
 * ENDPOINT_HELPER_ARG, as nobody when root) does the lookups. */
#ifndef ZTP_ENDPOINT_H
#define ZTP_ENDPOINT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi_parse.h"
#include "wg/wg.h"

#define ENDPOINT_HELPER_ARG "--endpoint-helper"

struct host;

/* getaddrinfo's addresses for host:port (at most max, in its order): the
 * count, or an EAI_* code (negative). */
int endpoint_lookup(const char *host, uint16_t port, union uapi_sockaddr *out, int max);
/* Before endpoint_start: follow this peer's named Endpoint. */
int endpoint_watch(const uint8_t pub[WG_PUBLIC_KEY_LEN], const char *host, uint16_t port);
/* Spawns the helper when a peer is watched; before the threads start.
 * Without it (-errno) the names stay at their first address. */
int endpoint_start(struct host *h);
/* host_ops' pollfds and handle (the main thread). */
size_t endpoint_pollfds(struct host *h, struct pollfd *pfd);
bool endpoint_handle(struct host *h, const struct pollfd *pfd);
/* The helper: answers lookups on its descriptor until it closes. */
int endpoint_helper(void);

#endif
