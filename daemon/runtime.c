/* Threads around the engine. The engine is driven through its simple API
 * under one mutex; packets move in batches so the later split data path
 * (crypto on workers) can slot in between receive and completion. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "icmp.h"
#include "log.h"
#include "tun.h"

enum {
	TUN_BATCH = 32,
	TUN_BUF_SIZE = 65536,
	HS_BATCH = 16,
	ICMP_PER_SECOND = 100,
	TIMER_MIN_SLEEP_NS = 1000000, /* never spin on a deadline that is due */
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t zt_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t zt_wall_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

static uint64_t env_now(void *ctx)
{
	(void)ctx;
	return zt_now_ns();
}

static uint64_t env_wall(void *ctx)
{
	(void)ctx;
	return zt_wall_ns();
}

static void io_send(void *ctx, const struct wg_endpoint *to, const uint8_t *pkt, size_t len)
{
	struct zt *zt = ctx;
	int ret = udp_send(&zt->udp, to, pkt, len);

	if (ret)
		log_debug("udp send (%zu bytes): %s", len, strerror(-ret));
}

static void io_deliver(void *ctx, struct wg_peer *from, const uint8_t *pkt, size_t len)
{
	struct zt *zt = ctx;

	(void)from;
	/* TUN writes do not block; a failure means a full queue: drop */
	if (write(zt->tun_fd, pkt, len) < 0)
		log_debug("tun write (%zu bytes): %s", len, strerror(errno));
}

void zt_timers_changed(struct zt *zt)
{
	/* absolute, on the clock the timer thread's condvar uses */
	uint64_t deadline = wg_device_next_deadline(zt->dev);

	if (deadline < zt->timer_deadline) {
		zt->timer_deadline = deadline;
		pthread_cond_signal(&zt->timer_cond);
	}
}

void zt_set_mtu(struct zt *zt, uint32_t mtu)
{
	pthread_mutex_lock(&zt->lock);
	if (mtu != zt->mtu) {
		log_info("MTU of %s is now %u", zt->ifname, mtu);
		zt->mtu = mtu;
		wg_device_set_mtu(zt->dev, mtu);
	}
	pthread_mutex_unlock(&zt->lock);
}

static void *timer_main(void *arg)
{
	struct zt *zt = arg;

	pthread_mutex_lock(&zt->lock);
	while (!atomic_load(&zt->stopping)) {
		uint64_t next = wg_device_tick(zt->dev);

		if (next == UINT64_MAX) {
			zt->timer_deadline = UINT64_MAX;
			pthread_cond_wait(&zt->timer_cond, &zt->lock);
			continue;
		}
		if (next < TIMER_MIN_SLEEP_NS)
			next = TIMER_MIN_SLEEP_NS;
		zt->timer_deadline = zt_now_ns() + next;
		struct timespec ts = {
		    .tv_sec = (time_t)(zt->timer_deadline / 1000000000ULL),
		    .tv_nsec = (long)(zt->timer_deadline % 1000000000ULL),
		};
		pthread_cond_timedwait(&zt->timer_cond, &zt->lock, &ts);
	}
	pthread_mutex_unlock(&zt->lock);
	return NULL;
}

/* A packet with no peer: answer with ICMP unreachable, at a bounded rate. */
static void send_unreachable(struct zt *zt, const uint8_t *pkt, size_t len, uint64_t *window,
			     uint32_t *count)
{
	uint8_t out[ICMP_REPLY_MAX];
	uint64_t now = zt_now_ns();
	size_t n;

	if (now - *window >= 1000000000ULL) {
		*window = now;
		*count = 0;
	}
	if (*count >= ICMP_PER_SECOND)
		return;
	n = icmp_unreachable(pkt, len, out);
	if (!n)
		return;
	(*count)++;
	if (write(zt->tun_fd, out, n) < 0)
		log_debug("tun write (icmp): %s", strerror(errno));
}

