/* TUN -> UDP: a thread per TUN queue reads a batch, prepares it under the
 * engine lock, seals outside it, sends runs with one call each (UDP GSO)
 * and completes under the lock in order. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "datapath.h"
#include "dpbuf.h"
#include "log.h"
#include "offload.h"
#include "pages.h"
#include "runtime.h"
#include "tun.h"
#include "udp.h"
#include "unreach.h"
#include "workers.h"

struct tx_slot {
	size_t off;    /* sealed message at out + off */
	size_t plain;  /* plaintext at out + plain: where the seal puts it (after s4) */
	size_t len;    /* plaintext length */
	size_t sealed; /* the message length the layout reserved */
	int result;
	bool done; /* sealed already (a fused super-packet's segment) */
};

struct tx {
	struct zt_runtime *zt;
	int q; /* the TUN queue this thread reads */
	uint8_t *in;
	uint8_t *out;
	size_t cur;
	int n;
	int prepared; /* slots [0, prepared) went through prepare */
	uint32_t mtu;
	uint32_t pad; /* AmneziaWG s4 in front of each message (the seal moves the plaintext) */
	/* held from the first prepare to completion (a rebind may replace them) */
	struct udp_socks *socks;
	struct tx_slot slot[TX_MAX_SEGS];
	struct wg_tx_job job[TX_MAX_SEGS];
	struct udp_run runs[TX_MAX_SEGS];
	struct unreach_rate unreach;
	bool full; /* the last read stopped for room, not for an empty queue */
	int got;   /* packets the last read took */
};

/* The engine pads to 16 bytes but never past the MTU (as wg_tx_sealed_len). */
static size_t sealed_len(size_t len, uint32_t mtu)
{
	struct wg_tx_job j = {.len = len, .mtu = mtu};

	return wg_tx_sealed_len(NULL, &j);
}

static uint8_t *tx_alloc(void *ctx, size_t len)
{
	struct tx *t = ctx;
	size_t s = sealed_len(len, t->mtu) + t->pad;
	struct tx_slot *sl;

	if (t->n >= TX_MAX_SEGS || t->cur + s > TX_OUT_CAP)
		return NULL;
	sl = &t->slot[t->n++];
	sl->off = t->cur;
	sl->plain = t->cur + t->pad + WG_DATA_HEADER_LEN;
	sl->len = len;
	sl->sealed = s;
	sl->done = false;
	t->cur += s;
	return t->out + sl->plain;
}

/* Prepares slots [prepared, end) in order under the engine lock. */
static void tx_prepare(struct tx *t, int end)
{
	struct zt_runtime *zt = t->zt;

	if (t->prepared >= end)
		return;
	zt_engine_lock(zt);
	udp_socks_hold(&zt->udp, &t->socks);
	for (int i = t->prepared; i < end; i++) {
		struct tx_slot *s = &t->slot[i];

		s->result = wg_device_prepare_tx(zt->dev, t->out + s->plain, s->len, &t->job[i]);
		/* the MTU changed between layout and prepare: drop it */
		if (s->result == WG_OK && wg_tx_sealed_len(zt->dev, &t->job[i]) != s->sealed)
			s->result = WG_ERR_INVALID;
	}
	zt_engine_unlock(zt);
	t->prepared = end;
}

/* Seals slots [begin, end): on any thread (nonces were reserved in order). */
static void tx_seal_slice(void *arg, int begin, int end)
{
	struct tx *t = arg;

	for (int i = begin; i < end; i++) {
		struct tx_slot *s = &t->slot[i];

		if (s->result == WG_OK && !s->done) {
			wg_tx_seal(t->zt->dev, &t->job[i], t->out + s->plain, t->out + s->off);
			s->done = true;
		}
	}
}

/* Segments one packet (its virtio-net header h) into the batch. */
static void tx_take_packet(struct tx *t, const struct vnet_hdr *hdr, const uint8_t *pkt, size_t len)
{
	struct vnet_hdr h = *hdr;
	int done, ret, first;

	if (!len)
		return;
	first = t->n;
	ret = offload_segment(&h, pkt, len, tx_alloc, t, &done, &t->zt->dp.offload_stats);
	if (ret == 0)
		log_debug("tun: malformed offload packet dropped (%zu bytes, gso %u; %llu so far)",
			  len, h.gso_type,
			  (unsigned long long)atomic_load_explicit(
			      &t->zt->dp.offload_stats.malformed, memory_order_relaxed));
	else if (ret < 0)
		log_debug("tun: batch full, %d segments kept", done);
	/* fused: sealed while the ~64 KiB just written are still in cache */
	if (t->zt->dp.tx_fuse && h.gso_type != VNET_GSO_NONE && t->n > first) {
		tx_prepare(t, t->n);
		tx_seal_slice(t, first, t->n);
	}
}

