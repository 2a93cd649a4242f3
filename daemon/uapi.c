/* UAPI socket server. Requests are framed by a blank line; one request is
 * answered fully before the next is read, so a client that does not read
 * its answer only blocks itself. */
#include "uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"

#define SOCKET_DIR "/var/run/wireguard"

/* All clients' buffers together, so 64 clients cannot pin 64 times that. */
#define MAX_BUFFERED ((size_t)UAPI_MAX_RESPONSE + UAPI_MAX_REQUEST)

/* Out of descriptors, accept4 leaves the connection in the backlog and poll
 * would spin: a reserve descriptor is given up to accept and close it. With
 * no reserve, the listener is not polled until a descriptor is freed. */
static void take_reserve(struct uapi_server *s)
{
	if (s->reserve_fd < 0)
		s->reserve_fd = eventfd(0, EFD_CLOEXEC);
	if (s->reserve_fd >= 0)
		s->starved = false;
}

static void release_reserve(struct uapi_server *s)
{
	if (s->reserve_fd >= 0)
		close(s->reserve_fd);
	s->reserve_fd = -1;
}

/* at most one line a second for each kind of refusal */
static bool log_due(uint64_t *last_ms)
{
	uint64_t now = zt_mono_ms();

	if (*last_ms && now - *last_ms < 1000)
		return false;
	*last_ms = now;
	return true;
}

/* accept4 said EMFILE or ENFILE: closes one pending connection, if it can. */
static bool shed_connection(struct uapi_server *s)
{
	static uint64_t last_log_ms;
	int fd = -1;

	if (s->reserve_fd >= 0) {
		release_reserve(s);
		fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			close(fd);
		take_reserve(s);
	}
	if (fd < 0)
		s->starved = true;
	if (log_due(&last_log_ms))
		log_err("UAPI: out of file descriptors, %s",
			fd >= 0 ? "closed a new connection" : "not accepting for now");
	return fd >= 0;
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	mode_t old_umask;
	int fd, ret;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	old_umask = umask(0077); /* the socket file is created 0600 */
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old_umask);
	if (ret < 0 || listen(fd, SOMAXCONN) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/* Is a live daemon answering on path? */
static bool socket_in_use(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool used;

	if (fd < 0)
		return false;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	used = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return used;
}

/* An inherited socket bound to our usual path is removed on exit too. */
static bool bound_to(int fd, const char *path)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);

	memset(&sa, 0, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0 || sa.sun_family != AF_UNIX)
		return false;
	return strncmp(sa.sun_path, path, sizeof(sa.sun_path)) == 0;
}

/* Resets s for path dir/name (dir NULL: name is the path). */
static int server_init(struct uapi_server *s, const struct uapi_ops *ops, const char *dir,
		       const char *name)
{
	int n;

	memset(s, 0, sizeof(*s));
	s->listen_fd = -1;
	s->reserve_fd = -1;
	s->ops = *ops;
	n = dir ? snprintf(s->path, sizeof(s->path), "%s/%s.sock", dir, name)
		: snprintf(s->path, sizeof(s->path), "%s", name);
	return (size_t)n >= sizeof(s->path) ? -ENAMETOOLONG : 0;
}

/* Binds s->path, taking over a stale file from a daemon that died. */
static int listen_own(struct uapi_server *s)
{
	int fd = listen_at(s->path);

	if (fd == -EADDRINUSE) {
		if (socket_in_use(s->path))
			return -EADDRINUSE;
		if (unlink(s->path) < 0 && errno != ENOENT)
			return -errno;
		fd = listen_at(s->path);
	}
	if (fd < 0)
		return fd;
	s->listen_fd = fd;
	s->own_path = true;
	take_reserve(s);
	return 0;
}

int uapi_open(struct uapi_server *s, const char *ifname, const struct uapi_ops *ops,
	      int inherited_fd)
{
	int ret = server_init(s, ops, SOCKET_DIR, ifname);

	if (ret)
		return ret;
	if (inherited_fd >= 0) {
		if (fcntl(inherited_fd, F_SETFL, fcntl(inherited_fd, F_GETFL) | O_NONBLOCK) < 0)
			return -errno;
		(void)fcntl(inherited_fd, F_SETFD, FD_CLOEXEC);
		s->listen_fd = inherited_fd;
		s->own_path = bound_to(inherited_fd, s->path);
		take_reserve(s);
		return 0;
	}
	if (mkdir(SOCKET_DIR, 0755) == 0)
		(void)chmod(SOCKET_DIR, 0755); /* whatever the umask */
	else if (errno != EEXIST)
		return -errno;
	return listen_own(s);
}

int uapi_open_path(struct uapi_server *s, const char *path, const struct uapi_ops *ops)
{
	int ret = server_init(s, ops, NULL, path);

	return ret ? ret : listen_own(s);
}

static void drop_client(struct uapi_server *s, size_t i)
{
	struct uapi_client *c = &s->clients[i];

	close(c->fd);
	buf_free(&c->in);
	buf_free(&c->out);
	s->clients[i] = s->clients[--s->n_clients];
	s->starved = false; /* a descriptor was freed */
}