static void *tun_main(void *arg)
{
	struct zt *zt = arg;
	uint8_t *bufs[TUN_BATCH];
	size_t lens[TUN_BATCH];
	int results[TUN_BATCH];
	uint64_t icmp_window = 0;
	uint32_t icmp_count = 0;

	for (int i = 0; i < TUN_BATCH; i++) {
		bufs[i] = malloc(TUN_BUF_SIZE);
		if (!bufs[i]) {
			log_err("tun: out of memory");
			for (int j = 0; j < i; j++)
				free(bufs[j]);
			zt_request_stop(zt);
			return NULL;
		}
	}
	while (!atomic_load(&zt->stopping)) {
		struct pollfd pfd[2] = {
		    {.fd = zt->tun_fd, .events = POLLIN},
		    {.fd = zt->stop_fd, .events = POLLIN},
		};
		int n = 0;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		while (n < TUN_BATCH) {
			ssize_t r = read(zt->tun_fd, bufs[n], TUN_BUF_SIZE);

			if (r < 0) {
				if (errno == EINTR)
					continue;
				if (errno != EAGAIN && errno != EWOULDBLOCK) {
					/* EBADFD: the interface was deleted */
					log_info("tun read: %s, stopping", strerror(errno));
					zt_request_stop(zt);
				}
				break;
			}
			if (r == 0)
				break;
			lens[n++] = (size_t)r;
		}
		if (!n) {
			if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
				zt_request_stop(zt);
				break;
			}
			continue;
		}
		pthread_mutex_lock(&zt->lock);
		for (int i = 0; i < n; i++)
			results[i] = wg_device_send(zt->dev, bufs[i], lens[i]);
		zt_timers_changed(zt);
		pthread_mutex_unlock(&zt->lock);
		for (int i = 0; i < n; i++) {
			/* as the kernel: no peer, or a peer without endpoint */
			if (results[i] == WG_ERR_NOROUTE || results[i] == WG_ERR_NOKEY)
				send_unreachable(zt, bufs[i], lens[i], &icmp_window, &icmp_count);
		}
	}
	for (int i = 0; i < TUN_BATCH; i++)
		free(bufs[i]);
	return NULL;
}

/* Receive path: data messages go straight to the engine; handshake
 * messages to the bounded queue for the handshake thread. */
static void handle_batch(struct zt *zt, struct udp_batch *b, int n)
{
	bool data = false;

	for (int i = 0; i < n; i++) {
		int type = wg_message_type(b->bufs[i], b->len[i]);

		if (type >= 1 && type <= 3) {
			if (!hsq_push(&zt->hsq, &b->ep[i], b->bufs[i], b->len[i]))
				log_debug("handshake queue full, dropping");
			b->len[i] = 0;
		} else if (type == 4) {
			data = true;
		} else {
			b->len[i] = 0;
		}
	}
	if (!data)
		return;
	pthread_mutex_lock(&zt->lock);
	for (int i = 0; i < n; i++) {
		if (b->len[i])
			wg_device_receive(zt->dev, &b->ep[i], b->bufs[i], b->len[i]);
	}
	zt_timers_changed(zt);
	pthread_mutex_unlock(&zt->lock);
}

