/* Threads around the engine: timer and handshake worker (the data path's
 * are datapath.c's). Crypto runs outside the engine lock (the split API). */
#include "runtime.h"

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "eventlog.h"
#include "log.h"
#include "tun.h"

enum {
	HS_BATCH = 16,
	TIMER_MIN_SLEEP_NS = 1000000, /* never spin on a deadline that is due */
	/* larger allocations get their own mapping, returned when freed */
	MMAP_THRESHOLD = 128 << 10,
};

/* Every engine call that reads the clock is under the engine lock; one
 * reading serves the whole hold (a batch prepares each of its ~45 segments
 * in one hold: the clock was 2.5 % of a TCP stream's CPU). */
static uint64_t env_now(void *ctx)
{
	struct zt_runtime *zt = ctx;

	zt_engine_assert_held(zt);
	if (!zt->lock_now)
		zt->lock_now = zt_now_ns();
	return zt->lock_now;
}

static uint64_t env_wall(void *ctx)
{
	zt_engine_assert_held((struct zt_runtime *)ctx);
	return zt_wall_ns();
}

static void log_send_error(struct zt_runtime *zt, int ret, size_t len)
{
	if (!ret)
		return;
	zt_drops_add(&zt->drops.socket_error, 1);
	log_debug("udp send (%zu bytes): %s", len, strerror(-ret));
}

/* The engine's sends, under the lock: on the current sockets. */
static void io_send(void *ctx, const struct wg_endpoint *to, const uint8_t *pkt, size_t len,
		    uint8_t ds)
{
	struct zt_runtime *zt = ctx;

	zt_engine_assert_held(zt);
	log_send_error(zt, udp_send(&zt->udp, to, pkt, len, ds), len);
}

void zt_timers_changed(struct zt_runtime *zt)
{
	uint64_t deadline;

	zt_engine_assert_held(zt);
	if (!zt->dev)
		return;
	/* absolute, on the clock of the timer thread's timerfd */
	deadline = wg_device_next_deadline(zt->dev);
	if (deadline < zt->timer_deadline) {
		zt->timer_deadline = deadline;
		zt_alarm_set(zt->timer_fd, deadline);
	}
}

void zt_set_mtu(struct zt_runtime *zt, uint32_t mtu)
{
	zt_engine_lock(zt);
	if (mtu != zt->mtu) {
		log_info("MTU of %s is now %u", zt->ifname, mtu);
		zt->mtu = mtu;
		atomic_store(&zt->tx_mtu, mtu);
		wg_device_set_mtu(zt->dev, mtu);
	}
	zt_engine_unlock(zt);
}

/* When the timer thread wakes, given wg_device_tick's next (not UINT64_MAX). */
static uint64_t timer_wake_time(struct zt_runtime *zt, uint64_t next)
{
	uint64_t now = zt_now_ns(), due = wg_device_next_deadline(zt->dev);

	/* the engine's own deadline, not "now + next" (a little past it, which
	 * zt_timers_changed would re-arm after every packet); next may also be
	 * the rate limiter's clean-up, which is not in the timer heap */
	if (next < TIMER_MIN_SLEEP_NS)
		next = TIMER_MIN_SLEEP_NS;
	if (due > now + next)
		due = now + next;
	if (due < now + TIMER_MIN_SLEEP_NS)
		due = now + TIMER_MIN_SLEEP_NS;
	return due;
}

static void *timer_main(void *arg)
{
	struct zt_runtime *zt = arg;
	struct pollfd pfd[] = {
	    {.fd = zt->timer_fd, .events = POLLIN},
	    {.fd = zt->stop_fd, .events = POLLIN},
	};

	zt_engine_lock(zt);
	while (!atomic_load(&zt->stopping)) {
		uint64_t next = wg_device_tick(zt->dev);

		zt->timer_deadline = next == UINT64_MAX ? ZT_ALARM_OFF : timer_wake_time(zt, next);
		zt_alarm_set(zt->timer_fd, zt->timer_deadline);
		zt_engine_unlock_no_rearm(zt);
		/* after a suspend the timerfd is readable at once */
		while (poll(pfd, sizeof(pfd) / sizeof(pfd[0]), -1) < 0 && errno == EINTR)
			;
		zt_alarm_ack(zt->timer_fd);
		zt_engine_lock(zt);
	}
	zt_engine_unlock_no_rearm(zt);
	return NULL;
}

/* The engine queued initiations (under the lock): the handshake thread
 * builds them, off the data path. */
static void io_initiations_pending(void *ctx)
{
	struct zt_runtime *zt = ctx;

	zt_engine_assert_held(zt);
	hsq_kick(&zt->hsq);
}

/* A batch's datagrams (answers, our initiations), after the engine lock. */
static void send_jobs(struct zt_runtime *zt, struct udp_socks *socks,
		      const struct wg_handshake_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (jobs[i].out_len)
			log_send_error(zt,
				       udp_send_on(socks, &jobs[i].to, jobs[i].out, jobs[i].out_len,
						   jobs[i].ds),
				       jobs[i].out_len);
}

/* Handshake messages and our queued initiations in batches: admission and
 * preparation under the lock, the crypto without it (one X25519 batch per
 * step for all jobs), the state change under it, the datagrams sent
 * without it. */
