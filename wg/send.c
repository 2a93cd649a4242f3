/* Outgoing: handshake messages, keepalives, staged packets, transport data
 * (simple and split paths). */
#include <stdlib.h>
#include <string.h>

#include <zinc/chacha20poly1305.h>
#include <zinc/memzero.h>

#include "bytes.h"
#include "ecn.h"
#include "initiation.h"
#include "loop.h"
#include "send.h"

/* Sends a datagram to the peer's endpoint with outer DS field ds, counting
 * tx bytes. */
static bool send_to_peer(struct wg_device *dev, struct wg_peer *peer, const uint8_t *pkt,
			 size_t len, uint8_t ds)
{
	if (!peer->has_endpoint)
		return false;
	dev->io.send(dev->io.ctx, &peer->endpoint, pkt, len, ds);
	peer->tx_bytes += len;
	return true;
}

/* ---- Staged packets ---- */

static bool stage(struct wg_peer *peer, const uint8_t *pkt, size_t len)
{
	struct wg_staged *q = peer->staged;
	uint8_t *copy;
	unsigned slot;

	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q)
			return false;
		peer->staged = q;
	}
	copy = malloc(len ? len : 1);
	if (!copy)
		return false;
	if (len)
		memcpy(copy, pkt, len);
	if (q->count == WG_MAX_STAGED_PACKETS) {
		/* Full: the oldest packet makes room. Plaintext: wiped. */
		peer->dev->stats.dropped_staged++;
		zinc_memzero(q->slot[q->head].data, q->slot[q->head].len);
		free(q->slot[q->head].data);
		q->head = (uint16_t)((q->head + 1) % WG_MAX_STAGED_PACKETS);
		q->count--;
	}
	slot = (q->head + q->count) % WG_MAX_STAGED_PACKETS;
	q->slot[slot].data = copy;
	q->slot[slot].len = (uint32_t)len;
	q->count++;
	return true;
}

void wg_staged_purge(struct wg_peer *peer)
{
	struct wg_staged *q = peer->staged;

	if (!q)
		return;
	for (unsigned i = 0; i < q->count; i++) {
		unsigned k = (q->head + i) % WG_MAX_STAGED_PACKETS;

		zinc_memzero(q->slot[k].data, q->slot[k].len);
		free(q->slot[k].data);
	}
	free(q);
	peer->staged = NULL;
}

size_t wg_staged_count(const struct wg_peer *peer)
{
	return peer->staged ? peer->staged->count : 0;
}

void wg_send_handshake_initiation(struct wg_device *dev, struct wg_peer *peer, bool is_retry)
{
	if (!is_retry) {
		peer->handshake_attempts = 0;
		peer->first_handshake_attempt = dev->now;
	}
	wg_initiation_request(dev, peer, false);
}

/* A cookie reply to our pending initiation: the responder is under load and
 * will only take an initiation with mac2, so send one now rather than after
 * REKEY_TIMEOUT (the Linux module waits). At most once per attempt: a reply
 * decrypts only with the mac1 of the initiation we last sent as AD, and only
 * once (cookie.c), so a forged or replayed one sends nothing; the reply to
 * the early retry finds sent_cookie_retry set until the next regular one. */
void wg_send_handshake_initiation_cookie_retry(struct wg_device *dev, struct wg_peer *peer)
{
	if (peer->sent_cookie_retry)
		return;
	wg_initiation_request(dev, peer, true);
}

/* Plaintext padded to WG_MESSAGE_PADDING_MULTIPLE, but not past the MTU (the last MTU-sized unit of
 * an oversized packet is what gets padded, as in Linux). */
static size_t padded_len(size_t len, uint32_t mtu)
{
	const size_t PAD_MASK = WG_MESSAGE_PADDING_MULTIPLE - 1;
	size_t last = len, padded;

	if (!mtu)
		return (len + PAD_MASK) & ~PAD_MASK;
	if (last > mtu)
		last %= mtu;
	padded = (last + PAD_MASK) & ~PAD_MASK;
	if (padded > mtu)
		padded = mtu;
	return len - last + padded;
}

/* Writes header || AEAD(padded plain) at out; plain may overlap out. */
static size_t seal(uint8_t *out, const struct wg_keypair *kp, uint64_t counter,
		   const uint8_t *plain, size_t len, uint32_t mtu)
{
	size_t plen = padded_len(len, mtu);
	uint8_t *body = out + sizeof(struct wg_message_data);

	if (body != plain) /* the daemon reads it in place; the simple path does not */
		memmove(body, plain, len);
	memset(body + len, 0, plen - len);
	out[0] = WG_MESSAGE_DATA;
	out[1] = out[2] = out[3] = 0;
	wg_put_le32(out + offsetof(struct wg_message_data, receiver_index), kp->remote_index);
	wg_put_le64(out + offsetof(struct wg_message_data, counter), counter);
	zinc_chacha20poly1305_encrypt(body, body, plen, NULL, 0, counter, kp->send_key);
	return sizeof(struct wg_message_data) + plen + WG_AUTHTAG_LEN;
}