/* One packet read from TUN (len bytes at pkt) into the batch. */
static void tx_take(struct tx *t, const uint8_t *pkt, size_t len)
{
	struct vnet_hdr h = {0};

	if (t->zt->dp.tun.vnet_hdr) {
		if (len < VNET_HDR_LEN)
			return;
		memcpy(&h, pkt, VNET_HDR_LEN);
		pkt += VNET_HDR_LEN;
		len -= VNET_HDR_LEN;
	}
	tx_take_packet(t, &h, pkt, len);
}

/* Room in this batch for a whole super-packet (any read may be one). */
static bool tx_room(const struct tx *t)
{
	return t->n < TX_MAX_SEGS - 128 && t->cur + TX_ROOM <= TX_OUT_CAP;
}

static bool tx_read_error(struct tx *t, int err)
{
	if (err == EINTR || err == EAGAIN || err == EWOULDBLOCK)
		return true;
	/* the kernel detaches every fd of a deleted interface: not a failure */
	if (err == EBADFD)
		log_info("interface %s is gone, stopping", t->zt->ifname);
	else
		log_err("tun read: %s, stopping", strerror(err));
	zt_request_stop(t->zt);
	return false;
}

static void tx_flush(struct tx *t);

/* Reads what TUN has into the batch; false when the thread should stop. */
static bool tx_read(struct tx *t)
{
	/* the queue was drained last time and held one packet: a lone first
	 * packet (a ping, an ACK) goes out before the read that finds the
	 * queue empty; in a stream it would cost a send per read */
	bool lone = !t->full && t->got <= 1;

	t->full = false;
	t->got = 0;
	while (tx_room(t)) {
		ssize_t r = tun_read(&t->zt->dp.tun, t->q, t->in, TX_IN_SIZE);

		if (r == -EINTR)
			continue;
		if (r < 0)
			return tx_read_error(t, (int)-r);
		if (!r)
			return true;
		tx_take(t, t->in, (size_t)r);
		t->got++;
		if (lone && t->n == 1)
			tx_flush(t);
		lone = false;
	}
	t->full = true;
	return true;
}

static void tx_flush(struct tx *t)
{
	struct zt_runtime *zt = t->zt;
	int n_runs = 0, n_dgrams = 0, sent;
	size_t left = 0; /* bytes still to seal (fused segments are done) */

	tx_prepare(t, t->n);
	for (int i = 0; i < t->n; i++)
		left += t->slot[i].done ? 0 : t->slot[i].len;
	wpool_run(&zt->dp.pool, tx_seal_slice, t, t->n, zt_datapath_slice(t->n, left));

	for (int i = 0; i < t->n; i++) {
		struct tx_slot *s = &t->slot[i];
		/* a run holds one peer's messages */
		bool same_peer =
		    i > 0 && t->slot[i - 1].result == WG_OK && t->job[i - 1].peer == t->job[i].peer;

		if (s->result == WG_ERR_NOROUTE || s->result == WG_ERR_NOKEY) {
			/* as the kernel: no peer, or a peer without endpoint */
			zt_send_unreachable(zt, &t->unreach, t->out + s->plain, s->len);
			continue;
		}
		if (s->result != WG_OK)
			continue;
		n_runs = udp_runs_add(t->runs, n_runs, same_peer, &t->job[i].to, t->job[i].ds,
				      t->job[i].ttl, t->out + s->off, s->sealed);
	}
	for (int i = 0; i < n_runs; i++)
		n_dgrams += t->runs[i].count;
	sent = n_runs && t->socks ? udp_send_runs(&zt->udp, t->socks, t->runs, n_runs) : 0;
	if (sent < n_dgrams)
		zt_drops_add(&zt->drops.socket_error, (uint64_t)(n_dgrams - sent));

	zt_engine_lock(zt);
	for (int i = 0; i < t->n; i++) {
		if (t->job[i].keypair)
			wg_device_complete_tx(zt->dev, &t->job[i], t->slot[i].result == WG_OK);
	}
	/* an idle thread would keep a replaced port bound */
	udp_socks_drop(&zt->udp, &t->socks);
	zt_engine_unlock(zt);
	t->n = 0;
	t->prepared = 0;
	t->cur = 0;
}