void uapi_close(struct uapi_server *s)
{
	while (s->n_clients)
		drop_client(s, 0);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
	if (s->own_path)
		unlink(s->path);
	s->own_path = false;
	release_reserve(s);
}

/* While all slots are taken, new connections wait in the listen backlog
 * and an idle client gives its slot up sooner. */
static bool full(const struct uapi_server *s)
{
	return s->n_clients >= UAPI_MAX_CLIENTS;
}

static uint64_t client_timeout_ms(const struct uapi_server *s)
{
	return full(s) ? UAPI_BUSY_TIMEOUT_MS : UAPI_CLIENT_TIMEOUT_MS;
}

size_t uapi_pollfds(struct uapi_server *s, struct pollfd *pfd, size_t max)
{
	size_t n = 0;

	if (max < 1 + s->n_clients)
		return 0;
	if (s->reserve_fd < 0)
		take_reserve(s);
	pfd[n++] =
	    (struct pollfd){.fd = s->listen_fd, .events = full(s) || s->starved ? 0 : POLLIN};
	for (size_t i = 0; i < s->n_clients; i++) {
		struct uapi_client *c = &s->clients[i];
		short ev = c->out_off < c->out.len ? POLLOUT : (c->eof || c->closing ? 0 : POLLIN);

		pfd[n++] = (struct pollfd){.fd = c->fd, .events = ev};
	}
	return n;
}

int uapi_timeout_ms(struct uapi_server *s)
{
	uint64_t now = zt_mono_ms();
	int64_t best = -1;

	for (size_t i = 0; i < s->n_clients; i++) {
		int64_t left =
		    (int64_t)(s->clients[i].last_active_ms + client_timeout_ms(s)) - (int64_t)now;

		if (left < 0)
			left = 0;
		if (best < 0 || left < best)
			best = left;
	}
	return (int)best;
}

/* Only root and our own user: a chmod, a looser directory or an inherited
 * WG_UAPI_FD must not open the private key to anyone else. */
static bool peer_allowed(int fd, uid_t *uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	*uid = (uid_t)-1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || len != sizeof(cred))
		return false;
	*uid = cred.uid;
	return cred.uid == 0 || cred.uid == geteuid();
}

static void accept_clients(struct uapi_server *s)
{
	static uint64_t last_refusal_log_ms;

	while (!full(s)) {
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct uapi_client *c;
		uid_t uid;

		if (fd < 0) {
			if ((errno == EMFILE || errno == ENFILE) && shed_connection(s))
				continue;
			return;
		}
		if (!peer_allowed(fd, &uid)) {
			if (log_due(&last_refusal_log_ms))
				log_err("UAPI: refused a connection from uid %d", (int)uid);
			close(fd);
			continue;
		}
		c = &s->clients[s->n_clients++];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		buf_init(&c->in, UAPI_MAX_REQUEST);
		buf_init(&c->out, UAPI_MAX_RESPONSE);
		c->last_active_ms = zt_mono_ms();
	}
}

/* What client c may buffer in one buffer now (at least what it holds). */
static size_t budget(const struct uapi_server *s, const struct uapi_client *c, size_t per_client,
		     size_t holds)
{
	size_t used = 0, left;

	for (size_t i = 0; i < s->n_clients; i++) {
		const struct uapi_client *o = &s->clients[i];

		if (o != c)
			used += o->in.cap + o->out.cap;
	}
	left = used < MAX_BUFFERED ? MAX_BUFFERED - used : 0;
	if (left > per_client)
		left = per_client;
	if (left < 4096)
		left = 4096; /* room for an errno answer, come what may */
	return left > holds ? left : holds;
}

/* The operation line, as wireguard-go matches it: no CR, nothing else. */
static const char GET_OP[] = "get=1\n";
static const char SET_OP[] = "set=1\n";
#define OP_LEN (sizeof(GET_OP) - 1)

enum request {
	REQ_PARTIAL, /* more bytes are needed to tell */
	REQ_GET,
	REQ_BAD_GET, /* "get=1\n" and then not the blank line */
	REQ_SET,
	REQ_BAD_OP,
};

/* The length through a blank line ("\n" or "\r\n") after the "\n" at p[i], or 0. */
static size_t blank_line_end(const char *p, size_t len, size_t i)
{
	if (p[i] != '\n' || i + 1 >= len)
		return 0;
	if (p[i + 1] == '\n')
		return i + 2;
	if (p[i + 1] == '\r' && i + 2 < len && p[i + 2] == '\n')
		return i + 3;
	return 0;
}

/* What the buffered bytes start with, decided as soon as they allow, so a
 * malformed request is not left waiting for a blank line that may never
 * come. *req_len: the request's length (through a set's blank line). */
static enum request classify(struct uapi_client *c, size_t *req_len)
{
	const char *p = c->in.data;
	size_t len = c->in.len, n = len < OP_LEN ? len : OP_LEN;

