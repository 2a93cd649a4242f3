/* UDP -> TUN: a batch of datagrams, handshakes queued, data prepared under
 * the engine lock, opened outside it, completed under it in order, then
 * written to TUN, coalesced where it can. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "clock.h"
#include "datapath.h"
#include "eventlog.h"
#include "gro_write.h"
#include "log.h"
#include "pages.h"
#include "runtime.h"
#include "udp.h"
#include "workers.h"

enum {
	RX_MAX_PKTS = UDP_BATCH_DGRAMS,
	RX_HS_PER_RUN = 2,     /* handshake messages taken from one coalesced run */
	RX_GUESS_BACKOFF = 16, /* receive batches between reads after one found nothing */
};

struct rx_item {
	uint8_t *pkt;
	size_t len;
	int ep; /* index of the endpoint in the batch */
	int result;
};

struct rx {
	struct zt_runtime *zt;
	struct udp_batch b;
	struct rx_item item[RX_MAX_PKTS];
	struct wg_rx_job job[RX_MAX_PKTS];
	struct gro_pkt pkts[RX_MAX_PKTS];
	struct gro_writer gro;
	bool wrote;	/* packets went to TUN since the last poll */
	int guess_wait; /* batches before a read after a write may find something */
};

/* Decrypts items [begin, end): on any thread. */
static void rx_open_slice(void *arg, int begin, int end)
{
	struct rx *x = arg;

	for (int k = begin; k < end; k++) {
		if (x->item[k].result == WG_OK)
			wg_rx_open(&x->job[k], x->item[k].pkt, x->item[k].len);
	}
}

/* No message of ours: junk, or a peer whose AmneziaWG parameters (s1-s4,
 * h1-h4) differ from ours. Counted; logged at info at most every
 * EVENTLOG_INTERVAL_MS, on any receive thread. */
static void rx_unrecognised(struct zt_runtime *zt)
{
	static _Atomic uint64_t next_ms;
	uint64_t now = zt_mono_ms(), due = atomic_load_explicit(&next_ms, memory_order_relaxed);

	zt_drops_add(&zt->drops.unrecognised, 1);
	if (now < due ||
	    !atomic_compare_exchange_strong(&next_ms, &due, now + EVENTLOG_INTERVAL_MS))
		return;
	log_info("Datagram of no message type dropped (%llu so far): junk, or the peer's "
		 "AmneziaWG parameters (s1-s4, h1-h4) differ from ours",
		 (unsigned long long)zt_drops_read(&zt->drops.unrecognised));
}

static void rx_batch(struct rx *x, int nb)
{
	struct zt_runtime *zt = x->zt;
	struct udp_batch *b = &x->b;
	int n = 0, np = 0;
	size_t bytes = 0;

	for (int i = 0; i < nb; i++) {
		size_t seg = b->seg[i] ? b->seg[i] : b->len[i];
		int handshakes = 0;

		for (size_t off = 0; off < b->len[i] && n < RX_MAX_PKTS; off += seg) {
			uint8_t *d = b->bufs[i] + off;
			size_t l = b->len[i] - off < seg ? b->len[i] - off : seg;
			size_t pad;
			int type = wg_device_message_type(zt->dev, d, l, &pad);

			if (type >= WG_MESSAGE_HANDSHAKE_INITIATION &&
			    type <= WG_MESSAGE_HANDSHAKE_COOKIE) {
				/* a GRO run is one source's burst: a real peer sends
				 * a couple, a flood would fill the queue */
				if (++handshakes > RX_HS_PER_RUN)
					continue;
				if (!hsq_push(&zt->hsq, &b->ep[i], d + pad, l - pad)) {
					zt_drops_add(&zt->drops.handshake_queue_full, 1);
					log_debug("handshake queue full, dropping");
				}
			} else if (type == WG_MESSAGE_DATA) {
				x->item[n].pkt = d;
				x->item[n].len = l;
				x->item[n].ep = i;
				n++;
			} else {
				rx_unrecognised(zt);
			}
		}
	}
	if (!n)
		return;
	for (int k = 0; k < n; k++)
		bytes += x->item[k].len;
	zt_engine_lock(zt);
	for (int k = 0; k < n; k++) {
		x->item[k].result = wg_device_prepare_rx(
		    zt->dev, &b->ep[x->item[k].ep], x->item[k].pkt, x->item[k].len, &x->job[k]);
		x->job[k].ds = b->ds[x->item[k].ep]; /* ECN: complete marks the inner packet */
	}
	zt_engine_unlock(zt);
	wpool_run(&zt->dp.pool, rx_open_slice, x, n,
		  zt->dp.rx_fanout ? zt_datapath_slice(n, bytes) : n + 1);
	/* the replay window and delivery in arrival order */
	zt_engine_lock(zt);
	for (int k = 0; k < n; k++) {
		const uint8_t *out = NULL;
		size_t out_len = 0;

		if (x->item[k].result != WG_OK)
			continue;
		if (wg_device_complete_rx(zt->dev, &x->job[k], &out, &out_len) == WG_OK &&
		    out_len) {
			/* out points into our receive buffer */
			x->pkts[np].p = x->item[k].pkt + (out - x->item[k].pkt);
			x->pkts[np].len = out_len;
			np++;
		}
	}
	zt_engine_unlock(zt);
	if (np)
		gro_write(zt, &x->gro, x->pkts, np);
	x->wrote |= np > 0;
}

