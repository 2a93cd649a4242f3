/* One proxied TCP connection: a host socket spliced to an lwIP pcb, with
 * flow control both ways. Host bytes are read only while the pcb's send
 * buffer has room; tunnel bytes are acknowledged to lwIP (tcp_recved, which
 * opens its receive window) only once written to the host socket, so a
 * client that does not read stalls its own connection and holds at most
 * one window of memory. Before the splice, a front end (forward, SOCKS5,
 * HTTP) owns the host side. */
#ifndef ZTP_CONN_H
#define ZTP_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lwip/ip_addr.h"
#include "lwip/pbuf.h"
#include "lwip/tcp.h"

#include "loop.h"
#include "resolve.h"

struct proxy;
struct conn;

/* A destination the proxy refuses (addr.h): what front->connected() gets
 * as err (tcp_connect gives ERR_ARG only for NULL arguments, never ours). */
#define CONN_ERR_FORBIDDEN ERR_ARG

/* The service a conn came from: counts its conns, and is told when one
 * ends (its descriptor closed). */
struct conn_owner {
	size_t n, cap;					     /* conns open, at most */
	void (*ended)(struct conn_owner *o, struct conn *c); /* or NULL */
};

enum conn_state {
	CONN_FRONT,	      /* the front end reads the host side (handshake) */
	CONN_RESOLVING,	      /* waiting for DNS */
	CONN_CONNECTING,      /* tcp_connect in the tunnel is under way */
	CONN_HOST_CONNECTING, /* connect() to a local target is under way */
	CONN_RELAY,
};

/* A front end: its state (c->fe, zeroed), what it does first (NULL:
 * nothing), with its handshake bytes (NULL: admitted at once, none read)
 * and with the outcome of the connection in the tunnel (ok false: err says
 * why; the conn is closed after the call). */
struct conn_front {
	size_t fe_size;
	void (*opened)(struct conn *c);
	void (*readable)(struct conn *c);
	void (*connected)(struct conn *c, bool ok, err_t err);
	void (*closed)(struct conn *c); /* NULL or releases what the front holds */
	bool configured; /* connects to the configuration's Target: not refused (addr.h) */
};

struct conn {
	struct loop_handler h; /* first: the loop's pointer is the conn's */
	struct proxy *px;
	const struct conn_front *front;
	const void *svc; /* the service (struct proxy_listener) it came from */
	enum conn_state state;
	bool dead;
	bool aborted; /* its pcb was aborted: a callback of it returns ERR_ABRT */
	int fd;
	uint32_t ep; /* the epoll events asked for */
	struct tcp_pcb *pcb;
	struct pbuf *pending; /* tunnel bytes not yet written to the host */
	bool host_eof;	      /* the host sent FIN: ours went to the tunnel */
	bool tun_eof;	      /* the tunnel sent FIN */
	bool host_shut;	      /* our FIN went to the host */
	/* host bytes lwIP refused for now (tcp_write ERR_MEM); before the
	 * relay, the client's bytes read with the handshake */
	uint8_t *stash;
	size_t stash_len;
	struct resolve *dns;	 /* CONN_RESOLVING */
	struct conn *next_flush; /* on px->flushq: tunnel bytes to write */
	bool flush_queued;
	uint16_t port; /* where to connect once resolved */
	/* front end state */
	void *fe;
	/* the owner's bookkeeping: until its front end sets admitted (the
	 * client authenticated and sent its request), the conn waits in the
	 * owner's list, oldest first, and has a deadline */
	struct conn_owner *owner; /* NULL: none */
	bool admitted;
	uint64_t since_ms; /* accepted (CLOCK_MONOTONIC) */
	struct conn *older, *newer;
};

/* A new connection from an accepted host socket (non-blocking), or NULL
 * (fd closed). */
struct conn *conn_new(struct proxy *px, int fd, const struct conn_front *front, const void *svc);
/* For [TCPServerTunnel]: adopts a pcb lwIP accepted and a host socket being
 * connected (CONN_HOST_CONNECTING). */
struct conn *conn_new_accepted(struct proxy *px, struct tcp_pcb *pcb, int fd);
/* Connects in the tunnel to addr:port (front's connected() tells). */
void conn_connect(struct conn *c, const ip_addr_t *addr, uint16_t port);
/* The same for a host name (DNS through the tunnel) or address literal. */
void conn_connect_host(struct conn *c, const char *host, uint16_t port);
/* The client's request is in (admitted): data (copied) goes to the tunnel
 * once connected, the host is not read until then. False: c is closed. */
bool conn_admit(struct conn *c, const void *data, size_t len);
/* Starts splicing (after connected()). */
void conn_relay(struct conn *c);
/* Sends a short message to the host (a handshake answer). False on error. */
bool conn_send_host(struct conn *c, const void *data, size_t len);
/* After a batch of packets into lwIP (stack.h): writes what it brought
 * to the host sockets of the conns that got bytes or a FIN. */
void conn_flush_queued(void *px);
/* Closes both sides (an RST to the tunnel if abort) and retires the conn.
 * True if its pcb was aborted (a callback then returns ERR_ABRT). */
bool conn_close(struct conn *c, bool abort);

#endif
