/* mac1/mac2 and cookie replies (doc/engine.md; the WireGuard paper,
 * section 5.4.7). */
#include <string.h>

#include <zinc/blake2s.h>
#include <zinc/chacha20poly1305.h>
#include <zinc/memzero.h>

#include "bytes.h"
#include "cookie.h"
#include "device.h"
#include "peer.h"

static void label_key(uint8_t out[WG_SYMMETRIC_KEY_LEN], const char *label,
		      const uint8_t pub[WG_PUBLIC_KEY_LEN])
{
	struct zinc_blake2s_state s;

	zinc_blake2s_init(&s, WG_SYMMETRIC_KEY_LEN);
	zinc_blake2s_update(&s, (const uint8_t *)label, WG_COOKIE_KEY_LABEL_LEN);
	zinc_blake2s_update(&s, pub, WG_PUBLIC_KEY_LEN);
	zinc_blake2s_final(&s, out);
}

void wg_cookie_checker_precompute(struct wg_cookie_checker *c,
				  const uint8_t our_pub[WG_PUBLIC_KEY_LEN])
{
	label_key(c->mac1_key, WG_LABEL_MAC1, our_pub);
	label_key(c->cookie_key, WG_LABEL_COOKIE, our_pub);
}

void wg_cookie_maker_init(struct wg_cookie_maker *m)
{
	memset(m, 0, sizeof(*m));
}

void wg_cookie_maker_wipe(struct wg_cookie_maker *m)
{
	zinc_memzero(m, sizeof(*m));
}

/* mac1 covers the message up to mac1; mac2 up to mac2. */
static void compute_mac1(uint8_t out[WG_COOKIE_LEN], const uint8_t *msg, size_t len,
			 const uint8_t key[WG_SYMMETRIC_KEY_LEN])
{
	zinc_blake2s(out, msg, key, WG_COOKIE_LEN, len - 2 * WG_COOKIE_LEN, WG_SYMMETRIC_KEY_LEN);
}

static void compute_mac2(uint8_t out[WG_COOKIE_LEN], const uint8_t *msg, size_t len,
			 const uint8_t cookie[WG_COOKIE_LEN])
{
	zinc_blake2s(out, msg, cookie, WG_COOKIE_LEN, len - WG_COOKIE_LEN, WG_COOKIE_LEN);
}

/* cookie = MAC(R, source address || source port), R renewed when stale. */
bool wg_cookie_make(struct wg_device *dev, uint8_t cookie[WG_COOKIE_LEN],
		    const struct wg_endpoint *from)
{
	struct wg_cookie_checker *c = &dev->cookie_checker;
	struct zinc_blake2s_state s;

	if (!c->has_secret || dev->now - c->secret_birth >= WG_COOKIE_SECRET_MAX_AGE) {
		if (!wg_device_random(dev, c->secret, sizeof(c->secret)))
			return false;
		c->secret_birth = dev->now;
		c->has_secret = true;
	}
	zinc_blake2s_init_key(&s, WG_COOKIE_LEN, c->secret, sizeof(c->secret));
	if (from->addr.sa.sa_family == AF_INET) {
		zinc_blake2s_update(&s, (const uint8_t *)&from->addr.in4.sin_addr,
				    sizeof(from->addr.in4.sin_addr));
		zinc_blake2s_update(&s, (const uint8_t *)&from->addr.in4.sin_port,
				    sizeof(from->addr.in4.sin_port));
	} else if (from->addr.sa.sa_family == AF_INET6) {
		zinc_blake2s_update(&s, (const uint8_t *)&from->addr.in6.sin6_addr,
				    sizeof(from->addr.in6.sin6_addr));
		zinc_blake2s_update(&s, (const uint8_t *)&from->addr.in6.sin6_port,
				    sizeof(from->addr.in6.sin6_port));
	} else {
		zinc_blake2s_final(&s, cookie);
		return false;
	}
	zinc_blake2s_final(&s, cookie);
	return true;
}

bool wg_cookie_mac1_valid(const uint8_t mac1_key[WG_SYMMETRIC_KEY_LEN], const uint8_t *msg,
			  size_t len)
{
	uint8_t computed[WG_COOKIE_LEN];

	if (len < 2 * WG_COOKIE_LEN)
		return false;
	compute_mac1(computed, msg, len, mac1_key);
	return zinc_memeq(computed, msg + len - 2 * WG_COOKIE_LEN, WG_COOKIE_LEN);
}