	if (memcmp(p, GET_OP, n) && memcmp(p, SET_OP, n))
		return REQ_BAD_OP;
	if (len < OP_LEN)
		return REQ_PARTIAL;
	if (p[0] == GET_OP[0]) {
		if (len == OP_LEN)
			return REQ_PARTIAL;
		*req_len = OP_LEN + 1;
		return p[OP_LEN] == '\n' ? REQ_GET : REQ_BAD_GET;
	}
	/* the operation line's own newline may start the blank line */
	for (size_t i = c->scanned > OP_LEN - 1 ? c->scanned : OP_LEN - 1; i < len; i++) {
		*req_len = blank_line_end(p, len, i);
		if (*req_len)
			return REQ_SET;
	}
	/* the last two bytes may yet start "\n\r\n" */
	c->scanned = len - 2;
	return REQ_PARTIAL;
}

static void answer_errno(struct uapi_client *c, int err)
{
	c->out.overflow = false;
	buf_printf(&c->out, "errno=%d\n\n", err);
}

/* Handles one complete request if there is one. False: close the client. */
static bool process_request(struct uapi_server *s, struct uapi_client *c, bool *progress)
{
	size_t req_len = 0;
	int ret;

	*progress = false;
	if (!c->in.len)
		return true;
	switch (classify(c, &req_len)) {
	case REQ_PARTIAL:
		return !c->in.overflow;
	case REQ_BAD_OP:
		log_err("UAPI: invalid operation");
		return false;
	case REQ_BAD_GET:
		/* as wireguard-go: EINVAL, and what follows cannot be framed */
		answer_errno(c, -EINVAL);
		c->closing = true;
		req_len = c->in.len;
		break;
	case REQ_GET:
		c->out.max = budget(s, c, UAPI_MAX_RESPONSE, c->out.len);
		ret = s->ops.get(s->ops.ctx, &c->out);
		if (ret)
			buf_free(&c->out);
		answer_errno(c, ret);
		break;
	case REQ_SET:
		ret = s->ops.set(s->ops.ctx, c->in.data + OP_LEN, req_len - OP_LEN);
		answer_errno(c, ret);
		break;
	}
	/* the request may hold keys: wipe it, and the stale copy buf_consume
	 * leaves behind the new end */
	size_t had = c->in.len;

	explicit_bzero(c->in.data, req_len);
	buf_consume(&c->in, req_len);
	explicit_bzero(c->in.data + c->in.len, had - c->in.len);
	c->scanned = 0;
	*progress = true;
	return true;
}

static bool flush_output(struct uapi_client *c)
{
	if (!buf_send(&c->out, c->fd, &c->out_off))
		return false;
	if (c->out_off < c->out.len)
		return true;
	buf_free(&c->out);
	c->out_off = 0;
	return true;
}

/* Reads until a request can be told (answered before more is read), the
 * socket is drained, or the peer hung up. */
static bool read_input(struct uapi_client *c)
{
	char tmp[16384];
	bool ok = true;
	size_t req_len;

	for (;;) {
		ssize_t n = recv(c->fd, tmp, sizeof(tmp), MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ok = errno == EAGAIN || errno == EWOULDBLOCK;
			break;
		}
		if (n == 0) {
			c->eof = true;
			break;
		}
		if (!buf_append(&c->in, tmp, (size_t)n)) {
			log_err("UAPI: request too large");
			ok = false;
			break;
		}
		if (classify(c, &req_len) != REQ_PARTIAL)
			break;
	}
	/* tmp held part of a request, maybe a key: whatever ended the read */
	explicit_bzero(tmp, sizeof(tmp));
	return ok;
}

/* Runs one client as far as it can go without blocking. */
static bool service_client(struct uapi_server *s, struct uapi_client *c, short revents)
{
	bool progress = true;

	if (revents & (POLLERR | POLLNVAL))
		return false;
	if (c->out_off < c->out.len && !flush_output(c))
		return false;
	c->in.max = budget(s, c, UAPI_MAX_REQUEST, c->in.len);
	if (c->out_off >= c->out.len && (revents & (POLLIN | POLLHUP)) && !c->eof && !c->closing &&
	    !read_input(c))
		return false;
	while (c->out_off >= c->out.len && progress && !c->closing) {
		if (!process_request(s, c, &progress))
			return false;
		if (progress && !flush_output(c))
			return false;
	}
	/* after a hang-up an unfinished request never completes (and may hold a key) */
	if (c->eof && c->out_off >= c->out.len)
		buf_free(&c->in);
	c->last_active_ms = zt_mono_ms();
	return !((c->eof || c->closing) && c->out_off >= c->out.len);
}

void uapi_handle(struct uapi_server *s, const struct pollfd *pfd, size_t n)
{
	uint64_t now = zt_mono_ms();

	/* clients first: accept_clients may reorder nothing, but dropping does */
	for (size_t k = n; k-- > 1;) {
		size_t i = k - 1;

		if (i >= s->n_clients || s->clients[i].fd != pfd[k].fd)
			continue;
		if (pfd[k].revents) {
			if (!service_client(s, &s->clients[i], pfd[k].revents))
				drop_client(s, i);
		} else if (now - s->clients[i].last_active_ms >= client_timeout_ms(s)) {
			drop_client(s, i);
		}
	}
	if (n > 0 && (pfd[0].revents & POLLIN))
		accept_clients(s);
}
