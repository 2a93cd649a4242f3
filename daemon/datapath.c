/* Batched data path. Each direction reads a batch, prepares every packet
 * under the engine lock (routing, nonce reservation, replay lookups), does
 * the crypto outside the lock, completes under the lock in the order
 * prepared, then writes the batch out with one syscall per run (UDP GSO)
 * or per coalesced flow (TUN GRO). Buffers are allocated once per thread. */
#include "datapath.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "icmp.h"
#include "log.h"
#include "offload.h"
#include "runtime.h"
#include "tun.h"
#include "udp.h"
#include "workers.h"

enum {
	TX_IN_SIZE = VNET_HDR_LEN + 65536,
	TX_OUT_CAP = 512 << 10,
	TX_MAX_SEGS = 512,
	/* read another packet only while a full super-packet still fits */
	TX_ROOM = 65536 + 128 * 48,
	RUN_MAX_SEGS = 64,
	RUN_MAX_BYTES = 65000,
	RX_MAX_PKTS = UDP_BATCH * 64,
	ICMP_PER_SECOND = 100,
	RX_HS_PER_RUN = 2, /* handshake messages taken from one coalesced run */
	MIN_SLICE = 8,	   /* packets per worker slice: less is not worth a wakeup */
	/* a batch smaller than this is sealed/opened on the calling thread:
	 * waking a worker costs more than the crypto of a few small packets */
	PAR_MIN_BYTES = 8 << 10,
	BUSY_MAX = 64, /* batches in a row before a poll looks at stop_fd */
};

int zt_datapath_init(struct zt *zt)
{
	unsigned int offloads = 0;
	int ret = tun_setup_offload(zt->tun_fd, &zt->vnet_hdr, &offloads);

	if (ret)
		log_info("tun offload setup: %s", strerror(-ret));
	atomic_init(&zt->tun_gro, zt->vnet_hdr && zt->opt.tun_gro);
	/* TUN_F_USO4: the kernel has UDP_L4 GSO for tun */
	zt->tun_uso = (offloads & 0x20) != 0;
	log_info("offloads: tun vnet header %s (0x%x), tun GRO %s, UDP GSO %s, UDP GRO %s",
		 zt->vnet_hdr ? "on" : "off", offloads, atomic_load(&zt->tun_gro) ? "on" : "off",
		 udp_gso_enabled() ? "on" : "off", udp_gro_enabled() ? "on" : "off");
	return 0;
}

/* With one worker (two CPUs) both CPUs are already busy with the two
 * daemons and iperf3 under load; handing work to the other CPU pays a futex
 * wake-up and a context switch (hypercalls in a VM) for little. So, from
 * two workers on only: opens fan out, and a TSO/USO super-packet's segments
 * go to the batch's fan-out instead of being sealed as they are segmented.
 * Measured in doc/datapath.md. Plain packets (small UDP) always fan out. */
void zt_datapath_policy(struct zt *zt)
{
	int n = zt->pool.n_threads;

	zt->rx_fanout = n >= 2;
	zt->tx_fuse = n < 2;
	log_info("%d crypto worker thread%s (receive side %s, super-packets sealed %s)", n,
		 n == 1 ? "" : "s", zt->rx_fanout ? "too" : "inline",
		 zt->tx_fuse ? "as segmented" : "by the batch");
}

/* The TUN queue to write an inner packet to. With several queues a flow is
 * always written to the same one, by a hash of its addresses and ports that
 * is the same both ways: the kernel's tun driver steers a flow's outgoing
 * packets to the queue its incoming ones were written to, so each reader
 * thread gets whole flows. */
static int tun_fd_for(const struct zt *zt, const uint8_t *pkt, size_t len)
{
	uint32_t h = 0, w;
	size_t l4 = 0;
	uint8_t proto = 0;

	if (zt->n_tunq <= 1 || !len)
		return zt->tun_fd;
	if (pkt[0] >> 4 == 4 && len >= 20) {
		l4 = (size_t)(pkt[0] & 15) * 4;
		proto = pkt[9];
		for (int i = 12; i < 20; i += 4) {
			memcpy(&w, pkt + i, 4);
			h += w;
		}
		if (pkt[6] & 0x3f || pkt[7]) /* a fragment: no ports */
			proto = 0;
	} else if (pkt[0] >> 4 == 6 && len >= 40) {
		l4 = 40;
		proto = pkt[6];
		for (int i = 8; i < 40; i += 4) {
			memcpy(&w, pkt + i, 4);
			h += w;
		}
	}
	if ((proto == 6 || proto == 17) && l4 + 4 <= len)
		h += (uint32_t)(pkt[l4] << 8 | pkt[l4 + 1]) +
		     (uint32_t)(pkt[l4 + 2] << 8 | pkt[l4 + 3]);
	h ^= proto;
	h *= 0x9e3779b1u; /* spread the sum into the high bits */
	return zt->tunq[(uint64_t)h * (uint32_t)zt->n_tunq >> 32].fd;
}