static void *handshake_main(void *arg)
{
	struct zt_runtime *zt = arg;
	struct hsq_item *items = malloc(HS_BATCH * sizeof(*items));
	struct wg_handshake_job *jobs = malloc(2 * HS_BATCH * sizeof(*jobs));
	struct udp_socks *socks = NULL; /* what the datagrams go out on */
	size_t n, m, remaining;

	if (!items || !jobs) {
		free(items);
		free(jobs);
		zt_request_stop(zt);
		return NULL;
	}
	while (hsq_pop(&zt->hsq, items, HS_BATCH, &n, &remaining)) {
		zt_engine_lock(zt);
		wg_device_set_handshake_queue_len(zt->dev, remaining + n);
		for (size_t i = 0; i < n; i++)
			wg_device_prepare_handshake(zt->dev, &items[i].from, items[i].data,
						    items[i].len, &jobs[i]);
		m = n + wg_device_prepare_initiations(zt->dev, jobs + n, HS_BATCH);
		zt_engine_unlock(zt);
		if (m - n == HS_BATCH) /* more may wait */
			hsq_kick(&zt->hsq);
		wg_handshake_consume_batch(zt->dev, jobs, m);
		zt_engine_lock(zt);
		for (size_t i = 0; i < m; i++)
			wg_device_complete_handshake(zt->dev, &jobs[i]);
		wg_device_set_handshake_queue_len(zt->dev, remaining);
		/* dropped after: an idle holder would keep a replaced port bound */
		for (size_t i = 0; i < m && !socks; i++)
			if (jobs[i].out_len)
				udp_socks_hold(&zt->udp, &socks);
		zt_engine_unlock(zt);
		if (!socks)
			continue;
		send_jobs(zt, socks, jobs, m);
		udp_socks_drop(&zt->udp, &socks);
	}
	free(items);
	free(jobs);
	return NULL;
}

static void io_event(void *ctx, const struct wg_event *ev)
{
	struct zt_runtime *zt = ctx;

	eventlog_event(ctx, ev);
	if (zt->on_event)
		zt->on_event(ev);
}

int zt_init(struct zt_runtime *zt, const char *ifname, const struct zt_dp_options *opt)
{
	struct wg_env env = {.now_ns = env_now, .wall_ns = env_wall, .ctx = zt};
	struct wg_io io = {.send = io_send,
			   .ctx = zt,
			   .event = io_event,
			   .initiations_pending = io_initiations_pending};
	int ret;

	/* a fixed threshold: glibc's own rises after the first big UAPI
	 * buffer is freed, and the heap would then keep such buffers' pages */
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	memset(zt, 0, sizeof(*zt));
	zt->opt = *opt;
	zt->stop_fd = -1;
	zt->timer_fd = -1;
	zt->timer_deadline = ZT_ALARM_OFF;
	snprintf(zt->ifname, sizeof(zt->ifname), "%s", ifname);
	zt->ifindex = (int)if_nametoindex(ifname);
	if (tun_get_mtu(ifname, &zt->mtu))
		zt->mtu = WG_DEFAULT_MTU;
	atomic_init(&zt->stopping, false);
	pthread_mutex_init(&zt->lock, NULL);
	zt->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (zt->stop_fd < 0)
		return -errno;
	zt->timer_fd = zt_alarm_open();
	if (zt->timer_fd < 0)
		return zt->timer_fd;
	ret = hsq_init(&zt->hsq);
	if (ret)
		return ret;
	ret = udp_init(&zt->udp, opt->udp_gso, opt->udp_gro);
	if (ret)
		return ret;
	ret = udp_bind(&zt->udp, 0);
	if (ret)
		return ret;
	zt_engine_lock(zt); /* no other thread yet, but the engine's calls check it */
	zt->dev = wg_device_new(&env, &io);
	if (zt->dev)
		wg_device_set_mtu(zt->dev, zt->mtu);
	zt_engine_unlock_no_rearm(zt);
	if (!zt->dev)
		return -ENOMEM;
	atomic_init(&zt->tx_mtu, zt->mtu);
	return 0;
}

int zt_start(struct zt_runtime *zt)
{
	void *(*mains[])(void *) = {timer_main, handshake_main};
	int ret = 0;

	for (size_t i = 0; !ret && i < sizeof(mains) / sizeof(mains[0]); i++)
		ret = zt_spawn(zt->threads, &zt->n_threads, mains[i], zt);
	if (ret)
		zt_stop(zt);
	return ret;
}

void zt_request_stop(struct zt_runtime *zt)
{
	uint64_t one = 1;

	atomic_store(&zt->stopping, true);
	if (zt->stop_fd >= 0 && write(zt->stop_fd, &one, sizeof(one)) < 0) {
		/* the counter is already non-zero: readable anyway */
	}
}

void zt_stop(struct zt_runtime *zt)
{
	zt_request_stop(zt);
	hsq_close(&zt->hsq);
	for (int i = 0; i < zt->n_threads; i++)
		pthread_join(zt->threads[i], NULL);
	zt->n_threads = 0;
}

void zt_destroy(struct zt_runtime *zt)
{
	if (zt->dev)
		wg_device_free(zt->dev);
	zt->dev = NULL;
	udp_destroy(&zt->udp);
	hsq_destroy(&zt->hsq);
	if (zt->stop_fd >= 0)
		close(zt->stop_fd);
	if (zt->timer_fd >= 0)
		close(zt->timer_fd);
	zt->stop_fd = zt->timer_fd = -1;
	pthread_mutex_destroy(&zt->lock);
}