/* Receives up to max batches from fd while they come full; true if the
 * last was full (more may wait). */
static bool rx_socket(struct rx *x, int fd, int max)
{
	for (int k = 0; k < max; k++) {
		int n = udp_recv_batch(fd, &x->b);

		if (n < 0)
			log_debug("udp receive: %s", strerror(-n));
		if (n > 0)
			rx_batch(x, n);
		if (n < UDP_BATCH)
			return false;
	}
	return true;
}

/* Whether to read TUN queue 0 without a poll: what the kernel answered to
 * our TUN writes (an echo reply, TCP's ACKs) is queued when they return.
 * Once such a read found nothing (a flood nobody answers), only every
 * RX_GUESS_BACKOFF batches: an empty read per batch costs a small-packet
 * flood CPU per packet; poll still sees an answer that comes. */
static bool rx_guess(struct rx *x, const struct tx *t)
{
	if (!t || !x->wrote)
		return false;
	if (x->guess_wait)
		x->guess_wait--;
	return !x->guess_wait;
}

/* TUN queue 0 is read on this thread too (then named "tun-q0"): a packet
 * the kernel answers at once (a ping, a TCP ACK) is in the queue when the
 * TUN write returns and goes out without waking another thread. */
static struct tx *rx_tun_open(struct zt_runtime *zt)
{
	if (zt->dp.tun.sink)
		return NULL;
	prctl(PR_SET_NAME, "tun-q0", 0, 0, 0);
	return zt_tx_open_queue(zt, 0);
}

void *zt_udp_main(void *arg)
{
	struct zt_runtime *zt = arg;
	struct rx *x = zt_pages_alloc(sizeof(*x));
	struct tx *t = rx_tun_open(zt);
	struct udp_socks *socks = NULL;
	bool changed = true, more[3] = {0}; /* the last turn was full: fd4, fd6, TUN */

	if (!x || udp_batch_init(&x->b) || (!t && !zt->dp.tun.sink)) {
		log_err("udp: out of memory");
		if (t)
			zt_tx_close(t);
		zt_pages_free(x, sizeof(*x));
		zt_request_stop(zt);
		return NULL;
	}
	x->zt = zt;
	while (!atomic_load(&zt->stopping)) {
		if (changed) {
			/* held: a rebind closes them once we took the new ones */
			udp_socks_hold(&zt->udp, &socks);
			changed = false;
		}
		struct pollfd pfd[5] = {
		    {.fd = socks ? socks->fd4 : -1, .events = POLLIN},
		    {.fd = socks ? socks->fd6 : -1, .events = POLLIN},
		    {.fd = t ? zt->dp.tun.fd[0] : -1, .events = POLLIN},
		    {.fd = zt->udp.wake_fd, .events = POLLIN},
		    {.fd = zt->stop_fd, .events = POLLIN},
		};

		if (poll(pfd, 5, more[0] || more[1] || more[2] ? 0 : -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[4].revents)
			break;
		if (pfd[3].revents) {
			uint64_t v;

			if (read(zt->udp.wake_fd, &v, sizeof(v)) < 0)
				log_debug("udp wake read: %s", strerror(errno));
			changed = true;
			continue;
		}
		/* with TUN to serve too, one batch of each per poll */
		x->wrote = false;
		for (int s = 0; s < 2; s++)
			more[s] = (pfd[s].revents & (POLLIN | POLLERR)) &&
				  rx_socket(x, pfd[s].fd, t ? 1 : DP_BUSY_MAX);
		more[2] = false;
		if (!pfd[2].revents && !rx_guess(x, t))
			continue;
		/* a read error (a deleted interface) stops it with its reason */
		int got = zt_tx_turn(t, &more[2]);

		if (got < 0)
			break;
		if (x->wrote)
			x->guess_wait = got || pfd[2].revents ? 0 : RX_GUESS_BACKOFF;
		if (pfd[2].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			zt_request_stop(zt);
			break;
		}
	}
	if (t)
		zt_tx_close(t);
	udp_socks_drop(&zt->udp, &socks);
	udp_batch_free(&x->b);
	zt_pages_free(x, sizeof(*x));
	return NULL;
}
