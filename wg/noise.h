/* Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s as WireGuard uses it: a generic core
 * (any prologue and payloads, caller-supplied ephemerals, so test vectors can
 * drive it), the per-peer handshake state machine on top, and keypairs. */
#ifndef WG_NOISE_H
#define WG_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wg/wg.h"
#include "index.h"
#include "messages.h"
#include "replay.h"

struct wg_device;
struct wg_peer;

/* ---- Generic core: symmetric state of one handshake ----
 * struct wg_noise_core (chaining key ck, handshake hash h) is in wg/wg.h:
 * the split handshake path's jobs embed it. */

/* ck = HASH(CONSTRUCTION); h = HASH(ck || prologue); h = HASH(h || responder_pub). */
void wg_noise_core_init(struct wg_noise_core *st, const uint8_t *prologue, size_t prologue_len,
			const uint8_t responder_pub[WG_PUBLIC_KEY_LEN]);

/* The X25519 results come in (the split handshake path computes them
 * without the lock; tests/unit/test_noise_vectors.c shows each step whole).
 * Initiator, message 1 "e, es, s, ss": out = e (32) || enc(s_pub) (48) ||
 * enc(payload) (plen + 16); es = DH(e_priv, rs_pub), ss = DH(s_priv, rs_pub).
 * False when a DH result is zero. */
bool wg_noise_core_write_msg1_dh(struct wg_noise_core *st, uint8_t *out,
				 const uint8_t e_pub[WG_PUBLIC_KEY_LEN],
				 const uint8_t es[WG_PUBLIC_KEY_LEN],
				 const uint8_t s_pub[WG_PUBLIC_KEY_LEN],
				 const uint8_t ss[WG_PUBLIC_KEY_LEN], const uint8_t *payload,
				 size_t plen);
/* Responder, first half of message 1 (e, es, s): in = e || enc(s) (80
 * bytes), es = DH(s_priv, e); rs_out: the initiator's static key. */
bool wg_noise_core_read_msg1_static_dh(struct wg_noise_core *st, const uint8_t *in,
				       const uint8_t es[WG_PUBLIC_KEY_LEN],
				       uint8_t rs_out[WG_PUBLIC_KEY_LEN]);
/* Second half (ss, payload): in = enc(payload), in_len = plen + 16. */
bool wg_noise_core_read_msg1_payload(struct wg_noise_core *st, const uint8_t *in, size_t in_len,
				     const uint8_t ss[WG_PUBLIC_KEY_LEN], uint8_t *payload_out);

/* Responder, message 2 "e, ee, se, psk": out = e (32) || enc(payload); ee
 * with the initiator's ephemeral, se with its static. */
bool wg_noise_core_write_msg2_dh(struct wg_noise_core *st, uint8_t *out,
				 const uint8_t e_pub[WG_PUBLIC_KEY_LEN],
				 const uint8_t ee[WG_PUBLIC_KEY_LEN],
				 const uint8_t se[WG_PUBLIC_KEY_LEN],
				 const uint8_t psk[WG_SYMMETRIC_KEY_LEN], const uint8_t *payload,
				 size_t plen);
/* Initiator reads message 2: in = e || enc(payload), in_len = 32 + plen +
 * 16; ee = DH(e_priv, e), se = DH(s_priv, e). */
bool wg_noise_core_read_msg2_dh(struct wg_noise_core *st, const uint8_t *in, size_t in_len,
				const uint8_t ee[WG_PUBLIC_KEY_LEN],
				const uint8_t se[WG_PUBLIC_KEY_LEN],
				const uint8_t psk[WG_SYMMETRIC_KEY_LEN], uint8_t *payload_out);
/* Transport keys: (initiator's sending key, responder's sending key). Wipes st. */
void wg_noise_core_split(struct wg_noise_core *st, uint8_t k_init_send[WG_SYMMETRIC_KEY_LEN],
			 uint8_t k_resp_send[WG_SYMMETRIC_KEY_LEN]);

/* 12-byte TAI64N of a wall clock, nanoseconds rounded down to 2^24. */
void wg_noise_tai64n(uint8_t out[WG_TIMESTAMP_LEN], uint64_t wall_ns);

