/* The metrics endpoint's HTTP server (see metrics.h): one thread, poll,
 * non-blocking sockets, a bounded set of clients, one request per
 * connection. A client that stops reading or never finishes its request
 * loses its slot after METRICS_IDLE_TIMEOUT_MS, or after
 * METRICS_BUSY_TIMEOUT_MS when a new client needs the slot: it can delay
 * nobody for long. The tunnel never waits for it either: the thread takes
 * the engine lock only to copy figures. */
#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "runtime.h"

enum {
	ACCEPTS_PER_WAKE = 64, /* then the clients get their turn */
	DRAIN_MAX = 4096,      /* unread input read before close (else an RST) */
};

int metrics_open(struct metrics *m, const struct sockaddr *addr, socklen_t len)
{
	int one = 1;

	m->listen_fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	m->proc.stat_fd = -1;
	if (m->listen_fd < 0)
		return -errno;
	setsockopt(m->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(m->listen_fd, addr, len) < 0 || listen(m->listen_fd, METRICS_BACKLOG) < 0) {
		int err = errno;

		close(m->listen_fd);
		m->listen_fd = -1;
		return -err;
	}
	return 0;
}

static const char *reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 500:
		return "Internal Server Error";
	case 503:
		return "Service Unavailable";
	default:
		return "Bad Request";
	}
}

