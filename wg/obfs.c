/* AmneziaWG on the wire: header values, padding in front of messages, junk
 * before initiations, and recognising all of it on receive. */
#include <string.h>

#include <zinc/chacha20.h>

#include "bytes.h"
#include "device.h"
#include "obfs.h"
#include "peer.h"

/* Junk and padding hide nothing: a failed draw (no handshake goes out
 * unseeded anyway) sends zeros, never what the buffer held. */
static void obfs_random(struct wg_device *dev, void *buf, size_t len)
{
	if (len && !wg_device_random(dev, buf, len)) /* plain WireGuard: no extra call */
		memset(buf, 0, len);
}

static uint32_t pick(struct wg_device *dev, const struct wg_obfs_range *r)
{
	uint64_t x = 0;

	if (r->lo == r->hi)
		return r->lo;
	obfs_random(dev, &x, sizeof(x));
	return r->lo + (uint32_t)(x % ((uint64_t)r->hi - r->lo + 1));
}

void wg_obfs_init(struct wg_obfs *o)
{
	wg_obfs_config_init(&o->cfg);
	for (int t = 0; t < WG_OBFS_TYPES; t++) {
		atomic_init(&o->pad[t], 0);
		atomic_init(&o->lo[t], (uint32_t)t + 1);
		atomic_init(&o->hi[t], (uint32_t)t + 1);
	}
	atomic_init(&o->on, false);
}

void wg_obfs_put_header(struct wg_device *dev, uint8_t *p, int t)
{
	wg_put_le32(p, pick(dev, &dev->obfs.cfg.h[t - 1]));
}

size_t wg_obfs_frame(struct wg_device *dev, int t, const void *msg, size_t len, uint8_t *out)
{
	size_t pad = dev->obfs.cfg.s[t - 1];

	memmove(out + pad, msg, len);
	obfs_random(dev, out, pad);
	return pad + len;
}

static void send_junk(struct wg_device *dev, struct wg_peer *peer, const uint8_t *pkt, size_t len)
{
	dev->io.send(dev->io.ctx, &peer->endpoint, pkt, len, WG_HANDSHAKE_DS);
	peer->tx_bytes += len;
}

void wg_obfs_send_junk(struct wg_device *dev, struct wg_peer *peer)
{
	const struct wg_obfs_config *c = &dev->obfs.cfg;
	uint8_t buf[WG_OBFS_MAX_DATAGRAM];

	for (int i = 0; i < WG_OBFS_SPECIALS; i++) {
		if (c->i[i][0])
			send_junk(dev, peer, buf, wg_obfs_spec_emit(dev, c->i[i], buf));
	}
	for (uint32_t j = 0; j < c->jc; j++) {
		struct wg_obfs_range r = {c->jmin, c->jmax};
		size_t n = pick(dev, &r);

		obfs_random(dev, buf, n);
		send_junk(dev, peer, buf, n);
	}
}

void wg_obfs_tx_params(const struct wg_device *dev, size_t plain_len, uint32_t *pad,
		       struct wg_obfs_range *hdr)
{
	/* a keepalive goes unpadded, as amneziawg-go sends it */
	*pad = plain_len ? dev->obfs.cfg.s[3] : 0;
	*hdr = dev->obfs.cfg.h[3];
}

/* Transport padding and header values come from the calling thread's block
 * of keystream under the device's data key: one multi-block ChaCha20 call
 * per WG_OBFS_STREAM_LEN bytes, where a block per packet cost more than the
 * rest of the framing. Each refill takes a nonce no refill in the process
 * ever took, so no two threads (or devices) share keystream. */
static _Atomic uint64_t stream_refills;
static _Thread_local struct {
	uint8_t buf[WG_OBFS_STREAM_LEN];
	size_t left; /* the last left bytes of buf are unused; zero: refill */
} stream;

static void stream_take(const struct wg_device *dev, uint8_t *out, size_t len)
{
	while (len) {
		uint8_t nonce[ZINC_CHACHA20_NONCE_SIZE] = {0};
		size_t n;

		if (!stream.left) {
			wg_put_le64(nonce, atomic_fetch_add_explicit(&stream_refills, 1,
								     memory_order_relaxed));
			memset(stream.buf, 0, sizeof(stream.buf));
			zinc_chacha20(stream.buf, stream.buf, sizeof(stream.buf),
				      dev->obfs.data_key, nonce, 0);
			stream.left = sizeof(stream.buf);
		}
		n = stream.left < len ? stream.left : len;
		memcpy(out, stream.buf + sizeof(stream.buf) - stream.left, n);
		stream.left -= n;
		out += n;
		len -= n;
	}
}

