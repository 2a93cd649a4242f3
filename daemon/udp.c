/* UDP sockets with sticky source addresses (IP_PKTINFO / IPV6_PKTINFO). */
#include "udp.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "enginelock.h"
#include "log.h"
#include "pages.h"

enum { SOCKET_BUFFER = 4 << 20 };

static atomic_bool gso_on = true;
static atomic_bool gro_on = true;

bool udp_gso_enabled(void)
{
	return atomic_load_explicit(&gso_on, memory_order_relaxed);
}

bool udp_gro_enabled(void)
{
	return atomic_load_explicit(&gro_on, memory_order_relaxed);
}

static void gso_failed(int err)
{
	if (atomic_exchange(&gso_on, false))
		log_info("UDP GSO failed (%s): sending datagrams one by one from now on",
			 strerror(err));
}

/* Bursts arrive faster than one receive thread decrypts: a larger buffer
 * absorbs them instead of dropping (FORCE goes past rmem_max as root). */
static void grow_buffers(int fd)
{
	int size = SOCKET_BUFFER;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

static int open_socket(int family, uint16_t port, uint32_t fwmark, int *out)
{
	struct sockaddr_in6 sa6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	struct sockaddr_in sa4 = {.sin_family = AF_INET, .sin_port = htons(port)};
	bool v6 = family == AF_INET6;
	int one = 1;
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int ret;

	if (fd < 0)
		return -errno;
	grow_buffers(fd);
	/* coalesced receive: one buffer holds a run of same-size datagrams */
	if (atomic_load(&gro_on) && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0) {
		log_info("UDP GRO unavailable: %s", strerror(errno));
		atomic_store(&gro_on, false);
	}
	/* the outer DS field of each datagram, for ECN (udp_recv_batch) */
	if (v6 ? setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0 ||
		     setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)) < 0 ||
		     setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof(one)) < 0
	       : setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) < 0 ||
		     setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)) < 0)
		goto err;
	if (fwmark && setsockopt(fd, SOL_SOCKET, SO_MARK, &fwmark, sizeof(fwmark)) < 0)
		goto err;
	if ((v6 ? bind(fd, (struct sockaddr *)&sa6, sizeof(sa6))
		: bind(fd, (struct sockaddr *)&sa4, sizeof(sa4))) < 0)
		goto err;
	*out = fd;
	return 0;
err:
	ret = -errno;
	close(fd);
	return ret;
}

static uint16_t bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* Opens both sockets on port; with port 0, retries when the random port
 * chosen for IPv4 is taken on IPv6. A host without IPv6 gets IPv4 only. */
static int open_pair(uint16_t port, uint32_t fwmark, int *fd4, int *fd6, uint16_t *actual)
{
	for (int attempt = 0; attempt < 16; attempt++) {
		int ret = open_socket(AF_INET, port, fwmark, fd4);
		uint16_t p;

		if (ret == -EAFNOSUPPORT) {
			*fd4 = -1;
			ret = open_socket(AF_INET6, port, fwmark, fd6);
			if (ret)
				return ret;
			*actual = bound_port(*fd6);
			return 0;
		}
		if (ret)
			return ret;
		p = bound_port(*fd4);
		ret = open_socket(AF_INET6, p, fwmark, fd6);
		if (!ret) {
			*actual = p;
			return 0;
		}
		if (ret == -EAFNOSUPPORT || ret == -EADDRNOTAVAIL) {
			*fd6 = -1;
			*actual = p;
			return 0;
		}
		close(*fd4);
		if (ret != -EADDRINUSE || port != 0)
			return ret;
	}
	return -EADDRINUSE;
}

int udp_init(struct udp *u, bool gso, bool gro)
{
	pthread_condattr_t attr;

	memset(u, 0, sizeof(*u));
	pthread_mutex_init(&u->lock, NULL);
	atomic_store(&gso_on, gso);
	atomic_store(&gro_on, gro);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&u->released, &attr);
	pthread_condattr_destroy(&attr);
	gso_paths_init(&u->gso_paths);
	u->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return u->wake_fd < 0 ? -errno : 0;
}

