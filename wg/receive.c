/* Incoming: transport data (simple and split paths); handshake messages go
 * to handshake.c. */
#include <string.h>

#include <zinc/chacha20poly1305.h>

#include "bytes.h"
#include "ecn.h"
#include "event.h"
#include "handshake.h"
#include "send.h"

int wg_device_receive(struct wg_device *dev, const struct wg_endpoint *from, uint8_t *pkt,
		      size_t len)
{
	struct wg_rx_job job;
	size_t off;
	int type = wg_device_message_type(dev, pkt, len, &off);
	int r;

	wg_device_clock(dev);
	if (!type || !from) {
		dev->stats.packets_invalid++;
		dev->stats.dropped_invalid++;
		return WG_ERR_INVALID;
	}
	if (type != WG_MESSAGE_DATA)
		return wg_receive_handshake(dev, from, pkt + off, len - off);
	r = wg_device_prepare_rx(dev, from, pkt, len, &job);
	if (r != WG_OK)
		return r;
	wg_rx_open(&job, pkt, len);
	return wg_device_complete_rx(dev, &job, NULL, NULL);
}

/* ---- Transport data ---- */

int wg_device_prepare_rx(struct wg_device *dev, const struct wg_endpoint *from, const uint8_t *pkt,
			 size_t len, struct wg_rx_job *job)
{
	struct wg_index_entry *e;
	struct wg_keypair *kp;
	size_t off;

	memset(job, 0, sizeof(*job));
	wg_device_clock(dev);
	if (wg_device_message_type(dev, pkt, len, &off) != WG_MESSAGE_DATA || !from) {
		dev->stats.packets_invalid++;
		dev->stats.dropped_invalid++;
		return WG_ERR_DROPPED;
	}
	pkt += off; /* AmneziaWG padding */
	job->off = off;
	e = wg_index_lookup(&dev->index,
			    wg_le32(pkt + offsetof(struct wg_message_data, receiver_index)),
			    WG_INDEX_KEYPAIR);
	if (!e) {
		dev->stats.packets_invalid++;
		dev->stats.dropped_no_session++;
		return WG_ERR_DROPPED;
	}
	kp = wg_container_of(e, struct wg_keypair, entry);
	if (!wg_keypair_can_receive(kp, dev->now)) {
		dev->stats.dropped_no_session++;
		return WG_ERR_DROPPED;
	}
	wg_keypair_get(kp);
	job->keypair = kp;
	job->counter = wg_le64(pkt + offsetof(struct wg_message_data, counter));
	job->from = *from;
	return WG_OK;
}

bool wg_rx_open(struct wg_rx_job *job, uint8_t *pkt, size_t len)
{
	uint8_t *body = pkt + job->off + sizeof(struct wg_message_data);
	size_t clen = len - job->off - sizeof(struct wg_message_data);

	job->authentic = job->keypair && len >= job->off + WG_MESSAGE_MINIMUM_LENGTH &&
			 zinc_chacha20poly1305_decrypt(body, body, clen, NULL, 0, job->counter,
						       job->keypair->recv_key);
	job->plain = body;
	job->plain_len = job->authentic ? clen - WG_AUTHTAG_LEN : 0;
	return job->authentic;
}

/* The inner packet's own length (to trim padding); 0 if it is not a
 * plausible IPv4/IPv6 packet that fits. */
static size_t inner_len(const uint8_t *p, size_t len)
{
	size_t n;

	if (len >= 20 && p[0] >> 4 == 4) {
		n = (size_t)p[2] << 8 | p[3];
		if (n < 20)
			return 0;
	} else if (len >= 40 && p[0] >> 4 == 6) {
		n = ((size_t)p[4] << 8 | p[5]) + 40;
	} else {
		return 0;
	}
	return n <= len ? n : 0;
}

int wg_device_complete_rx(struct wg_device *dev, struct wg_rx_job *job, const uint8_t **out,
			  size_t *out_len)
{
	struct wg_keypair *kp = job->keypair;
	struct wg_peer *peer;
	const uint8_t *src;
	size_t n, msg_len;
	int family, r = WG_ERR_DROPPED;

	if (!kp)
		return WG_ERR_DROPPED;
	wg_device_clock(dev);
	peer = kp->entry.peer;
	if (!job->authentic) {
		dev->stats.packets_invalid++;
		dev->stats.dropped_bad_mac++;
		goto out;
	}
	if (peer->dead || !kp->valid) {
		dev->stats.dropped_no_session++;
		goto out;
	}
	if (!wg_replay_counter_validate(&kp->replay, job->counter)) {
		dev->stats.dropped_replay++;
		goto out;
	}
	wg_peer_set_endpoint_from(peer, &job->from);
	if (wg_noise_received_with_keypair(dev, peer, kp)) {
		wg_event_peer_role(dev, WG_EVENT_KEYPAIR_ROTATED, peer, false);
		wg_timers_handshake_complete(dev, peer);
		wg_send_staged(dev, peer);
	}
	if (wg_timers_rekey_on_receive(peer->keypairs.current, dev->now) &&
	    !peer->sent_lastminute_handshake) {
		peer->sent_lastminute_handshake = true;
		wg_send_handshake_initiation(dev, peer, false);
	}
	wg_timers_any_authenticated_packet_received(dev, peer);
	wg_timers_any_authenticated_packet_traversal(dev, peer);
	msg_len = sizeof(struct wg_message_data) + job->plain_len + WG_AUTHTAG_LEN;
	if (!job->plain_len) {
		peer->rx_bytes += msg_len;
		r = WG_OK; /* keepalive */
		goto out;
	}
	wg_timers_data_received(dev, peer);
	n = inner_len(job->plain, job->plain_len);
	if (!n || !wg_ip_addr(job->plain, n, true, &family, &src) ||
	    wg_device_route(dev, family, src) != peer) {
		/* Not IP, lying about its length, or a source this peer may not use. */
		dev->stats.packets_invalid++;
		dev->stats.dropped_wrong_source++;
		goto out;
	}
	peer->rx_bytes += msg_len;
	r = WG_OK;
	wg_ecn_decap(job->plain, n, job->ds);
	if (out) {
		*out = job->plain;
		*out_len = n;
	} else if (dev->io.deliver) {
		dev->io.deliver(dev->io.ctx, peer, job->plain, n);
	}
out:
	job->keypair = NULL;
	wg_keypair_put(kp);
	return r;
}