static void *udp_main(void *arg)
{
	struct zt *zt = arg;
	struct udp_batch *b = malloc(sizeof(*b));

	if (!b || udp_batch_init(b)) {
		log_err("udp: out of memory");
		free(b);
		zt_request_stop(zt);
		return NULL;
	}
	while (!atomic_load(&zt->stopping)) {
		int fd4, fd6;

		udp_current_fds(&zt->udp, &fd4, &fd6);
		struct pollfd pfd[4] = {
		    {.fd = fd4, .events = POLLIN},
		    {.fd = fd6, .events = POLLIN},
		    {.fd = zt->udp.wake_fd, .events = POLLIN},
		    {.fd = zt->stop_fd, .events = POLLIN},
		};

		if (poll(pfd, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[3].revents)
			break;
		if (pfd[2].revents) {
			uint64_t v;

			if (read(zt->udp.wake_fd, &v, sizeof(v)) < 0)
				log_debug("udp wake read: %s", strerror(errno));
			continue; /* the sockets changed */
		}
		for (int s = 0; s < 2; s++) {
			int n;

			if (!(pfd[s].revents & (POLLIN | POLLERR)))
				continue;
			n = udp_recv_batch(pfd[s].fd, b);
			if (n > 0)
				handle_batch(zt, b, n);
			else if (n < 0)
				log_debug("udp receive: %s", strerror(-n));
		}
	}
	udp_batch_free(b);
	free(b);
	return NULL;
}

static void *handshake_main(void *arg)
{
	struct zt *zt = arg;
	struct hsq_item *items = malloc(HS_BATCH * sizeof(*items));
	size_t n, remaining;

	if (!items) {
		zt_request_stop(zt);
		return NULL;
	}
	while ((n = hsq_pop(&zt->hsq, items, HS_BATCH, &remaining)) > 0) {
		pthread_mutex_lock(&zt->lock);
		wg_device_set_handshake_queue_len(zt->dev, remaining + n);
		for (size_t i = 0; i < n; i++)
			wg_device_receive(zt->dev, &items[i].from, items[i].data, items[i].len);
		wg_device_set_handshake_queue_len(zt->dev, remaining);
		zt_timers_changed(zt);
		pthread_mutex_unlock(&zt->lock);
	}
	free(items);
	return NULL;
}

int zt_init(struct zt *zt, int tun_fd, const char *ifname)
{
	struct wg_env env = {.now_ns = env_now, .wall_ns = env_wall, .ctx = zt};
	struct wg_io io = {.send = io_send, .deliver = io_deliver, .ctx = zt};
	pthread_condattr_t attr;
	int ret;

	memset(zt, 0, sizeof(*zt));
	zt->tun_fd = tun_fd;
	zt->stop_fd = -1;
	zt->timer_deadline = UINT64_MAX;
	snprintf(zt->ifname, sizeof(zt->ifname), "%s", ifname);
	zt->ifindex = (int)if_nametoindex(ifname);
	if (tun_get_mtu(ifname, &zt->mtu))
		zt->mtu = TUN_DEFAULT_MTU;
	atomic_init(&zt->stopping, false);
	pthread_mutex_init(&zt->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&zt->timer_cond, &attr);
	pthread_condattr_destroy(&attr);
	if (fcntl(tun_fd, F_SETFL, fcntl(tun_fd, F_GETFL) | O_NONBLOCK) < 0)
		return -errno;
	zt->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (zt->stop_fd < 0)
		return -errno;
	ret = hsq_init(&zt->hsq);
	if (ret)
		return ret;
	ret = udp_init(&zt->udp);
	if (ret)
		return ret;
	ret = udp_bind(&zt->udp, 0);
	if (ret)
		return ret;
	zt->dev = wg_device_new(&env, &io);
	if (!zt->dev)
		return -ENOMEM;
	wg_device_set_mtu(zt->dev, zt->mtu);
	return 0;
}

int zt_start(struct zt *zt)
{
	void *(*mains[])(void *) = {timer_main, tun_main, udp_main, handshake_main};

	for (size_t i = 0; i < sizeof(mains) / sizeof(mains[0]); i++) {
		int ret = pthread_create(&zt->threads[zt->n_threads], NULL, mains[i], zt);

		if (ret) {
			zt_stop(zt);
			return -ret;
		}
		zt->n_threads++;
	}
	return 0;
}

void zt_request_stop(struct zt *zt)
{
	uint64_t one = 1;

	atomic_store(&zt->stopping, true);
	if (zt->stop_fd >= 0 && write(zt->stop_fd, &one, sizeof(one)) < 0) {
		/* the counter is already non-zero: readable anyway */
	}
}

void zt_stop(struct zt *zt)
{
	zt_request_stop(zt);
	hsq_close(&zt->hsq);
	pthread_mutex_lock(&zt->lock);
	pthread_cond_broadcast(&zt->timer_cond);
	pthread_mutex_unlock(&zt->lock);
	for (int i = 0; i < zt->n_threads; i++)
		pthread_join(zt->threads[i], NULL);
	zt->n_threads = 0;
}

void zt_destroy(struct zt *zt)
{
	if (zt->dev)
		wg_device_free(zt->dev);
	zt->dev = NULL;
	udp_destroy(&zt->udp);
	hsq_destroy(&zt->hsq);
	if (zt->tun_fd >= 0)
		close(zt->tun_fd);
	if (zt->stop_fd >= 0)
		close(zt->stop_fd);
	zt->tun_fd = zt->stop_fd = -1;
	pthread_cond_destroy(&zt->timer_cond);
	pthread_mutex_destroy(&zt->lock);
}