void zt_tun_write(struct zt *zt, const uint8_t *pkt, size_t len)
{
	static const struct vnet_hdr none;
	struct iovec iov[2] = {
	    {.iov_base = (void *)&none, .iov_len = VNET_HDR_LEN},
	    {.iov_base = (void *)pkt, .iov_len = len},
	};
	ssize_t r;

	/* TUN writes do not block; a failure means a full queue: drop */
	if (zt->vnet_hdr)
		r = writev(tun_fd_for(zt, pkt, len), iov, 2);
	else
		r = write(tun_fd_for(zt, pkt, len), pkt, len);
	if (r < 0) {
		zt_drops_add(&zt->drops.tun_full, 1);
		log_debug("tun write (%zu bytes): %s", len, strerror(errno));
	}
}

/* ---- TUN -> UDP ---- */

struct tx_slot {
	size_t off;    /* sealed message at out + off, plaintext at + WG_DATA_HEADER_LEN */
	size_t len;    /* plaintext length */
	size_t sealed; /* the message length the layout reserved */
	int result;
	bool done; /* sealed already (a fused super-packet's segment) */
};

struct tx {
	struct zt *zt;
	int fd; /* the TUN queue this thread reads */
	uint8_t *in;
	uint8_t *out;
	size_t cur;
	int n;
	int prepared; /* slots [0, prepared) went through prepare */
	uint32_t mtu;
	/* the sockets this batch is sent on, held from its first prepare to
	 * its completion (a rebind may replace them meanwhile) */
	struct udp_socks *socks;
	struct tx_slot slot[TX_MAX_SEGS];
	struct wg_tx_job job[TX_MAX_SEGS];
	struct udp_run runs[TX_MAX_SEGS];
	uint64_t icmp_window;
	uint32_t icmp_count;
	bool full; /* the last read stopped for room, not for an empty queue */
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
	size_t s = sealed_len(len, t->mtu);
	struct tx_slot *sl;

	if (t->n >= TX_MAX_SEGS || t->cur + s > TX_OUT_CAP)
		return NULL;
	sl = &t->slot[t->n++];
	sl->off = t->cur;
	sl->len = len;
	sl->sealed = s;
	sl->done = false;
	t->cur += s;
	return t->out + sl->off + WG_DATA_HEADER_LEN;
}