static void tx_free(struct tx *t)
{
	if (!t)
		return;
	zt_pages_free(t->in, TX_IN_SIZE);
	zt_pages_free(t->out, TX_OUT_CAP);
	zt_pages_free(t, sizeof(*t));
}

struct tx *zt_tx_open(struct zt_runtime *zt)
{
	struct tx *t = zt_pages_alloc(sizeof(*t));

	if (!t)
		return NULL;
	t->in = zt_pages_alloc(TX_IN_SIZE);
	t->out = zt_pages_alloc(TX_OUT_CAP);
	if (!t->in || !t->out) {
		tx_free(t);
		return NULL;
	}
	t->zt = zt;
	return t;
}

/* Gives back the prepared jobs' keypair references (as unsent, so
 * wg_device_free finds every keypair released and wiped) and the sockets. */
static void tx_release(struct tx *t)
{
	struct zt_runtime *zt = t->zt;

	zt_engine_lock(zt);
	for (int i = 0; i < t->prepared; i++) {
		if (t->job[i].keypair)
			wg_device_complete_tx(zt->dev, &t->job[i], false);
	}
	t->prepared = 0;
	t->n = 0;
	t->cur = 0;
	udp_socks_drop(&zt->udp, &t->socks);
	zt_engine_unlock(zt);
}

void zt_tx_add(struct tx *t, const uint8_t *pkt, size_t len)
{
	static const struct vnet_hdr none;

	if (!tx_room(t))
		tx_flush(t);
	if (!t->n) {
		t->mtu = atomic_load(&t->zt->tx_mtu);
		t->pad = wg_device_tx_padding(t->zt->dev);
	}
	tx_take_packet(t, &none, pkt, len);
}

void zt_tx_send(struct tx *t)
{
	if (t->n)
		tx_flush(t);
}

/* A queue's batch for a thread that also does other work (zt_udp_main). */
struct tx *zt_tx_open_queue(struct zt_runtime *zt, int q)
{
	struct tx *t = zt_tx_open(zt);

	if (t)
		t->q = q;
	return t;
}

int zt_tx_turn(struct tx *t, bool *more)
{
	t->mtu = atomic_load(&t->zt->tx_mtu);
	t->pad = wg_device_tx_padding(t->zt->dev);
	if (!tx_read(t))
		return -1;
	*more = t->full;
	if (t->n)
		tx_flush(t);
	return t->got;
}

void zt_tx_close(struct tx *t)
{
	/* stopped with a batch prepared (fused sealing) */
	tx_release(t);
	tx_free(t);
}

void *zt_tun_main(void *arg)
{
	const struct zt_tunq *q = arg;
	struct zt_runtime *zt = q->zt;
	struct tx *t = zt_tx_open(zt);

	if (!t) {
		log_err("tun: out of memory");
		zt_request_stop(zt);
		return NULL;
	}
	char name[16];

	/* "tun-q0", ...: which thread reads which queue (top -H, /proc) */
	snprintf(name, sizeof(name), "tun-q%d", q->index);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	t->q = q->index;
	int busy = 0; /* batches in a row without poll */

	while (!atomic_load(&zt->stopping)) {
		struct pollfd pfd[2] = {
		    {.fd = zt->dp.tun.fd[t->q], .events = POLLIN},
		    {.fd = zt->stop_fd, .events = POLLIN},
		};
		bool more = t->full; /* the last read stopped for room */
		/* then read again without a poll, but for a non-waiting one
		 * every DP_BUSY_MAX batches */
		bool wait = !(busy && more);

		if (wait) {
			if (poll(pfd, 2, more ? 0 : -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			if (pfd[1].revents)
				break;
		}
		t->mtu = atomic_load(&zt->tx_mtu);
		t->pad = wg_device_tx_padding(zt->dev);
		if (!tx_read(t))
			break;
		if (!t->n) {
			if (wait && (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL))) {
				zt_request_stop(zt);
				break;
			}
			busy = 0;
			continue;
		}
		tx_flush(t);
		busy = busy < DP_BUSY_MAX ? busy + 1 : 0;
	}
	zt_tx_close(t);
	return NULL;
}