/* The whole answer into c->out. */
static void respond(struct metrics *m, struct metrics_client *c, int status, bool head_only)
{
	struct buf body;
	bool ok;

	buf_init(&body, METRICS_MAX_RESPONSE);
	if (m->serve && (status == 200 || status == 404)) {
		/* the target, up to its query: the request line was checked */
		const char *t = (const char *)memchr(c->in, ' ', c->in_len) + 1;

		status = m->serve(m->serve_ctx, t, strcspn(t, " ?"), &body);
	} else if (status == 200 && !metrics_render(m->zt, &m->proc, &body)) {
		buf_free(&body);
		buf_init(&body, METRICS_MAX_RESPONSE);
		status = 500;
	}
	if (status != 200 && !body.len)
		buf_printf(&body, "%d %s\n", status, reason(status));
	ok = buf_printf(&c->out,
			"HTTP/1.1 %d %s\r\n"
			"Content-Type: %s\r\n"
			"Content-Length: %zu\r\n"
			"%s"
			"Connection: close\r\n\r\n",
			status, reason(status),
			status == 200 && !m->serve ? "text/plain; version=0.0.4; charset=utf-8"
						   : "text/plain; charset=utf-8",
			body.len, status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (ok && !head_only)
		buf_append(&c->out, body.data, body.len);
	buf_free(&body);
	c->writing = true;
	c->out_off = 0;
}

/* ---- clients ---- */

static void drop_client(struct metrics *m, size_t i)
{
	struct metrics_client *c = &m->clients[i];
	char sink[DRAIN_MAX];

	/* read what the client sent past its request, so that close sends a
	 * FIN after the answer rather than an RST that could discard it */
	while (recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
	close(c->fd);
	buf_free(&c->out);
	m->n_clients--;
	if (i != m->n_clients) {
		/* the last client moves into the slot (its buffers by value) */
		memcpy(c, &m->clients[m->n_clients], sizeof(*c));
	}
}

/* When c loses its slot: after METRICS_IDLE_TIMEOUT_MS without progress,
 * and while its request is incomplete, METRICS_REQUEST_TIMEOUT_MS after
 * it came, however it trickles (one byte a second would else hold the slot
 * for an hour). */
static uint64_t client_due(const struct metrics_client *c)
{
	uint64_t due = c->last_ms + METRICS_IDLE_TIMEOUT_MS;

	if (!c->writing && c->start_ms + METRICS_REQUEST_TIMEOUT_MS < due)
		due = c->start_ms + METRICS_REQUEST_TIMEOUT_MS;
	return due;
}

/* The client closest to its deadline. */
static size_t stalest(const struct metrics *m)
{
	size_t best = 0;

	for (size_t i = 1; i < m->n_clients; i++)
		if (client_due(&m->clients[i]) < client_due(&m->clients[best]))
			best = i;
	return best;
}

/* With every slot taken, ms until the stalest client may be dropped for a
 * new one (0: now). Until then new clients wait in the backlog. */
static uint64_t evict_wait_ms(const struct metrics *m, uint64_t now)
{
	uint64_t due;

	if (m->n_clients < METRICS_MAX_CLIENTS)
		return 0;
	/* its deadline, shortened from the idle timeout to the busy one */
	due = client_due(&m->clients[stalest(m)]) + METRICS_BUSY_TIMEOUT_MS;
	due = due > METRICS_IDLE_TIMEOUT_MS ? due - METRICS_IDLE_TIMEOUT_MS : 0;
	return due > now ? due - now : 0;
}

static void accept_clients(struct metrics *m, uint64_t now)
{
	for (int k = 0; k < ACCEPTS_PER_WAKE && !evict_wait_ms(m, now); k++) {
		int fd = accept4(m->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct metrics_client *c;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				log_debug("metrics: accept: %s", strerror(errno));
			return;
		}
		if (m->n_clients == METRICS_MAX_CLIENTS) {
			log_debug("metrics: all %d slots taken, dropping the stalest client",
				  METRICS_MAX_CLIENTS);
			drop_client(m, stalest(m));
		}
		c = &m->clients[m->n_clients++];
		c->fd = fd;
		c->in_len = 0;
		c->out_off = 0;
		c->writing = false;
		c->start_ms = c->last_ms = now;
		buf_init(&c->out, METRICS_MAX_RESPONSE);
	}
}

/* Reads, answers, writes what the socket takes. False: done with it. */
static bool serve(struct metrics *m, struct metrics_client *c, uint64_t now)
{
	size_t had;

	if (!c->writing) {
		ssize_t r = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
		bool head_only;
		int status;

		if (r == 0)
			return false;
		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		c->in_len += (size_t)r;
		c->last_ms = now;
		status = metrics_http_status(c->in, c->in_len, &head_only);
		if (!status)
			return true;
		respond(m, c, status, head_only);
	}
	had = c->out_off;
	if (!buf_send(&c->out, c->fd, &c->out_off))
		return false;
	if (c->out_off != had)
		c->last_ms = now;
	return c->out_off < c->out.len;
}

static void *metrics_main(void *arg)
{
	struct metrics *m = arg;
	struct pollfd pfd[2 + METRICS_MAX_CLIENTS];

	prctl(PR_SET_NAME, "metrics", 0, 0, 0);
	for (;;) {
		uint64_t now = zt_mono_ms();
		uint64_t busy = evict_wait_ms(m, now);
		int timeout = busy ? (int)busy : -1, ret;
		size_t n = m->n_clients;

		pfd[0] = (struct pollfd){.fd = m->zt->stop_fd, .events = POLLIN};
		/* all slots busy: the backlog holds new clients for a while */
		pfd[1] = (struct pollfd){.fd = busy ? -1 : m->listen_fd, .events = POLLIN};
		for (size_t i = 0; i < n; i++) {
			struct metrics_client *c = &m->clients[i];
			uint64_t due = client_due(c);
			int left = due > now ? (int)(due - now) : 0;

			pfd[2 + i] =
			    (struct pollfd){.fd = c->fd, .events = c->writing ? POLLOUT : POLLIN};
			if (timeout < 0 || left < timeout)
				timeout = left;
		}
		ret = poll(pfd, 2 + n, timeout);
		if (ret < 0 && errno != EINTR) {
			log_err("metrics: poll: %s", strerror(errno));
			return NULL;
		}
		if (ret > 0 && pfd[0].revents)
			return NULL;
		now = zt_mono_ms();
		/* from the last so that drop_client's move touches served ones */
		for (size_t i = n; i-- > 0;) {
			struct metrics_client *c = &m->clients[i];
			bool keep = true;

			if (ret > 0 && pfd[2 + i].revents)
				keep = serve(m, c, now);
			if (keep && now >= client_due(c))
				keep = false;
			if (!keep)
				drop_client(m, i);
		}
		if (ret > 0 && pfd[1].revents)
			accept_clients(m, now);
	}
}

int metrics_start(struct metrics *m, struct zt_runtime *zt)
{
	int ret;

	if (m->listen_fd < 0)
		return 0;
	m->zt = zt;
	ret = pthread_create(&m->thread, NULL, metrics_main, m);
	if (ret)
		return -ret;
	m->started = true;
	return 0;
}

void metrics_stop(struct metrics *m)
{
	if (m->started)
		pthread_join(m->thread, NULL);
	m->started = false;
	while (m->n_clients)
		drop_client(m, m->n_clients - 1);
	if (m->listen_fd >= 0)
		close(m->listen_fd);
	if (m->proc.stat_fd >= 0)
		close(m->proc.stat_fd);
	m->listen_fd = m->proc.stat_fd = -1;
	metrics_names_free(&m->proc.names);
}