/* A packet with no peer: answer with ICMP unreachable, at a bounded rate. */
static void send_unreachable(struct tx *t, const uint8_t *pkt, size_t len)
{
	uint8_t msg[ICMP_REPLY_MAX];
	struct if_addrs from;
	uint64_t now = zt_now_ns();
	size_t n;

	if (now - t->icmp_window >= 1000000000ULL) {
		t->icmp_window = now;
		t->icmp_count = 0;
	}
	if (t->icmp_count >= ICMP_PER_SECOND)
		return;
	zt_engine_lock(t->zt);
	from = t->zt->addrs;
	zt_engine_unlock(t->zt);
	/* an IPv4 packet from one of our own addresses written to the TUN is
	 * dropped as a martian: it leaves through the raw socket instead, as
	 * the kernel's own errors do (IPv6 takes it from the TUN) */
	if (t->zt->icmp_fd < 0)
		from.has4 = false;
	n = icmp_unreachable(pkt, len, &from, msg);
	if (!n)
		return;
	t->icmp_count++;
	if ((msg[0] >> 4) == 4 && from.has4) {
		struct sockaddr_in to = {.sin_family = AF_INET};

		memcpy(&to.sin_addr, msg + 16, sizeof(to.sin_addr));
		if (sendto(t->zt->icmp_fd, msg, n, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			log_debug("icmp send: %s", strerror(errno));
		return;
	}
	zt_tun_write(t->zt, msg, n);
}

/* Prepares slots [prepared, end) in order under the engine lock (routing,
 * nonce reservation). */
static void tx_prepare(struct tx *t, int end)
{
	struct zt *zt = t->zt;

	if (t->prepared >= end)
		return;
	zt_engine_lock(zt);
	udp_socks_hold(&zt->udp, &t->socks);
	for (int i = t->prepared; i < end; i++) {
		struct tx_slot *s = &t->slot[i];

		s->result = wg_device_prepare_tx(zt->dev, t->out + s->off + WG_DATA_HEADER_LEN,
						 s->len, &t->job[i]);
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
			wg_tx_seal(t->zt->dev, &t->job[i], t->out + s->off + WG_DATA_HEADER_LEN,
				   t->out + s->off);
			s->done = true;
		}
	}
}

/* Segments one packet read from TUN (r bytes at in) into the batch. */
static void tx_take(struct tx *t, const uint8_t *pkt, size_t len)
{
	struct vnet_hdr h = {0};
	int done, ret, first;

	if (t->zt->vnet_hdr) {
		if (len < VNET_HDR_LEN)
			return;
		memcpy(&h, pkt, VNET_HDR_LEN);
		pkt += VNET_HDR_LEN;
		len -= VNET_HDR_LEN;
	}
	if (!len)
		return;
	first = t->n;
	ret = offload_segment(&h, pkt, len, tx_alloc, t, &done, &t->zt->offload_stats);
	if (ret == 0)
		log_debug("tun: malformed offload packet dropped (%zu bytes, gso %u; %llu so far)",
			  len, h.gso_type,
			  (unsigned long long)atomic_load_explicit(&t->zt->offload_stats.malformed,
								   memory_order_relaxed));
	else if (ret < 0)
		log_debug("tun: batch full, %d segments kept", done);
	/* encryption fused with segmentation: a super-packet's segments are
	 * sealed here, while the ~64 KiB just written are still in cache,
	 * instead of after the whole batch (up to 512 KiB) is read */
	if (t->zt->tx_fuse && h.gso_type != VNET_GSO_NONE && t->n > first) {
		tx_prepare(t, t->n);
		tx_seal_slice(t, first, t->n);
	}
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
	/* the kernel detaches every fd of a deleted interface: that is how
	 * the interface going away looks from here, not a failure */
	if (err == EBADFD)
		log_info("interface %s is gone, stopping", t->zt->ifname);
	else
		log_err("tun read: %s, stopping", strerror(err));
	zt_request_stop(t->zt);
	return false;
}

/* Reads what TUN has (up to the batch limits) into segments. Returns false
 * when the thread should stop. */
static bool tx_read(struct tx *t)
{
	t->full = false;
	while (tx_room(t)) {
		ssize_t r = read(t->fd, t->in, TX_IN_SIZE);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return tx_read_error(t, errno);
		}
		if (!r)
			return true;
		tx_take(t, t->in, (size_t)r);
	}
	t->full = true;
	return true;
}

/* The min_slice for wpool_run: the whole batch (inline) when it is small. */
static int slice_for(int n, size_t bytes)
{
	return bytes < PAR_MIN_BYTES ? n + 1 : MIN_SLICE;
}

static bool same_dest(const struct wg_tx_job *a, const struct wg_tx_job *b)
{
	return a->peer == b->peer && !memcmp(&a->to, &b->to, sizeof(a->to));
}

