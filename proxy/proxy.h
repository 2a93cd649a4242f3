/* zinctun-proxy: the daemon's runtime with lwIP in place of the TUN device,
 * serving the services of a wireproxy configuration file. */
#ifndef ZTP_PROXY_H
#define ZTP_PROXY_H

#include <stdint.h>
#include <sys/socket.h>

#include "loop.h"
#include "proxy_conf.h"
#include "stack.h"

enum {
	PROXY_IO_CHUNK = 65536,	     /* one read from a host socket */
	PROXY_CONNECT_BACKLOG = 255, /* lwIP keeps it in a u8_t */
	PROXY_DNS_PORT = 53,
	PROXY_DNS_TIMEOUT_MS = 2000, /* per try */
	PROXY_DNS_TRIES = 3,
	PROXY_UDP_SWEEP_MS = 1000, /* how often idle UDP flows are looked for */
};

struct proxy {
	struct proxy_conf conf;
	struct stack stack;
	struct loop loop;
	uint8_t io[PROXY_IO_CHUNK]; /* under the core lock */
	struct udp_tunnel *udp;	    /* [UDPProxyTunnel]s */
	struct listener *paused;    /* listeners out of descriptors */
	struct conn *flushq;	    /* conns with tunnel bytes for their host (conn.h) */
};

/* Opens every service's listener; errors say FILE:LINE. */
int services_open(struct proxy *px, const char *file);
/* Listeners paused for want of descriptors listen again (a conn ended). */
void services_resume(struct proxy *px);
/* Milliseconds until the services want a tick (idle UDP flows). */
uint64_t services_tick(void *px);

/* The front ends (a conn's host side before the splice). */
void forward_accepted(struct proxy *px, int fd, const struct proxy_listener *svc);
void socks_accepted(struct proxy *px, int fd, const struct proxy_listener *svc);
void http_accepted(struct proxy *px, int fd, const struct proxy_listener *svc);
int tcp_server_open(struct proxy *px, const struct proxy_listener *svc);
int udp_tunnel_open(struct proxy *px, const struct proxy_listener *svc);
uint64_t udp_tunnel_sweep(struct proxy *px);
/* SOCKS5 UDP ASSOCIATE: a relay socket for the conn c (its reply is sent
 * here); released when the TCP connection ends. */
struct conn;
struct udp_relay;
int socks_udp_associate(struct conn *c, struct udp_relay **out);
void socks_udp_release(struct udp_relay *r);

/* proxy_ip / lwIP address conversions; a numeric host:port as a socket
 * address. */
void proxy_ip_to_lwip(const struct proxy_ip *in, ip_addr_t *out);
socklen_t proxy_sockaddr(const struct proxy_hostport *hp, struct sockaddr_storage *ss);

#endif