static void socks_put(struct udp *u, struct udp_socks *s)
{
	zt_assert_held(&u->lock);
	if (--s->refs)
		return;
	if (s->fd4 >= 0)
		close(s->fd4);
	if (s->fd6 >= 0)
		close(s->fd6);
	if (s != u->cur) {
		u->retired--;
		pthread_cond_broadcast(&u->released);
	}
	free(s);
}

/* After the threads stopped (they dropped their references). */
void udp_destroy(struct udp *u)
{
	zt_mutex_lock(&u->lock);
	if (u->cur) {
		struct udp_socks *s = u->cur;

		u->cur = NULL;
		u->retired++;
		socks_put(u, s);
	}
	zt_mutex_unlock(&u->lock);
	if (u->retired)
		log_err("udp: %d replaced socket sets still referenced", u->retired);
	if (u->wake_fd >= 0)
		close(u->wake_fd);
	u->wake_fd = -1;
	gso_paths_destroy(&u->gso_paths);
	pthread_cond_destroy(&u->released);
	pthread_mutex_destroy(&u->lock);
}

void udp_wait_retired(struct udp *u)
{
	/* the condvar waits on CLOCK_MONOTONIC (udp_init) */
	uint64_t until = zt_mono_ns() + UDP_RETIRE_WAIT_MS * 1000000ULL;
	struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ULL),
			      .tv_nsec = (long)(until % 1000000000ULL)};
	int ret = 0;

	zt_mutex_lock(&u->lock);
	while (u->retired && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&u->released, &u->lock, &ts);
	zt_mutex_unlock(&u->lock);
	if (ret == ETIMEDOUT)
		log_info("udp: old sockets still in use, closed later");
}

int udp_bind(struct udp *u, uint16_t port)
{
	struct udp_socks *s, *old = u->cur;
	uint16_t actual = 0;
	uint64_t one = 1;
	int ret;

	/* as the kernel does: the same port is no change (0 rebinds at random) */
	if (old && port == u->port)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	ret = open_pair(port, u->fwmark, &s->fd4, &s->fd6, &actual);
	if (ret) {
		free(s);
		return ret;
	}
	s->refs = 1;
	zt_mutex_lock(&u->lock);
	u->cur = s;
	u->port = actual;
	if (old) {
		u->retired++;
		socks_put(u, old);
	}
	zt_mutex_unlock(&u->lock);
	if (write(u->wake_fd, &one, sizeof(one)) < 0)
		log_debug("udp: wake: %s", strerror(errno));
	log_info("UDP bind has been updated (port %u)", actual);
	return 0;
}

int udp_set_fwmark(struct udp *u, uint32_t mark)
{
	int ret = 0;

	zt_mutex_lock(&u->lock);
	for (int i = 0; u->cur && i < 2 && !ret; i++) {
		int fd = i ? u->cur->fd6 : u->cur->fd4;

		if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) < 0)
			ret = -errno;
	}
	if (!ret)
		u->fwmark = mark;
	zt_mutex_unlock(&u->lock);
	return ret;
}

static void socks_drop(struct udp *u, struct udp_socks **held)
{
	if (*held)
		socks_put(u, *held);
	*held = NULL;
}

void udp_socks_hold(struct udp *u, struct udp_socks **held)
{
	zt_mutex_lock(&u->lock);
	if (*held != u->cur) {
		socks_drop(u, held);
		if (u->cur) {
			u->cur->refs++;
			*held = u->cur;
		}
	}
	zt_mutex_unlock(&u->lock);
}

void udp_socks_drop(struct udp *u, struct udp_socks **held)
{
	zt_mutex_lock(&u->lock);
	socks_drop(u, held);
	zt_mutex_unlock(&u->lock);
}

static bool has_source(const struct wg_endpoint *to)
{
	static const struct in6_addr zero6;

	if (to->addr.sa.sa_family == AF_INET)
		return to->src4.s_addr != 0;
	return memcmp(&to->src6, &zero6, sizeof(zero6)) != 0 || to->src_ifindex != 0;
}

union udp_ctrl {
	struct cmsghdr align;
	uint8_t buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(uint16_t)) +
		    2 * CMSG_SPACE(sizeof(int))];
};