static void tx_flush(struct tx *t)
{
	struct zt *zt = t->zt;
	int n_runs = 0, n_dgrams = 0, sent;
	size_t left = 0; /* bytes still to seal (fused segments are done) */

	tx_prepare(t, t->n);
	for (int i = 0; i < t->n; i++)
		left += t->slot[i].done ? 0 : t->slot[i].len;
	wpool_run(&zt->pool, tx_seal_slice, t, t->n, slice_for(t->n, left));

	for (int i = 0; i < t->n; i++) {
		struct tx_slot *s = &t->slot[i];
		struct udp_run *r = n_runs ? &t->runs[n_runs - 1] : NULL;

		if (s->result == WG_ERR_NOROUTE || s->result == WG_ERR_NOKEY) {
			/* as the kernel: no peer, or a peer without endpoint */
			send_unreachable(t, t->out + s->off + WG_DATA_HEADER_LEN, s->len);
			continue;
		}
		if (s->result != WG_OK)
			continue;
		/* extend the run: same destination, right after it, same size
		 * (only the last of a run may be shorter) */
		if (r && i > 0 && t->slot[i - 1].result == WG_OK &&
		    same_dest(&t->job[i - 1], &t->job[i]) && r->buf + r->len == t->out + s->off &&
		    t->slot[i - 1].sealed == r->seg && s->sealed <= r->seg &&
		    r->count < RUN_MAX_SEGS && r->len + s->sealed <= RUN_MAX_BYTES) {
			r->len += s->sealed;
			r->count++;
			continue;
		}
		r = &t->runs[n_runs++];
		r->to = &t->job[i].to;
		r->buf = t->out + s->off;
		r->len = r->seg = s->sealed;
		r->count = 1;
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
	/* not kept between batches: an idle thread would keep a replaced
	 * port bound */
	udp_socks_drop(&zt->udp, &t->socks);
	zt_engine_unlock(zt);
	t->n = 0;
	t->prepared = 0;
	t->cur = 0;
}

void *zt_tun_main(void *arg)
{
	const struct zt_tunq *q = arg;
	struct zt *zt = q->zt;
	struct tx *t = calloc(1, sizeof(*t));

	if (t) {
		t->in = malloc(TX_IN_SIZE);
		t->out = malloc(TX_OUT_CAP);
	}
	if (!t || !t->in || !t->out) {
		log_err("tun: out of memory");
		if (t) {
			free(t->in);
			free(t->out);
		}
		free(t);
		zt_request_stop(zt);
		return NULL;
	}
	char name[16];

	/* "tun-q0", ...: which thread reads which queue (top -H, /proc) */
	snprintf(name, sizeof(name), "tun-q%d", (int)(q - zt->tunq));
	prctl(PR_SET_NAME, name, 0, 0, 0);
	t->zt = zt;
	t->fd = q->fd;
	int busy = 0; /* batches in a row without poll */

	while (!atomic_load(&zt->stopping)) {
		struct pollfd pfd[2] = {
		    {.fd = t->fd, .events = POLLIN},
		    {.fd = zt->stop_fd, .events = POLLIN},
		};
		/* the last read stopped for room, not for an empty queue:
		 * more to do at once */
		bool more = t->full;
		/* after such a batch read again without a poll (a system call
		 * per batch); every BUSY_MAX batches a poll that does not wait */
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
		busy = busy < BUSY_MAX ? busy + 1 : 0;
	}
	if (t->prepared) { /* stopped with a batch prepared (fused sealing) */
		/* its jobs hold keypair references: give them back, as unsent,
		 * so that wg_device_free finds every keypair released and wiped */
		zt_engine_lock(zt);
		for (int i = 0; i < t->prepared; i++) {
			if (t->job[i].keypair)
				wg_device_complete_tx(zt->dev, &t->job[i], false);
		}
		zt_engine_unlock(zt);
	}
	if (t->socks) {
		zt_engine_lock(zt);
		udp_socks_drop(&zt->udp, &t->socks);
		zt_engine_unlock(zt);
	}
	free(t->in);
	free(t->out);
	free(t);
	return NULL;
}

/* ---- UDP -> TUN ---- */

struct rx_item {
	uint8_t *pkt;
	size_t len;
	int ep; /* index of the endpoint in the batch */
	int result;
};

struct rx {
	struct zt *zt;
	struct udp_batch b;
	struct rx_item item[RX_MAX_PKTS];
	struct wg_rx_job job[RX_MAX_PKTS];
	struct gro_pkt pkts[RX_MAX_PKTS];
	struct gro_item gitems[RX_MAX_PKTS];
	int gnext[RX_MAX_PKTS];
	struct iovec iov[GRO_MAX_SEGS + 2];
};

static void tun_write_plan(struct rx *x, int np)
{
	struct zt *zt = x->zt;
	struct gro_plan plan = {.items = x->gitems, .next = x->gnext};

	if (!atomic_load_explicit(&zt->tun_gro, memory_order_relaxed)) {
		for (int i = 0; i < np; i++)
			zt_tun_write(zt, x->pkts[i].p, x->pkts[i].len);
		return;
	}
	gro_plan_build(&plan, x->pkts, np, zt->tun_uso);
	for (int k = 0; k < plan.n_items; k++) {
		struct gro_item *it = &plan.items[k];
		struct vnet_hdr h;
		uint8_t saved[64];
		int n;

		if (it->nseg == 1 || !atomic_load_explicit(&zt->tun_gro, memory_order_relaxed)) {
			for (int i = it->head; i >= 0; i = it->nseg == 1 ? -1 : plan.next[i])
				zt_tun_write(zt, x->pkts[i].p, x->pkts[i].len);
			continue;
		}
		n = gro_item_prepare(it, &plan, x->pkts, &h, x->iov, saved);
		if (writev(tun_fd_for(zt, x->pkts[it->head].p, x->pkts[it->head].len), x->iov, n) >=
		    0)
			continue;
		if (errno != EINVAL) {
			zt_drops_add(&zt->drops.tun_full, (uint64_t)it->nseg);
			log_debug("tun write (%u bytes, %d segments): %s", it->len, it->nseg,
				  strerror(errno));
			continue;
		}
		/* the kernel refuses coalesced packets: write them singly */
		if (atomic_exchange(&zt->tun_gro, false))
			log_info(
			    "TUN GRO write failed (%s): writing packets one by one from now on",
			    strerror(errno));
		gro_item_restore(it, x->pkts, saved);
		for (int i = it->head; i >= 0; i = plan.next[i])
			zt_tun_write(zt, x->pkts[i].p, x->pkts[i].len);
	}
}

/* Decrypts items [begin, end): on any thread. */
static void rx_open_slice(void *arg, int begin, int end)
{
	struct rx *x = arg;

	for (int k = begin; k < end; k++) {
		if (x->item[k].result == WG_OK)
			wg_rx_open(&x->job[k], x->item[k].pkt, x->item[k].len);
	}
}

static void rx_batch(struct rx *x, int nb)
{
	struct zt *zt = x->zt;
	struct udp_batch *b = &x->b;
	int n = 0, np = 0;
	size_t bytes = 0;

	for (int i = 0; i < nb; i++) {
		size_t seg = b->seg[i] ? b->seg[i] : b->len[i];
		int handshakes = 0;

		for (size_t off = 0; off < b->len[i] && n < RX_MAX_PKTS; off += seg) {
			uint8_t *d = b->bufs[i] + off;
			size_t l = b->len[i] - off < seg ? b->len[i] - off : seg;
			int type = wg_message_type(d, l);

			if (type >= WG_MESSAGE_HANDSHAKE_INITIATION &&
			    type <= WG_MESSAGE_HANDSHAKE_COOKIE) {
				/* a GRO run is one source's back-to-back burst: a
				 * real peer never sends more than a couple, a flood
				 * would fill the queue ahead of everyone else */
				if (++handshakes > RX_HS_PER_RUN)
					continue;
				if (!hsq_push(&zt->hsq, &b->ep[i], d, l)) {
					zt_drops_add(&zt->drops.handshake_queue_full, 1);
					log_debug("handshake queue full, dropping");
				}
			} else if (type == WG_MESSAGE_DATA) {
				x->item[n].pkt = d;
				x->item[n].len = l;
				x->item[n].ep = i;
				n++;
			}
		}
	}
	if (!n)
		return;
	for (int k = 0; k < n; k++)
		bytes += x->item[k].len;
	zt_engine_lock(zt);
	for (int k = 0; k < n; k++)
		x->item[k].result = wg_device_prepare_rx(
		    zt->dev, &b->ep[x->item[k].ep], x->item[k].pkt, x->item[k].len, &x->job[k]);
	zt_engine_unlock(zt);
	wpool_run(&zt->pool, rx_open_slice, x, n, zt->rx_fanout ? slice_for(n, bytes) : n + 1);
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
		tun_write_plan(x, np);
}

void *zt_udp_main(void *arg)
{
	struct zt *zt = arg;
	struct rx *x = calloc(1, sizeof(*x));
	struct udp_socks *socks = NULL;
	bool changed = true;

	if (!x || udp_batch_init(&x->b)) {
		log_err("udp: out of memory");
		free(x);
		zt_request_stop(zt);
		return NULL;
	}
	x->zt = zt;
	while (!atomic_load(&zt->stopping)) {
		if (changed) {
			/* the sockets polled are held: a rebind closes them
			 * only once this thread has taken the new ones */
			zt_engine_lock(zt);
			udp_socks_hold(&zt->udp, &socks);
			zt_engine_unlock(zt);
			changed = false;
		}
		struct pollfd pfd[4] = {
		    {.fd = socks ? socks->fd4 : -1, .events = POLLIN},
		    {.fd = socks ? socks->fd6 : -1, .events = POLLIN},
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
			changed = true;
			continue;
		}
		for (int s = 0; s < 2; s++) {
			if (!(pfd[s].revents & (POLLIN | POLLERR)))
				continue;
			/* while full batches come, receive again without a poll */
			for (int k = 0; k < BUSY_MAX; k++) {
				int n = udp_recv_batch(pfd[s].fd, &x->b);

				if (n < 0)
					log_debug("udp receive: %s", strerror(-n));
				if (n > 0)
					rx_batch(x, n);
				if (n < UDP_BATCH)
					break;
			}
		}
	}
	zt_engine_lock(zt);
	udp_socks_drop(&zt->udp, &socks);
	zt_engine_unlock(zt);
	udp_batch_free(&x->b);
	free(x);
	return NULL;
}
