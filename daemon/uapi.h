/* The configuration socket /var/run/wireguard/<ifname>.sock: a poll-based
 * server with per-client buffers, run from the main thread. */
#ifndef ZT_UAPI_H
#define ZT_UAPI_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

#include "buf.h"

enum {
	UAPI_MAX_CLIENTS = 64,
	UAPI_MAX_REQUEST = 64 << 20,	 /* a set with very many peers */
	UAPI_MAX_RESPONSE = 1024u << 20, /* a get with very many peers */
	UAPI_CLIENT_TIMEOUT_MS = 30000,	 /* a silent client loses its slot */
	UAPI_BUSY_TIMEOUT_MS = 1000,	 /* the same while all slots are taken */
};

struct uapi_client {
	int fd;
	struct buf in, out;
	size_t out_off;
	size_t scanned; /* no blank line starts in in[0..scanned) */
	bool eof;
	bool closing; /* a malformed request: close once the answer is out */
	uint64_t last_active_ms;
};

struct uapi_ops {
	int (*get)(void *ctx, struct buf *out);
	int (*set)(void *ctx, const char *body, size_t len);
	void *ctx;
};

struct uapi_server {
	int listen_fd;
	bool own_path; /* we created the socket file and remove it on exit */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct uapi_ops ops;
	size_t n_clients;
	struct uapi_client clients[UAPI_MAX_CLIENTS];
	int reserve_fd; /* held for accepting at EMFILE (uapi.c); -1: none */
	bool starved;	/* out of descriptors: the listener is not polled */
};

/* Opens the socket, or adopts the listening inherited_fd (WG_UAPI_FD; -1:
 * none). -EADDRINUSE if another daemon answers on it. */
int uapi_open(struct uapi_server *s, const char *ifname, const struct uapi_ops *ops,
	      int inherited_fd);
/* The same at any path, with no inherited socket (zinctun-proxy's). */
int uapi_open_path(struct uapi_server *s, const char *path, const struct uapi_ops *ops);
void uapi_close(struct uapi_server *s);

/* Poll integration: fills at most max entries, returns the count. */
size_t uapi_pollfds(struct uapi_server *s, struct pollfd *pfd, size_t max);
/* Handles the events of the entries filled by uapi_pollfds. */
void uapi_handle(struct uapi_server *s, const struct pollfd *pfd, size_t n);
/* Milliseconds until the next client timeout (-1: none). */
int uapi_timeout_ms(struct uapi_server *s);

#endif