/* ---- WireGuard handshake state (embedded in the peer) ---- */
enum wg_handshake_state {
	WG_HANDSHAKE_ZEROED,
	WG_HANDSHAKE_CREATED_INITIATION,
	WG_HANDSHAKE_CONSUMED_INITIATION,
	WG_HANDSHAKE_CREATED_RESPONSE,
	WG_HANDSHAKE_CONSUMED_RESPONSE,
};

/* What only a handshake in flight holds, allocated for its duration: most
 * peers of a large configuration have none most of the time. */
struct wg_handshake_secrets {
	uint8_t ephemeral_private[WG_PUBLIC_KEY_LEN];
	struct wg_noise_core core;
};

struct wg_handshake {
	struct wg_index_entry entry; /* our (sender) index */
	uint8_t state;
	uint32_t serial; /* changes whenever the state is reset (split path's check) */
	bool has_consumed_initiation;
	uint8_t latest_timestamp[WG_TIMESTAMP_LEN];
	uint32_t remote_index;
	uint64_t last_initiation_consumption; /* monotonic ns */
	struct wg_handshake_secrets *secrets; /* NULL exactly when ZEROED */
};

struct wg_keypair {
	struct wg_index_entry entry; /* our receiver index */
	uint8_t send_key[WG_SYMMETRIC_KEY_LEN];
	uint8_t recv_key[WG_SYMMETRIC_KEY_LEN];
	uint64_t send_counter; /* next nonce */
	uint64_t birth_ns;
	uint32_t remote_index;
	bool initiator;
	bool valid; /* false once expired or removed */
	/* false once our private key changed: received packets are still
	 * accepted until the peer has the new key (Linux's sending.is_valid) */
	bool sending_valid;
	uint32_t refcount;
	struct wg_replay replay;
};

struct wg_keypairs {
	struct wg_keypair *previous, *current, *next;
};

void wg_noise_handshake_init(struct wg_peer *peer);
/* Zeroes the in-flight state (keeps the latest timestamp) and frees its index. */
void wg_noise_handshake_clear(struct wg_device *dev, struct wg_peer *peer);

/* Our initiation, from a consumed job (initiation.c): the handshake state
 * (a fresh index, the job's Noise state and ephemeral) and the message
 * without its macs. */
bool wg_noise_commit_own_initiation(struct wg_device *dev, struct wg_peer *peer,
				    const struct wg_handshake_job_state *s,
				    struct wg_message_handshake_initiation *msg);
/* Incoming messages are read on the split path (handshake.c); these commit
 * a consumed job under the lock. The initiation: the peer whose static key
 * it carried, if its timestamp is newer than the last and the last came at
 * least WG_HANDSHAKE_INITIATION_RATE ago; NULL otherwise. */
struct wg_peer *wg_noise_commit_initiation(struct wg_device *dev,
					   const struct wg_handshake_job_state *s);
/* The response to a committed initiation, from the job's DH results. */
bool wg_noise_create_response(struct wg_device *dev, struct wg_peer *peer,
			      const struct wg_handshake_job_state *s,
			      struct wg_message_handshake_response *msg);
/* The response to our initiation: false if that initiation was replaced or
 * answered since the job was prepared. */
bool wg_noise_commit_response(const struct wg_handshake_job_state *s);
/* Derives a keypair from a finished handshake and installs it (initiator:
 * current; responder: next, unconfirmed). */
bool wg_noise_begin_session(struct wg_device *dev, struct wg_peer *peer);
/* Confirms "next" when data arrives on it; true if it was promoted. */
bool wg_noise_received_with_keypair(struct wg_device *dev, struct wg_peer *peer,
				    struct wg_keypair *kp);
void wg_noise_keypairs_clear(struct wg_device *dev, struct wg_peer *peer);
/* Our identity changed: the in-flight handshake is dropped and the current
 * and next keypairs stop sending, but keep receiving, so the peer's traffic
 * is not cut while it learns the new key; a handshake may start at once. */
void wg_noise_expire_current_keypairs(struct wg_device *dev, struct wg_peer *peer);

void wg_keypair_get(struct wg_keypair *kp);
/* Drops one reference; the last one wipes and frees it (and the peer ref). */
void wg_keypair_put(struct wg_keypair *kp);
/* The keypair may still send at now (age and counter). */
bool wg_keypair_can_send(const struct wg_keypair *kp, uint64_t now);
bool wg_keypair_can_receive(const struct wg_keypair *kp, uint64_t now);

#endif
