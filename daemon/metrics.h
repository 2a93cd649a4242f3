/* The opt-in Prometheus endpoint (--metrics, ZINCTUN_METRICS): plain HTTP,
 * GET /metrics in the text exposition format, served by a thread of its
 * own with non-blocking sockets. Start-up order (the sandbox allows no new
 * listening socket path and no open() later):
 *   metrics_open()        before the sandbox and before daemonizing (a
 *                         taken port fails the start);
 *   metrics_open_proc()   after daemonizing (/proc/self is then ours);
 *   metrics_start()       after the sandbox, with the other threads;
 *   metrics_stop()        after zt_request_stop() (stop_fd is readable),
 *                         before zt_stop(), which tears down what it reads. */
#ifndef ZT_METRICS_H
#define ZT_METRICS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "buf.h"
#include "wg/wg.h"

struct zt_runtime;

enum {
	METRICS_MAX_CLIENTS = 64,	   /* more wait in the listen backlog */
	METRICS_MAX_REQUEST = 4096,	   /* a request head longer than this: 400 */
	METRICS_IDLE_TIMEOUT_MS = 5000,	   /* a client that neither sends nor reads */
	METRICS_BUSY_TIMEOUT_MS = 1000,	   /* the same, when a new client needs its slot */
	METRICS_REQUEST_TIMEOUT_MS = 5000, /* its whole request head, from accept */
	METRICS_BACKLOG = 1024,
	METRICS_MAX_RESPONSE = 1024u << 20,
	METRICS_NAMES_MAX_FILE = 1 << 20, /* --metrics-names: a wg-quick file, not a database */
	METRICS_NAME_MAX = 256,		  /* a longer friendly_name is left out */
};

struct metrics_client {
	int fd;
	size_t in_len;
	char in[METRICS_MAX_REQUEST];
	struct buf out;
	size_t out_off;
	bool writing;
	uint64_t start_ms; /* accepted */
	uint64_t last_ms;  /* last progress */
};

/* friendly_name labels (--metrics-names FILE) by peer public key. */
struct metrics_name {
	uint8_t key[WG_PUBLIC_KEY_LEN];
	const char *name; /* into text */
};
struct metrics_names {
	char *text; /* the file, its names NUL-terminated in place */
	struct metrics_name *v;
	size_t n;
};

/* What the process figures (and peer names) are read from, before the
 * sandbox. */
struct metrics_proc {
	int stat_fd;	      /* /proc/self/stat, pread at each scrape */
	uint64_t boot_time_s; /* btime of /proc/stat: start time is relative to it */
	struct metrics_names names;
};

struct metrics {
	int listen_fd; /* -1: off */
	struct metrics_proc proc;
	struct zt_runtime *zt;
	/* NULL: GET /metrics is metrics_render's text. Else every GET or HEAD
	 * is serve's: the path (without query, len bytes, not terminated) to
	 * a status and a text/plain body (empty: the status line's text). */
	int (*serve)(void *ctx, const char *path, size_t len, struct buf *body);
	void *serve_ctx;
	pthread_t thread;
	bool started;
	size_t n_clients;
	struct metrics_client clients[METRICS_MAX_CLIENTS];
};

/* Binds and listens on addr. 0 or a negative errno. */
int metrics_open(struct metrics *m, const struct sockaddr *addr, socklen_t len);
void metrics_open_proc(struct metrics *m);
int metrics_start(struct metrics *m, struct zt_runtime *zt);
void metrics_stop(struct metrics *m);

/* ---- metrics_http.c's parts, for tests ---- */

/* The status to answer a request head in buf[0..len): 0 while it is
 * incomplete (and may still be valid), 200 for GET (or HEAD) /metrics,
 * else 400, 404 or 405. */
int metrics_http_status(const char *buf, size_t len, bool *head_only);

/* ---- metrics_names.c ---- */

/* The names as prometheus_wireguard_exporter's -n takes them: in each
 * [Peer] (or systemd-networkd [WireGuardPeer]) section of a wg-quick file,
 * a comment "# friendly_name = NAME" names the section's PublicKey. text
 * (len bytes, NUL-terminated) is taken over and cut up. Sections without a
 * valid key, and names longer than METRICS_NAME_MAX or not UTF-8, are left
 * out. 0, or -ENOMEM (text freed). */
int metrics_names_parse(struct metrics_names *names, char *text, size_t len);
/* Reads path (at most METRICS_NAMES_MAX_FILE bytes) and parses it; 0 or a
 * negative errno (-EFBIG: too large). */
int metrics_names_load(struct metrics_names *names, const char *path);
/* The name of key (the last section naming it), or NULL. */
const char *metrics_names_find(const struct metrics_names *names,
			       const uint8_t key[WG_PUBLIC_KEY_LEN]);
void metrics_names_free(struct metrics_names *names);

/* ---- metrics_text.c ---- */

/* The exposition text for zt (its engine lock is taken only to copy the
 * figures; the text is written without it). False when out of memory. */
bool metrics_render(struct zt_runtime *zt, const struct metrics_proc *proc, struct buf *out);

#endif