void wg_obfs_frame_data(const struct wg_device *dev, uint8_t *out, uint32_t pad,
			const struct wg_obfs_range *hdr)
{
	uint32_t v = hdr->lo;

	if (hdr->lo != hdr->hi) {
		uint64_t x;

		stream_take(dev, (uint8_t *)&x, sizeof(x));
		v += (uint32_t)(x % ((uint64_t)hdr->hi - hdr->lo + 1));
	}
	stream_take(dev, out, pad);
	wg_put_le32(out + pad, v);
}

static bool header_in(const struct wg_obfs *o, int t, const uint8_t *p)
{
	uint32_t v = wg_le32(p);

	return v >= atomic_load_explicit(&o->lo[t], memory_order_relaxed) &&
	       v <= atomic_load_explicit(&o->hi[t], memory_order_relaxed);
}

int wg_device_message_type(const struct wg_device *dev, const uint8_t *pkt, size_t len, size_t *off)
{
	const struct wg_obfs *o = &dev->obfs;

	*off = 0;
	if (!atomic_load_explicit(&o->on, memory_order_relaxed))
		return wg_message_type(pkt, len);
	if (!pkt)
		return WG_MESSAGE_INVALID;
	/* in amneziawg-go's order: the first type whose size and header fit */
	for (int t = 0; t < WG_OBFS_TYPES; t++) {
		size_t pad = atomic_load_explicit(&o->pad[t], memory_order_relaxed);

		if (t < WG_OBFS_TYPES - 1 ? len != pad + wg_obfs_msg_len[t]
					  : len < pad + wg_obfs_msg_len[t])
			continue;
		if (header_in(o, t, pkt + pad)) {
			*off = pad;
			return t + 1;
		}
	}
	if (len == WG_MESSAGE_MINIMUM_LENGTH && header_in(o, 3, pkt))
		return WG_MESSAGE_DATA; /* an unpadded keepalive */
	return WG_MESSAGE_INVALID;
}

int wg_obfs_handshake_type(const struct wg_device *dev, const uint8_t *msg, size_t len)
{
	if (!atomic_load_explicit(&dev->obfs.on, memory_order_relaxed)) {
		int t = wg_message_type(msg, len);

		return t == WG_MESSAGE_DATA ? WG_MESSAGE_INVALID : t;
	}
	for (int t = 0; msg && t < WG_OBFS_TYPES - 1; t++) {
		if (len == wg_obfs_msg_len[t] && header_in(&dev->obfs, t, msg))
			return t + 1;
	}
	return WG_MESSAGE_INVALID;
}

uint32_t wg_device_tx_padding(const struct wg_device *dev)
{
	return atomic_load_explicit(&dev->obfs.pad[3], memory_order_relaxed);
}

const char *wg_device_set_obfs(struct wg_device *dev, const struct wg_obfs_config *c, bool apply)
{
	struct wg_obfs *o = &dev->obfs;
	struct wg_obfs_config *m =
	    (struct wg_obfs_config *)dev->scratch; /* 20 KiB: not on a stack */
	const char *why;
	bool on = false;

	_Static_assert(sizeof(*m) <= WG_SCRATCH_SIZE, "scratch holds a configuration");
	memcpy(m, &o->cfg, sizeof(*m));
	wg_obfs_config_merge(m, c);
	why = wg_obfs_config_check(m);
	if (why || !apply)
		return why;
	memcpy(&o->cfg, m, sizeof(*m));
	if (!o->has_data_key)
		o->has_data_key = wg_device_random(dev, o->data_key, sizeof(o->data_key));
	/* what the receive side must know; junk is the send side's alone */
	for (int t = 0; t < WG_OBFS_TYPES; t++) {
		on |= m->s[t] || m->h[t].lo != (uint32_t)t + 1 || m->h[t].hi != (uint32_t)t + 1;
		atomic_store_explicit(&o->pad[t], m->s[t], memory_order_relaxed);
		atomic_store_explicit(&o->lo[t], m->h[t].lo, memory_order_relaxed);
		atomic_store_explicit(&o->hi[t], m->h[t].hi, memory_order_relaxed);
	}
	atomic_store_explicit(&o->on, on, memory_order_relaxed);
	return NULL;
}
