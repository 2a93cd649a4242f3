/* Two (or more) engines in one process, wired by callbacks, with a fake
 * clock and a deterministic RNG. Included by the engine tests. */
#ifndef ENGINE_HARNESS_H
#define ENGINE_HARNESS_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <zinc/curve25519.h>

#include "test.h"
#include "wg/wg.h"

#define NS 1ULL
#define MS 1000000ULL
#define SEC 1000000000ULL

enum { H_MAX_OUT = 512, H_PKT = 2048, H_MAX_DELIVERED = 512, H_MAX_EVENTS = 256 };

struct h_clock {
	uint64_t mono; /* starts far from zero on purpose */
	uint64_t wall;
};

struct h_pkt {
	struct wg_endpoint to;
	uint8_t ds; /* the outer DS field the engine asked for */
	size_t len;
	uint8_t data[H_PKT];
};

struct h_side {
	struct wg_device *dev;
	struct h_clock *clock;
	uint64_t rng;
	bool rng_ready;
	struct wg_endpoint addr; /* our UDP address */
	uint8_t priv[WG_PUBLIC_KEY_LEN], pub[WG_PUBLIC_KEY_LEN];
	uint8_t tun_ip[4];
	struct h_pkt out[H_MAX_OUT];
	size_t nout;
	size_t sent_total;	/* datagrams sent, ever */
	size_t sent_by_type[5]; /* by message type */
	struct h_pkt delivered[H_MAX_DELIVERED];
	size_t ndelivered;
	struct wg_peer *delivered_from;
	struct wg_event events[H_MAX_EVENTS]; /* pointers in them are not kept */
	struct wg_endpoint event_endpoint[H_MAX_EVENTS];
	uint8_t event_key[H_MAX_EVENTS][WG_PUBLIC_KEY_LEN]; /* zero if none */
	size_t nevents;
	size_t random_calls; /* env.get_random calls */
};

static inline uint64_t h_now(void *ctx)
{
	return ((struct h_side *)ctx)->clock->mono;
}

static inline uint64_t h_wall(void *ctx)
{
	return ((struct h_side *)ctx)->clock->wall;
}

static inline bool h_random(void *ctx, void *buf, size_t len)
{
	struct h_side *s = ctx;
	s->random_calls++;
	if (!s->rng_ready)
		return false;
	test_randbytes(&s->rng, buf, len);
	return true;
}

static inline bool h_rng_ready(void *ctx)
{
	return ((struct h_side *)ctx)->rng_ready;
}

static inline void h_send(void *ctx, const struct wg_endpoint *to, const uint8_t *pkt, size_t len,
			  uint8_t ds)
{
	struct h_side *s = ctx;
	s->sent_total++;
	if (len && pkt[0] < 5)
		s->sent_by_type[pkt[0]]++;
	if (s->nout == H_MAX_OUT || len > H_PKT)
		return;
	s->out[s->nout].to = *to;
	s->out[s->nout].ds = ds;
	s->out[s->nout].len = len;
	memcpy(s->out[s->nout].data, pkt, len);
	s->nout++;
}

static inline void h_deliver(void *ctx, struct wg_peer *from, const uint8_t *pkt, size_t len)
{
	struct h_side *s = ctx;
	s->delivered_from = from;
	if (s->ndelivered == H_MAX_DELIVERED || len > H_PKT)
		return;
	s->delivered[s->ndelivered].len = len;
	memcpy(s->delivered[s->ndelivered].data, pkt, len);
	s->ndelivered++;
}

static inline void h_event(void *ctx, const struct wg_event *ev)
{
	struct h_side *s = ctx;
	if (s->nevents == H_MAX_EVENTS)
		return;
	s->events[s->nevents] = *ev;
	s->events[s->nevents].public_key = NULL;
	memset(s->event_key[s->nevents], 0, WG_PUBLIC_KEY_LEN);
	if (ev->public_key)
		memcpy(s->event_key[s->nevents], ev->public_key, WG_PUBLIC_KEY_LEN);
	memset(&s->event_endpoint[s->nevents], 0, sizeof(struct wg_endpoint));
	if (ev->endpoint)
		s->event_endpoint[s->nevents] = *ev->endpoint;
	s->events[s->nevents].endpoint = NULL;
	s->nevents++;
}

static inline void h_endpoint4(struct wg_endpoint *ep, const char *ip, uint16_t port)
{
	memset(ep, 0, sizeof(*ep));
	ep->addr.in4.sin_family = AF_INET;
	ep->addr.in4.sin_port = htons(port);
	inet_pton(AF_INET, ip, &ep->addr.in4.sin_addr);
}

/* The side whose device queues its initiations (io.initiations_pending:
 * this hook) instead of sending them from the call; NULL: none. */
static struct h_side *h_deferred;
static void (*h_pending_hook)(void *ctx);

static inline void h_side_init(struct h_side *s, struct h_clock *clock, uint64_t seed,
			       const char *udp_ip, uint16_t port, uint8_t tun_last)
{
	struct wg_env env = {h_now, h_wall, h_random, h_rng_ready, s};
	struct wg_io io = {h_send, h_deliver, s, h_event, s == h_deferred ? h_pending_hook : NULL};

	memset(s, 0, sizeof(*s));
	s->clock = clock;
	s->rng = seed;
	s->rng_ready = true;
	h_endpoint4(&s->addr, udp_ip, port);
	test_randbytes(&s->rng, s->priv, WG_PUBLIC_KEY_LEN);
	zinc_curve25519_clamp_secret(s->priv);
	zinc_curve25519_generate_public(s->pub, s->priv);
	s->tun_ip[0] = 192;
	s->tun_ip[1] = 168;
	s->tun_ip[2] = 0;
	s->tun_ip[3] = tun_last;
	s->dev = wg_device_new(&env, &io);
	wg_device_set_private_key(s->dev, s->priv);
}