static void add_cmsg(struct msghdr *msg, int level, int type, const void *data, size_t len)
{
	struct cmsghdr *c = (struct cmsghdr *)((uint8_t *)msg->msg_control + msg->msg_controllen);

	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, len);
	msg->msg_controllen += CMSG_SPACE(len);
}

/* Fills msg for one send to "to" (sticky source unless no_src, GSO segment
 * size unless 0, outer DS field ds and TTL / hop limit ttl unless 0).
 * Returns the socket or -errno. */
static int build_msg(const struct udp_socks *s, const struct wg_endpoint *to, struct msghdr *msg,
		     union udp_ctrl *ctrl, uint16_t seg, bool no_src, uint8_t ds, uint8_t ttl)
{
	int fd, tos = ds, hops = ttl;

	memset(ctrl, 0, sizeof(*ctrl));
	msg->msg_control = ctrl->buf;
	msg->msg_controllen = 0;
	msg->msg_flags = 0;
	if (to->addr.sa.sa_family == AF_INET) {
		fd = s->fd4;
		msg->msg_name = (void *)&to->addr.in4;
		msg->msg_namelen = sizeof(to->addr.in4);
		if (!no_src && has_source(to)) {
			struct in_pktinfo pi = {.ipi_spec_dst = to->src4};

			add_cmsg(msg, IPPROTO_IP, IP_PKTINFO, &pi, sizeof(pi));
		}
	} else if (to->addr.sa.sa_family == AF_INET6) {
		fd = s->fd6;
		msg->msg_name = (void *)&to->addr.in6;
		msg->msg_namelen = sizeof(to->addr.in6);
		struct in6_pktinfo pi = {0};
		bool src = !no_src && has_source(to);

		if (src) {
			pi.ipi6_addr = to->src6;
			/* the interface matters only for link-local sources */
			if (IN6_IS_ADDR_LINKLOCAL(&to->src6))
				pi.ipi6_ifindex = to->src_ifindex;
		}
		/* a zone picks the interface for any address (as the Linux
		 * module's flowi6_oif), not only link-local ones */
		if (!pi.ipi6_ifindex)
			pi.ipi6_ifindex = to->addr.in6.sin6_scope_id;
		if (src || pi.ipi6_ifindex)
			add_cmsg(msg, IPPROTO_IPV6, IPV6_PKTINFO, &pi, sizeof(pi));
	} else {
		return -EAFNOSUPPORT;
	}
	if (seg)
		add_cmsg(msg, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg));
	if (ds && to->addr.sa.sa_family == AF_INET)
		add_cmsg(msg, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	else if (ds)
		add_cmsg(msg, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos));
	if (ttl && to->addr.sa.sa_family == AF_INET)
		add_cmsg(msg, IPPROTO_IP, IP_TTL, &hops, sizeof(hops));
	else if (ttl)
		add_cmsg(msg, IPPROTO_IPV6, IPV6_HOPLIMIT, &hops, sizeof(hops));
	if (!msg->msg_controllen)
		msg->msg_control = NULL;
	return fd < 0 ? -ENETUNREACH : fd;
}

static bool source_error(int err)
{
	return err == EINVAL || err == EADDRNOTAVAIL || err == ENETUNREACH;
}