bool wg_cookie_mac2_valid(const uint8_t cookie[WG_COOKIE_LEN], const uint8_t *msg, size_t len)
{
	uint8_t computed[WG_COOKIE_LEN];

	if (len < 2 * WG_COOKIE_LEN)
		return false;
	compute_mac2(computed, msg, len, cookie);
	return zinc_memeq(computed, msg + len - WG_COOKIE_LEN, WG_COOKIE_LEN);
}

void wg_cookie_add_macs(struct wg_device *dev, struct wg_peer *peer, uint8_t *msg, size_t len)
{
	struct wg_cookie_maker *m = &peer->cookie;
	uint8_t *mac1 = msg + len - 2 * WG_COOKIE_LEN;
	uint8_t *mac2 = msg + len - WG_COOKIE_LEN;
	uint8_t mac1_key[WG_SYMMETRIC_KEY_LEN];

	/* Derived per message rather than stored: 64 bytes less per peer for
	 * one small BLAKE2s per handshake message. */
	label_key(mac1_key, WG_LABEL_MAC1, peer->public_key);
	compute_mac1(mac1, msg, len, mac1_key);
	memcpy(m->last_mac1_sent, mac1, WG_COOKIE_LEN);
	m->have_sent_mac1 = true;
	if (m->has_cookie &&
	    dev->now - m->cookie_birth < WG_COOKIE_SECRET_MAX_AGE - WG_COOKIE_SECRET_LATENCY)
		compute_mac2(mac2, msg, len, m->cookie);
	else
		memset(mac2, 0, WG_COOKIE_LEN);
}

void wg_cookie_seal_reply(struct wg_message_handshake_cookie *out, const uint8_t *msg, size_t len,
			  const uint8_t cookie[WG_COOKIE_LEN],
			  const uint8_t cookie_key[WG_SYMMETRIC_KEY_LEN],
			  const uint8_t nonce[WG_COOKIE_NONCE_LEN])
{
	const uint8_t *mac1 = msg + len - 2 * WG_COOKIE_LEN;

	memset(out, 0, sizeof(*out));
	out->header.type = WG_MESSAGE_HANDSHAKE_COOKIE;
	/* Both handshake message types carry their sender index there. */
	memcpy(out->receiver_index,
	       msg + offsetof(struct wg_message_handshake_initiation, sender_index),
	       sizeof(out->receiver_index));
	memcpy(out->nonce, nonce, WG_COOKIE_NONCE_LEN);
	zinc_xchacha20poly1305_encrypt(out->encrypted_cookie, cookie, WG_COOKIE_LEN, mac1,
				       WG_COOKIE_LEN, out->nonce, cookie_key);
}

bool wg_cookie_consume_reply(struct wg_device *dev, const struct wg_message_handshake_cookie *msg,
			     struct wg_peer **initiator)
{
	struct wg_index_entry *e;
	struct wg_cookie_maker *m;
	uint8_t cookie[WG_COOKIE_LEN], cookie_key[WG_SYMMETRIC_KEY_LEN];
	bool ok;

	e = wg_index_lookup(&dev->index, wg_le32(msg->receiver_index),
			    WG_INDEX_HANDSHAKE | WG_INDEX_KEYPAIR);
	if (!e)
		return false;
	/* Only for a message still awaiting its answer: our initiation, or our
	 * response whose keypair the initiator has not confirmed yet. */
	if (e->type == WG_INDEX_HANDSHAKE &&
	    e->peer->handshake.state != WG_HANDSHAKE_CREATED_INITIATION)
		return false;
	if (e->type == WG_INDEX_KEYPAIR &&
	    wg_container_of(e, struct wg_keypair, entry) != e->peer->keypairs.next)
		return false;
	m = &e->peer->cookie;
	if (!m->have_sent_mac1)
		return false;
	label_key(cookie_key, WG_LABEL_COOKIE, e->peer->public_key);
	ok = zinc_xchacha20poly1305_decrypt(cookie, msg->encrypted_cookie,
					    sizeof(msg->encrypted_cookie), m->last_mac1_sent,
					    WG_COOKIE_LEN, msg->nonce, cookie_key);
	zinc_memzero(cookie_key, sizeof(cookie_key));
	if (!ok)
		return false;
	memcpy(m->cookie, cookie, sizeof(cookie));
	m->cookie_birth = dev->now;
	m->has_cookie = true;
	m->have_sent_mac1 = false;
	zinc_memzero(cookie, sizeof(cookie));
	*initiator = e->type == WG_INDEX_HANDSHAKE ? e->peer : NULL;
	return true;
}
