/* zinctun-proxy: the daemon's runtime with lwIP in place of the TUN device,
 * serving the services of a wireproxy configuration file. */
#ifndef ZTP_PROXY_H
#define ZTP_PROXY_H

#include <stdint.h>

#include "loop.h"
#include "proxy_conf.h"
#include "stack.h"

enum {
	PROXY_IO_CHUNK = 65536,	     /* one read from a host socket */
	PROXY_CONNECT_BACKLOG = 255, /* lwIP keeps it in a u8_t */
	PROXY_DNS_PORT = 53,
	PROXY_DNS_TIMEOUT_MS = 2000, /* per try */
	PROXY_DNS_TRIES = 3,
	PROXY_UDP_SWEEP_MS = 1000,   /* how often idle UDP flows are looked for */
	PROXY_UDP_DGRAM_MAX = 65535, /* one datagram from a host socket */
	PROXY_UDP_READS = 32,	     /* datagrams read per readable event */
	/* a client has this long to authenticate and send its request */
	PROXY_REQUEST_DEADLINE_MS = 10000,
	/* then a connection in the tunnel from its accept is given up (HTTP: 504) */
	PROXY_CONNECT_TIMEOUT_MS = 20000,
	/* descriptors kept out of the services' shares (listeners, the
	 * tunnel's sockets, epoll, the configuration socket and its clients) */
	PROXY_FD_RESERVE = 64,
	PROXY_ACCEPT_BATCH = 16,     /* accepts per readable event */
	PROXY_ACCEPT_RETRY_MS = 250, /* out of descriptors: accept again after */
};

/* A named [Peer] Endpoint (endpoint.h): the addresses kept of it, and how
 * often it is looked up again at most while every one of them fails. */
enum {
	PROXY_ENDPOINT_ADDRS = 8,
	PROXY_ENDPOINT_LOOKUP_MS = 120000,
};

struct listener;

struct proxy {
	struct proxy_conf conf;
	struct stack stack;
	struct loop loop;
	uint8_t io[PROXY_IO_CHUNK]; /* under the core lock */
	struct udp_tunnel *udp;	    /* [UDPProxyTunnel]s */
	struct listener *listeners; /* [Socks5], [http], [TCPClientTunnel]s */
	struct conn *flushq;	    /* conns with tunnel bytes for their host (conn.h) */
};

#endif