int udp_send_on(const struct udp_socks *s, const struct wg_endpoint *to, const void *buf,
		size_t len, uint8_t ds)
{
	union udp_ctrl ctrl;
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	bool no_src = false;

	for (;;) {
		int fd = build_msg(s, to, &msg, &ctrl, 0, no_src, ds, 0);

		if (fd < 0)
			return fd;
		if (sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		/* the sticky source went away: let the kernel choose */
		if (source_error(errno) && msg.msg_control && !no_src) {
			no_src = true;
			continue;
		}
		return -errno;
	}
}

int udp_send(struct udp *u, const struct wg_endpoint *to, const void *buf, size_t len, uint8_t ds)
{
	int ret;

	zt_mutex_lock(&u->lock);
	ret = u->cur ? udp_send_on(u->cur, to, buf, len, ds) : -ENETUNREACH;
	zt_mutex_unlock(&u->lock);
	return ret;
}

static bool run_extends(const struct udp_run *r, const struct wg_endpoint *to, uint8_t ds,
			uint8_t ttl, const uint8_t *buf, size_t len)
{
	/* one GSO send carries one DS field and TTL */
	return r->ds == ds && r->ttl == ttl && r->buf + r->len == buf &&
	       r->len == (size_t)r->count * r->seg && len <= r->seg &&
	       r->count < UDP_RUN_MAX_SEGS && r->len + len <= UDP_RUN_MAX_BYTES &&
	       !memcmp(r->to, to, sizeof(*to));
}

int udp_runs_add(struct udp_run *runs, int n, bool may_extend, const struct wg_endpoint *to,
		 uint8_t ds, uint8_t ttl, uint8_t *buf, size_t len)
{
	struct udp_run *r;

	if (may_extend && n && run_extends(&runs[n - 1], to, ds, ttl, buf, len)) {
		r = &runs[n - 1];
		r->len += len;
		r->count++;
		return n;
	}
	r = &runs[n];
	r->to = to;
	r->ds = ds;
	r->ttl = ttl;
	r->buf = buf;
	r->len = r->seg = len;
	r->count = 1;
	return n + 1;
}

static void gso_path_too_small(struct udp *u, const struct udp_run *r, int err)
{
	if (gso_path_refused(&u->gso_paths, r->to, r->seg, zt_mono_ns()))
		log_info("UDP GSO of %zu-byte datagrams refused (%s): the path MTU is below them; "
			 "sending such datagrams one by one (fragmented by the kernel) to that "
			 "peer, retried every %llu s (logged once)",
			 r->seg, strerror(err), GSO_PATH_RETRY_NS / 1000000000ULL);
}

/* One GSO send of the whole run. Returns the count sent, 0 to send the run
 * one by one instead, or -errno. */
static int send_run_gso(struct udp *u, const struct udp_socks *s, const struct udp_run *r,
			union udp_ctrl *ctrl)
{
	struct iovec v = {.iov_base = r->buf, .iov_len = r->len};
	struct msghdr msg = {.msg_iov = &v, .msg_iovlen = 1};
	bool no_src = false;

	for (;;) {
		int fd = build_msg(s, r->to, &msg, ctrl, (uint16_t)r->seg, no_src, r->ds, r->ttl);

		if (fd < 0)
			return fd;
		if (sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return r->count;
		switch (errno) {
		case EINTR:
			continue;
		case EIO: /* no checksum offload on the route's device */
			gso_failed(errno);
			return 0;
		case EINVAL: /* the sticky source, or as EMSGSIZE on some kernels */
			if (!no_src && has_source(r->to)) {
				no_src = true;
				continue;
			}
			/* fall through */
		case EMSGSIZE: /* a segment above the path MTU */
			gso_path_too_small(u, r, errno);
			return 0;
		}
		if (source_error(errno) && !no_src && has_source(r->to)) {
			no_src = true;
			continue;
		}
		return -errno;
	}
}

static int send_run(struct udp *u, const struct udp_socks *s, const struct udp_run *r)
{
	enum { CHUNK = 64 };
	struct mmsghdr mm[CHUNK];
	struct iovec iov[CHUNK];
	union udp_ctrl ctrl[CHUNK];
	size_t off = 0;
	int sent = 0, fd = -1;

	/* the clock only once a refusal is recorded */
	if (r->count > 1 && udp_gso_enabled() &&
	    (gso_paths_none(&u->gso_paths) ||
	     gso_path_allows(&u->gso_paths, r->to, r->seg, zt_mono_ns()))) {
		int ret = send_run_gso(u, s, r, &ctrl[0]);

		if (ret)
			return ret;
	}
	while (off < r->len) {
		int n = 0, ret;

		while (n < CHUNK && off < r->len) {
			size_t l = r->len - off < r->seg ? r->len - off : r->seg;

			iov[n].iov_base = r->buf + off;
			iov[n].iov_len = l;
			memset(&mm[n], 0, sizeof(mm[n]));
			mm[n].msg_hdr.msg_iov = &iov[n];
			mm[n].msg_hdr.msg_iovlen = 1;
			fd = build_msg(s, r->to, &mm[n].msg_hdr, &ctrl[n], 0, false, r->ds, r->ttl);
			if (fd < 0)
				return sent ? sent : fd;
			off += l;
			n++;
		}
		ret = sendmmsg(fd, mm, (unsigned int)n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (ret < 0 && errno == EINTR)
			ret = 0;
		if (ret < 0) {
			int err = errno;

			if (source_error(err) || err == EAGAIN || err == ENOBUFS) {
				/* the first one failed: plain sends retry the source */
				for (int i = 0; i < n; i++) {
					if (!udp_send_on(s, r->to, iov[i].iov_base, iov[i].iov_len,
							 r->ds))
						sent++;
				}
				continue;
			}
			return sent ? sent : -err;
		}
		sent += ret;
		/* a partial send: the rest of this chunk is dropped (full queue) */
	}
	return sent;
}

int udp_send_runs(struct udp *u, const struct udp_socks *s, const struct udp_run *runs, int n)
{
	int total = 0;

	for (int i = 0; i < n; i++) {
		int ret = send_run(u, s, &runs[i]);

		if (ret > 0)
			total += ret;
		else if (ret < 0)
			log_debug("udp send (%d datagrams): %s", runs[i].count, strerror(-ret));
	}
	return total;
}

int udp_batch_init(struct udp_batch *b)
{
	uint8_t *p = zt_pages_alloc((size_t)UDP_BATCH * UDP_BUF_SIZE);

	memset(b, 0, sizeof(*b));
	if (!p)
		return -ENOMEM;
	for (int i = 0; i < UDP_BATCH; i++)
		b->bufs[i] = p + (size_t)i * UDP_BUF_SIZE;
	return 0;
}

void udp_batch_free(struct udp_batch *b)
{
	zt_pages_free(b->bufs[0], (size_t)UDP_BATCH * UDP_BUF_SIZE);
	memset(b->bufs, 0, sizeof(b->bufs));
}

static void fill_endpoint(struct udp_batch *b, int i)
{
	struct msghdr *m = &b->msgs[i].msg_hdr;
	struct wg_endpoint *ep = &b->ep[i];
	struct cmsghdr *c;

	memset(ep, 0, sizeof(*ep));
	b->seg[i] = 0;
	b->ds[i] = 0;
	if (b->from[i].ss_family == AF_INET)
		memcpy(&ep->addr.in4, &b->from[i], sizeof(ep->addr.in4));
	else
		memcpy(&ep->addr.in6, &b->from[i], sizeof(ep->addr.in6));
	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			ep->src4 = pi.ipi_spec_dst;
			ep->src_ifindex = (uint32_t)pi.ipi_ifindex;
		} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
			b->ds[i] = *CMSG_DATA(c);
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS) {
			int tclass;

			memcpy(&tclass, CMSG_DATA(c), sizeof(tclass));
			b->ds[i] = (uint8_t)tclass;
		} else if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
			int seg;

			memcpy(&seg, CMSG_DATA(c), sizeof(seg));
			b->seg[i] = seg > 0 ? (size_t)seg : 0;
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			ep->src6 = pi.ipi6_addr;
			ep->src_ifindex = pi.ipi6_ifindex;
		}
	}
}

int udp_recv_batch(int fd, struct udp_batch *b)
{
	int n;

	for (int i = 0; i < UDP_BATCH; i++) {
		struct msghdr *m = &b->msgs[i].msg_hdr;

		b->iov[i].iov_base = b->bufs[i];
		b->iov[i].iov_len = UDP_BUF_SIZE;
		memset(m, 0, sizeof(*m));
		m->msg_name = &b->from[i];
		m->msg_namelen = sizeof(b->from[i]);
		m->msg_iov = &b->iov[i];
		m->msg_iovlen = 1;
		m->msg_control = b->ctrl[i];
		m->msg_controllen = sizeof(b->ctrl[i]);
	}
	do
		n = recvmmsg(fd, b->msgs, UDP_BATCH, MSG_DONTWAIT, NULL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		b->len[i] = b->msgs[i].msg_len;
		fill_endpoint(b, i);
	}
	return n;
}