/* Makes b a peer of a (endpoint and allowed IP /32 of b's tunnel address). */
static inline struct wg_peer *h_connect(struct h_side *a, struct h_side *b, const uint8_t *psk,
					bool with_endpoint)
{
	struct wg_peer *p = wg_device_peer_add(a->dev, b->pub);
	if (!p)
		return NULL;
	if (psk)
		wg_peer_set_preshared_key(p, psk);
	if (with_endpoint)
		wg_peer_set_endpoint(p, &b->addr);
	wg_peer_allowed_ip_add(p, AF_INET, b->tun_ip, 32);
	return p;
}

/* An IPv4/UDP packet of total length len from src to dst (tunnel addresses). */
static inline size_t h_ip4(uint8_t *buf, size_t len, const uint8_t src[4], const uint8_t dst[4],
			   uint8_t fill)
{
	memset(buf, fill, len);
	buf[0] = 0x45;
	buf[1] = 0;
	buf[2] = (uint8_t)(len >> 8);
	buf[3] = (uint8_t)len;
	buf[8] = 64;
	buf[9] = 17;
	memcpy(buf + 12, src, 4);
	memcpy(buf + 16, dst, 4);
	return len;
}

static inline int h_send_ip(struct h_side *from, struct h_side *to, size_t len, uint8_t fill)
{
	uint8_t buf[H_PKT];
	h_ip4(buf, len, from->tun_ip, to->tun_ip, fill);
	return wg_device_send(from->dev, buf, len);
}

/* Filters: return false to drop a datagram in flight. */
typedef bool (*h_filter)(struct h_side *from, struct h_side *to, struct h_pkt *p, void *ctx);

/* Delivers everything in flight between the sides (to whichever side owns
 * the destination address) until quiet. */
static inline void h_pump_n(struct h_side **sides, int n, h_filter filter, void *fctx)
{
	for (int rounds = 0; rounds < 64; rounds++) {
		bool any = false;
		for (int i = 0; i < n; i++) {
			struct h_side *s = sides[i];
			static struct h_pkt batch[H_MAX_OUT];
			size_t nb = s->nout;
			memcpy(batch, s->out, nb * sizeof(batch[0]));
			s->nout = 0;
			for (size_t k = 0; k < nb; k++) {
				struct h_side *dst = NULL;
				for (int j = 0; j < n; j++)
					if (!memcmp(&sides[j]->addr.addr.in4, &batch[k].to.addr.in4,
						    sizeof(struct sockaddr_in)))
						dst = sides[j];
				if (!dst)
					continue;
				any = true;
				if (filter && !filter(s, dst, &batch[k], fctx))
					continue;
				wg_device_receive(dst->dev, &s->addr, batch[k].data, batch[k].len);
			}
		}
		if (!any)
			return;
	}
}

static inline void h_pump(struct h_side *a, struct h_side *b, h_filter filter, void *fctx)
{
	struct h_side *sides[2] = {a, b};
	h_pump_n(sides, 2, filter, fctx);
}

/* Advances the clock by dt, firing timers (and pumping) at each deadline. */
static inline void h_advance(struct h_side *a, struct h_side *b, uint64_t dt, h_filter filter,
			     void *fctx)
{
	struct h_clock *c = a->clock;
	uint64_t end = c->mono + dt;

	for (;;) {
		uint64_t da, db, next;
		wg_device_tick(a->dev);
		wg_device_tick(b->dev);
		h_pump(a, b, filter, fctx);
		da = wg_device_next_deadline(a->dev);
		db = wg_device_next_deadline(b->dev);
		next = da < db ? da : db;
		if (c->mono >= end && next > end)
			break;
		if (next > end)
			next = end;
		if (next <= c->mono)
			next = c->mono + 1;
		c->wall += next - c->mono;
		c->mono = next;
	}
}

static inline bool h_drop_all(struct h_side *from, struct h_side *to, struct h_pkt *p, void *ctx)
{
	(void)from, (void)to, (void)p, (void)ctx;
	return false;
}

/* The two-side set-up the refusal tests share: fresh devices A (10.0.0.1)
 * and B (10.0.0.2) that know each other, no session yet. Tests that use it
 * include wg/device.h and wg/peer.h before this header. */
#ifdef WG_DEVICE_H
static inline void h_pair_setup(struct h_side *a, struct h_side *b, struct h_clock *clk,
				uint64_t seed_a, uint64_t seed_b, struct wg_peer **pa,
				struct wg_peer **pb)
{
	if (a->dev)
		wg_device_free(a->dev);
	if (b->dev)
		wg_device_free(b->dev);
	h_side_init(a, clk, seed_a, "10.0.0.1", 1001, 1);
	h_side_init(b, clk, seed_b, "10.0.0.2", 1002, 2);
	*pa = h_connect(a, b, NULL, true);
	*pb = h_connect(b, a, NULL, true);
}

/* Takes side s's next initiation to peer p off the wire (not delivered),
 * lifting s's own 5 s initiation rate limit first. */
static inline struct h_pkt h_grab_initiation(struct h_side *s, struct wg_peer *p)
{
	struct h_pkt pkt;

	memset(&pkt, 0, sizeof(pkt));
	s->nout = 0;
	p->has_sent_handshake = false;
	wg_device_clock(s->dev);
	wg_send_handshake_initiation(s->dev, p, false);
	CHECK(s->nout == 1 && s->out[0].len == WG_HANDSHAKE_MAX_LEN);
	pkt = s->out[0];
	s->nout = 0;
	return pkt;
}
#endif

#endif
