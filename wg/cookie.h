/* mac1/mac2 and cookie replies (WireGuard's DoS mitigation). */
#ifndef WG_COOKIE_H
#define WG_COOKIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "messages.h"

struct wg_device;
struct wg_peer;
struct wg_endpoint;

/* Device side: checks macs of incoming messages, answers with cookies. */
struct wg_cookie_checker {
	uint8_t secret[WG_HASH_LEN]; /* R, rotated every COOKIE_SECRET_MAX_AGE */
	uint64_t secret_birth;
	bool has_secret;
	uint8_t mac1_key[WG_SYMMETRIC_KEY_LEN];	  /* HASH(LABEL_MAC1 || our public key) */
	uint8_t cookie_key[WG_SYMMETRIC_KEY_LEN]; /* HASH(LABEL_COOKIE || our public key) */
};

/* Peer side: macs on outgoing messages, the cookie we were given. Its keys,
 * HASH(LABEL_MAC1 || peer public key) and HASH(LABEL_COOKIE || ...), are
 * derived when used (they cost a BLAKE2s, and 64 bytes per peer if kept). */
struct wg_cookie_maker {
	uint8_t cookie[WG_COOKIE_LEN];
	uint64_t cookie_birth;
	bool has_cookie;
	bool have_sent_mac1; /* a message awaits an answer; last_mac1_sent is its mac1 */
	uint8_t last_mac1_sent[WG_COOKIE_LEN];
};

void wg_cookie_checker_precompute(struct wg_cookie_checker *c,
				  const uint8_t our_pub[WG_PUBLIC_KEY_LEN]);
void wg_cookie_maker_init(struct wg_cookie_maker *m);
void wg_cookie_maker_wipe(struct wg_cookie_maker *m);

/* Checking incoming messages (the split handshake path, handshake.c). msg is
 * a whole handshake message, both macs included; comparisons are constant
 * time. Under the device lock: the cookie of a source (false if the RNG
 * fails or the address is not IP). Without it: the macs, and a cookie reply
 * to msg under cookie_key (HASH(LABEL_COOKIE || our public key)). */
bool wg_cookie_make(struct wg_device *dev, uint8_t cookie[WG_COOKIE_LEN],
		    const struct wg_endpoint *from);
bool wg_cookie_mac1_valid(const uint8_t mac1_key[WG_SYMMETRIC_KEY_LEN], const uint8_t *msg,
			  size_t len);
bool wg_cookie_mac2_valid(const uint8_t cookie[WG_COOKIE_LEN], const uint8_t *msg, size_t len);
void wg_cookie_seal_reply(struct wg_message_handshake_cookie *out, const uint8_t *msg, size_t len,
			  const uint8_t cookie[WG_COOKIE_LEN],
			  const uint8_t cookie_key[WG_SYMMETRIC_KEY_LEN],
			  const uint8_t nonce[WG_COOKIE_NONCE_LEN]);
/* Fills mac1 (and mac2 when a fresh cookie is held) of an outgoing message. */
void wg_cookie_add_macs(struct wg_device *dev, struct wg_peer *peer, uint8_t *msg, size_t len);
/* Accepts a reply only for a message we sent and still await; *initiator is
 * the peer when that message was our initiation (NULL for a response). */
bool wg_cookie_consume_reply(struct wg_device *dev, const struct wg_message_handshake_cookie *msg,
			     struct wg_peer **initiator);

#endif