/* seal with AmneziaWG's padding and header in front (obfs.c). */
static size_t seal_framed(const struct wg_device *dev, uint8_t *out, const struct wg_keypair *kp,
			  uint64_t counter, const uint8_t *plain, size_t len, uint32_t mtu,
			  uint32_t pad, const struct wg_obfs_range *hdr)
{
	size_t n = seal(out + pad, kp, counter, plain, len, mtu);

	wg_obfs_frame_data(dev, out, pad, hdr);
	return pad + n;
}

/* Reserves the next nonce, or false when the keypair may not send. */
static bool reserve_counter(struct wg_device *dev, struct wg_keypair *kp, uint64_t *counter)
{
	if (!wg_keypair_can_send(kp, dev->now))
		return false;
	*counter = kp->send_counter++;
	return true;
}

static void keep_key_fresh_send(struct wg_device *dev, struct wg_peer *peer)
{
	if (wg_timers_rekey_on_send(peer->keypairs.current, dev->now))
		wg_send_handshake_initiation(dev, peer, false);
}

static void after_data_sent(struct wg_device *dev, struct wg_peer *peer, bool data)
{
	wg_timers_any_authenticated_packet_traversal(dev, peer);
	wg_timers_any_authenticated_packet_sent(dev, peer);
	if (data)
		wg_timers_data_sent(dev, peer);
	keep_key_fresh_send(dev, peer);
}

void wg_send_staged(struct wg_device *dev, struct wg_peer *peer)
{
	struct wg_staged *q = peer->staged;
	struct wg_keypair *kp = peer->keypairs.current;
	bool data = false, any = false;
	struct wg_obfs_range hdr;
	uint64_t counter;
	uint8_t ds;
	uint32_t pad;

	if (!q || !q->count)
		return;
	while (q->count) {
		unsigned i = q->head;
		size_t n;
		if (!peer->has_endpoint || !reserve_counter(dev, kp, &counter))
			break;
		ds = wg_ecn_encap(q->slot[i].data, q->slot[i].len);
		wg_obfs_tx_params(dev, q->slot[i].len, &pad, &hdr);
		n = seal_framed(dev, dev->scratch, kp, counter, q->slot[i].data, q->slot[i].len,
				dev->mtu, pad, &hdr);
		send_to_peer(dev, peer, dev->scratch, n, ds);
		any = true;
		data |= q->slot[i].len != 0;
		zinc_memzero(q->slot[i].data, q->slot[i].len);
		free(q->slot[i].data);
		q->head = (uint16_t)((q->head + 1) % WG_MAX_STAGED_PACKETS);
		q->count--;
	}
	if (any)
		after_data_sent(dev, peer, data);
	if (q->count) {
		wg_send_handshake_initiation(dev, peer, false);
		return;
	}
	wg_staged_purge(peer);
}

void wg_send_keepalive(struct wg_device *dev, struct wg_peer *peer)
{
	if (!wg_staged_count(peer) && !stage(peer, NULL, 0))
		return;
	wg_send_staged(dev, peer);
}

bool wg_ip_addr(const uint8_t *pkt, size_t len, bool src, int *family, const uint8_t **addr)
{
	if (len >= 20 && pkt[0] >> 4 == 4) {
		*family = AF_INET;
		*addr = pkt + (src ? 12 : 16);
		return true;
	}
	if (len >= 40 && pkt[0] >> 4 == 6) {
		*family = AF_INET6;
		*addr = pkt + (src ? 8 : 24);
		return true;
	}
	return false;
}

struct wg_peer *wg_device_route(struct wg_device *dev, int family, const uint8_t *addr)
{
	struct wg_allowedips_owner *o = wg_allowedips_lookup(dev->allowedips, family, addr);

	return o ? wg_container_of(o, struct wg_peer, aips) : NULL;
}

/* Finds the peer for an outgoing packet. */
static int route_out(struct wg_device *dev, const uint8_t *pkt, size_t len, struct wg_peer **peer,
		     uint8_t *ttl)
{
	const uint8_t *dst;
	int family;

	if (!pkt || !len || len > WG_MAX_PACKET || !wg_ip_addr(pkt, len, false, &family, &dst))
		return WG_ERR_INVALID;
	*peer = wg_device_route(dev, family, dst);
	if (!*peer) {
		dev->stats.dropped_no_route++;
		return WG_ERR_NOROUTE;
	}
	if (!(*peer)->has_endpoint || !dev->has_identity) {
		dev->stats.dropped_no_endpoint++;
		return WG_ERR_NOKEY;
	}
	return wg_loop_refuse(dev, *peer, pkt, len, ttl) ? WG_ERR_LOOP : WG_OK;
}

/* Stages pkt if it cannot go out now (no usable keypair, or older packets
 * waiting); *kp (else NULL) and *counter when it can go out at once. */
static int stage_or_reserve(struct wg_device *dev, struct wg_peer *peer, const uint8_t *pkt,
			    size_t len, struct wg_keypair **kp, uint64_t *counter)
{
	*kp = NULL;
	if (wg_staged_count(peer) && wg_keypair_can_send(peer->keypairs.current, dev->now))
		wg_send_staged(dev, peer);
	if (!wg_staged_count(peer) && reserve_counter(dev, peer->keypairs.current, counter)) {
		*kp = peer->keypairs.current;
		return WG_OK;
	}
	if (!stage(peer, pkt, len))
		return WG_ERR_NOMEM;
	wg_send_staged(dev, peer);
	return wg_staged_count(peer) ? WG_STAGED : WG_OK;
}

int wg_device_send(struct wg_device *dev, const uint8_t *ip_pkt, size_t len)
{
	struct wg_keypair *kp;
	struct wg_peer *peer;
	struct wg_obfs_range hdr;
	uint64_t counter;
	uint32_t pad;
	uint8_t ttl; /* the simple path sends with the system's */
	size_t n;
	int r;

	wg_device_clock(dev);
	r = route_out(dev, ip_pkt, len, &peer, &ttl);
	if (r != WG_OK)
		return r;
	r = stage_or_reserve(dev, peer, ip_pkt, len, &kp, &counter);
	if (!kp)
		return r;
	wg_obfs_tx_params(dev, len, &pad, &hdr);
	n = seal_framed(dev, dev->scratch, kp, counter, ip_pkt, len, dev->mtu, pad, &hdr);
	send_to_peer(dev, peer, dev->scratch, n, wg_ecn_encap(ip_pkt, len));
	after_data_sent(dev, peer, true);
	return WG_OK;
}

int wg_device_prepare_tx(struct wg_device *dev, const uint8_t *ip_pkt, size_t len,
			 struct wg_tx_job *job)
{
	struct wg_keypair *kp;
	struct wg_peer *peer;
	uint64_t counter;
	int r;

	memset(job, 0, sizeof(*job));
	wg_device_clock(dev);
	r = route_out(dev, ip_pkt, len, &peer, &job->ttl);
	if (r != WG_OK)
		return r;
	r = stage_or_reserve(dev, peer, ip_pkt, len, &kp, &counter);
	if (!kp)
		return r == WG_OK ? WG_STAGED : r;
	wg_keypair_get(kp);
	job->peer = peer;
	job->keypair = kp;
	job->counter = counter;
	job->to = peer->endpoint;
	job->len = len;
	job->mtu = dev->mtu;
	job->ds = wg_ecn_encap(ip_pkt, len);
	wg_obfs_tx_params(dev, len, &job->obfs_pad, &job->obfs_header);
	return WG_OK;
}

size_t wg_tx_sealed_len(const struct wg_device *dev, const struct wg_tx_job *job)
{
	(void)dev;
	return job->obfs_pad + sizeof(struct wg_message_data) + padded_len(job->len, job->mtu) +
	       WG_AUTHTAG_LEN;
}

size_t wg_tx_seal(const struct wg_device *dev, const struct wg_tx_job *job, const uint8_t *ip_pkt,
		  uint8_t *out)
{
	return seal_framed(dev, out, job->keypair, job->counter, ip_pkt, job->len, job->mtu,
			   job->obfs_pad, &job->obfs_header);
}

void wg_device_complete_tx(struct wg_device *dev, struct wg_tx_job *job, bool sent)
{
	struct wg_peer *peer = job->peer;

	if (!job->keypair)
		return;
	wg_device_clock(dev);
	if (sent && !peer->dead) {
		peer->tx_bytes += wg_tx_sealed_len(dev, job);
		after_data_sent(dev, peer, job->len != 0);
	}
	wg_keypair_put(job->keypair);
	job->keypair = NULL;
}
