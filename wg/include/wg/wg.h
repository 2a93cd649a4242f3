/* The WireGuard protocol engine: no I/O, no threads, no clock reads.
 *
 * Packets and time go in; datagrams to send and IP packets to deliver come
 * out through callbacks. Two users:
 *
 *  - a simple embedder calls wg_device_send() with IP packets from its
 *    tunnel, wg_device_receive() with datagrams from its socket and
 *    wg_device_tick() when wg_device_tick() said the next timer is due;
 *  - a multi-threaded daemon calls the same functions under one lock, or the
 *    split paths at the bottom of this file: for data, reserve nonces under
 *    the lock, do the crypto on any thread, complete under the lock (replay
 *    window, source check, timers); for handshake messages, the same with
 *    the Noise and MAC computations in the middle.
 *
 * Unless a function says otherwise, calls on one device must be serialized by
 * the caller (a mutex in the daemon). Callbacks run inside those calls.
 */
#ifndef WG_WG_H
#define WG_WG_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* ---- Protocol facts: each has its one name here ----
 * Lengths in bytes, as the Linux module's NOISE_*_LEN and COOKIE_LEN (the
 * engine's own, not a caller's, are in wg/messages.h). */
enum {
	WG_PUBLIC_KEY_LEN = 32,	   /* a Curve25519 key, public or private; a DH result */
	WG_SYMMETRIC_KEY_LEN = 32, /* a ChaCha20-Poly1305 key; the preshared key */
	WG_HASH_LEN = 32,	   /* BLAKE2s-256: chaining key, handshake hash */
	WG_TIMESTAMP_LEN = 12,	   /* TAI64N */
	WG_AUTHTAG_LEN = 16,	   /* Poly1305 */
	WG_COOKIE_LEN = 16,	   /* a cookie; mac1 and mac2 */
};

/* The first byte of every message (three zero bytes follow). */
enum wg_message_type {
	WG_MESSAGE_INVALID = 0, /* what wg_message_type() says of anything else */
	WG_MESSAGE_HANDSHAKE_INITIATION = 1,
	WG_MESSAGE_HANDSHAKE_RESPONSE = 2,
	WG_MESSAGE_HANDSHAKE_COOKIE = 3,
	WG_MESSAGE_DATA = 4,
};

enum {
	/* type, receiver index, counter: the transport data message up to its
	 * ciphertext (wg_tx_seal writes the packet this far into its output) */
	WG_DATA_HEADER_LEN = 16,
	WG_HANDSHAKE_MAX_LEN = 148, /* the initiation, the largest handshake message */
	WG_MAX_PACKET = 65535,
	/* How many incoming handshake messages a caller queues at most (the
	 * Linux module's MAX_QUEUED_INCOMING_HANDSHAKES): the engine is under
	 * load while the depth it is told (wg_device_set_handshake_queue_len)
	 * is 1/8 of this or more. */
	WG_MAX_QUEUED_INCOMING_HANDSHAKES = 4096,
};

/* Where a datagram came from / goes to. src is the local address the peer
 * reached us on (sticky source); all-zero src and ifindex 0 mean "unset". */
struct wg_endpoint {
	union {
		struct sockaddr sa;
		struct sockaddr_in in4;
		struct sockaddr_in6 in6;
	} addr;
	union {
		struct in_addr src4;
		struct in6_addr src6;
	};
	uint32_t src_ifindex;
};

struct wg_device;
struct wg_peer;

/* Time and randomness, injected. NULL members use the defaults (zinc RNG;
 * clocks are read by the caller, never here: the engine requires now_ns
 * and wall_ns). now_ns must count time suspended (the daemon reads
 * CLOCK_BOOTTIME), or keys could outlive REJECT_AFTER_TIME across a
 * suspend; wall_ns only dates the last handshake. */
struct wg_env {
	uint64_t (*now_ns)(void *ctx);	/* monotonic nanoseconds, suspend included */
	uint64_t (*wall_ns)(void *ctx); /* nanoseconds since the Unix epoch */
	/* Non-blocking random bytes; false when the RNG is not ready. NULL:
	 * zinc_get_random_bytes. */
	bool (*get_random)(void *ctx, void *buf, size_t len);
	/* Whether the system RNG is seeded. NULL: zinc_rng_is_initialized.
	 * While it is not, and a peer waits to initiate, the next deadline
	 * includes a look at it every 250 ms (see doc/engine.md). */
	bool (*rng_ready)(void *ctx);
	void *ctx;
};

/* What happened, for the caller's logs (wg_io.event). The engine reports;
 * it never logs, and never limits the rate: the last four can come once per
 * datagram received, so a caller that logs them limits their rate. */
enum wg_event_kind {
	WG_EVENT_INITIATION_SENT,  /* an initiation went out (attempt: 0 first, then retries) */
	WG_EVENT_HANDSHAKE_RETRY,  /* no response within REKEY_TIMEOUT: trying again (attempt) */
	WG_EVENT_HANDSHAKE_GIVEUP, /* no response for REKEY_ATTEMPT_TIME: staged packets dropped */
	WG_EVENT_INITIATION_RECEIVED, /* a valid initiation from the peer: a response is returned */
	WG_EVENT_RESPONSE_RECEIVED,   /* a valid response to our initiation */
	WG_EVENT_HANDSHAKE_COMPLETE,  /* a session was derived (initiator: at once usable) */
	WG_EVENT_KEYPAIR_ROTATED, /* a new keypair became the one we send with (the first too) */
	WG_EVENT_PEER_ADDED,
	WG_EVENT_PEER_REMOVED,
	WG_EVENT_ENDPOINT_CHANGED, /* roaming: an authenticated packet came from a new address */
	/* refused handshake messages; endpoint: their source */
	WG_EVENT_UNKNOWN_PEER, /* a valid initiation from a static key no peer has (public_key) */
	WG_EVENT_BAD_MAC1,     /* a handshake message whose mac1 is not for our public key */
	WG_EVENT_COOKIE_SENT,  /* under load: a cookie reply instead of an answer */
	WG_EVENT_RNG_UNSEEDED, /* dropped: the system RNG is not seeded yet */
	WG_EVENT_KIND_COUNT,
};

struct wg_event {
	enum wg_event_kind kind;
	struct wg_peer *peer;		    /* NULL for the refused messages */
	const struct wg_endpoint *endpoint; /* the peer's or the source; NULL if none */
	const uint8_t *public_key;	    /* the peer's, or UNKNOWN_PEER's sender's; else NULL */
	uint32_t attempt;		    /* INITIATION_SENT, HANDSHAKE_RETRY */
	bool initiator;			    /* HANDSHAKE_COMPLETE, KEYPAIR_ROTATED */
};

/* Output. send: a datagram for the network. deliver: a decrypted, validated
 * IP packet for the tunnel interface (buffer valid only during the call);
 * NULL for a caller that takes every packet from wg_device_complete_rx's out
 * and never calls wg_device_receive (a packet is dropped if it comes).
 * event: NULL, or told of each wg_event (the struct and what it points to
 * are valid only during the call). It runs inside engine calls, so under
 * the daemon's lock: it must be quick and must not call into the engine.
 * No event comes from wg_handshake_consume (the lock-free step) nor from
 * wg_device_free. */
struct wg_io {
	void (*send)(void *ctx, const struct wg_endpoint *to, const uint8_t *pkt, size_t len);
	void (*deliver)(void *ctx, struct wg_peer *from, const uint8_t *pkt, size_t len);
	void *ctx;
	void (*event)(void *ctx, const struct wg_event *ev);
};

/* Results (negative errno-style values for errors). */
enum wg_result {
	WG_OK = 0,
	WG_STAGED = 1,	     /* send: queued until a handshake completes */
	WG_ERR_NOROUTE = -1, /* send: no peer for the destination (caller sends ICMP unreachable) */
	WG_ERR_INVALID = -2, /* malformed packet or argument */
	WG_ERR_DROPPED = -3, /* received and rejected (auth, replay, ratelimit, rng gate...) */
	WG_ERR_NOKEY = -4,   /* no private key / no endpoint */
	WG_ERR_NOMEM = -5,
};

/* ---- Device lifetime and identity ---- */
struct wg_device *wg_device_new(const struct wg_env *env, const struct wg_io *io);
/* Wipes all key material and frees every peer. Complete every prepared
 * tx/rx job first (they hold references into the device). */
void wg_device_free(struct wg_device *dev);

/* key NULL or all zero removes the private key. The key is clamped. Peers
 * whose public key equals the new public key are removed (as the Linux
 * module does). Existing sessions stop
 * sending (a new handshake starts with the next packet) but keep receiving
 * until they expire, as in the Linux module, so the peer's traffic is not
 * cut while it learns the new public key. */
void wg_device_set_private_key(struct wg_device *dev, const uint8_t key[WG_PUBLIC_KEY_LEN]);
/* False when no private key is set. */
bool wg_device_get_private_key(const struct wg_device *dev, uint8_t key[WG_PUBLIC_KEY_LEN]);
bool wg_device_get_public_key(const struct wg_device *dev, uint8_t pub[WG_PUBLIC_KEY_LEN]);
/* Tunnel MTU: transport plaintext is padded to 16 but never past it. */
void wg_device_set_mtu(struct wg_device *dev, uint32_t mtu);

/* ---- Peers ---- */
struct wg_peer *wg_device_peer_lookup(struct wg_device *dev, const uint8_t pub[WG_PUBLIC_KEY_LEN]);
/* Adds a peer (or returns the existing one). NULL at MAX_PEERS or if pub is
 * our own public key. */
struct wg_peer *wg_device_peer_add(struct wg_device *dev, const uint8_t pub[WG_PUBLIC_KEY_LEN]);
/* Removes one peer; its keys are wiped, its allowed IPs removed. */
void wg_device_peer_remove(struct wg_device *dev, struct wg_peer *peer);
void wg_device_peers_clear(struct wg_device *dev);
size_t wg_device_peer_count(const struct wg_device *dev);
/* Iteration in insertion order: first with prev NULL. */
struct wg_peer *wg_device_peer_next(struct wg_device *dev, struct wg_peer *prev);

/* psk NULL or all zero removes it. */
void wg_peer_set_preshared_key(struct wg_peer *peer, const uint8_t psk[WG_SYMMETRIC_KEY_LEN]);
void wg_peer_set_endpoint(struct wg_peer *peer, const struct wg_endpoint *ep);
/* 0 turns it off; turning it on sends a keepalive at once if the peer has an
 * endpoint (as the Linux module does). */
void wg_peer_set_persistent_keepalive(struct wg_peer *peer, uint16_t seconds);

/* family AF_INET or AF_INET6; host bits beyond cidr are masked. An existing
 * prefix moves to this peer. */
int wg_peer_allowed_ip_add(struct wg_peer *peer, int family, const void *addr, uint8_t cidr);
/* Removes the prefix only if it belongs to this peer. */
int wg_peer_allowed_ip_remove(struct wg_peer *peer, int family, const void *addr, uint8_t cidr);
void wg_peer_allowed_ips_clear(struct wg_peer *peer);
/* Calls fn for each prefix of the peer; stops early when fn returns false. */
void wg_peer_allowed_ips_foreach(struct wg_peer *peer,
				 bool (*fn)(void *ctx, int family, const void *addr, uint8_t cidr),
				 void *ctx);

struct wg_peer_info {
	uint8_t public_key[WG_PUBLIC_KEY_LEN];
	uint8_t preshared_key[WG_SYMMETRIC_KEY_LEN];
	bool has_preshared_key;
	bool has_endpoint;
	struct wg_endpoint endpoint;
	uint64_t last_handshake_wall_ns; /* 0: never */
	uint64_t rx_bytes, tx_bytes;	 /* UDP payload bytes, as wg shows them */
	uint16_t persistent_keepalive;
};
void wg_peer_get_info(const struct wg_peer *peer, struct wg_peer_info *info);

/* ---- Simple data path (embedders; the daemon under its lock) ---- */

/* An IP packet from the tunnel: routes by destination (allowed IPs),
 * encrypts and sends it, or stages it and starts a handshake. */
int wg_device_send(struct wg_device *dev, const uint8_t *ip_pkt, size_t len);

/* A datagram from the network. Handshake messages are processed (answers go
 * out through io.send; it is the split handshake path below, in one call);
 * transport data is decrypted in place (pkt is modified) and delivered
 * through io.deliver. */
int wg_device_receive(struct wg_device *dev, const struct wg_endpoint *from, uint8_t *pkt,
		      size_t len);

/* Runs every timer that is due at now; returns nanoseconds until the next
 * deadline (UINT64_MAX: none). Call it again no later than that. */
uint64_t wg_device_tick(struct wg_device *dev);
/* Absolute time (env.now_ns's clock) of the earliest pending timer (or look
 * at the unseeded RNG), UINT64_MAX if none. Sends and receives can move it earlier, so a
 * daemon that sleeps until the deadline re-reads it after each call. */
uint64_t wg_device_next_deadline(const struct wg_device *dev);

/* ---- Load information for the cookie mechanism ---- */

/* The daemon reports the depth of its incoming-handshake queue; the engine
 * applies the "under load" rule (>= 1/8 of WG_MAX_QUEUED_INCOMING_HANDSHAKES,
 * sticky for 1 s). */
void wg_device_set_handshake_queue_len(struct wg_device *dev, size_t len);

/* Cheap classification of a datagram, for routing to queues without
 * touching state: an enum wg_message_type, WG_MESSAGE_INVALID for a bad size
 * or type. */
int wg_message_type(const uint8_t *pkt, size_t len);

/* ---- Counters (observability) ---- */
struct wg_device_stats {
	uint64_t handshakes_dropped_rng; /* dropped because the RNG was unseeded */
	uint64_t cookie_replies_sent;
	uint64_t handshakes_ratelimited;
	uint64_t packets_invalid; /* bad size/type/mac1/auth */
	/* Handshakes by outcome */
	uint64_t handshake_initiations_sent; /* retries included */
	uint64_t handshakes_completed;	     /* our initiation answered: a new session */
	uint64_t handshakes_responded;	     /* a peer's initiation answered: a new session */
	uint64_t handshakes_timed_out;	     /* no answer within REKEY_ATTEMPT_TIME */
	uint64_t handshakes_rejected;	     /* handshake messages dropped (reason below) */
	uint64_t keypair_rotations;	     /* a new keypair became current */
	uint64_t endpoint_changes;	     /* a peer's endpoint moved (roaming) */
	/* Packets dropped, by reason; with the three handshake counters above
	 * (rng, cookie, ratelimited) each drop counts once. */
	uint64_t dropped_bad_mac; /* handshake mac1, data authentication tag */
	uint64_t dropped_replay;  /* data counter seen; old handshake timestamp or flood */
	uint64_t
	    dropped_wrong_source; /* inner packet not IP or from outside the peer's allowed IPs */
	uint64_t dropped_no_session;  /* data for no usable keypair; response to no initiation */
	uint64_t dropped_invalid;     /* malformed, failed handshake crypto, unknown peer */
	uint64_t dropped_no_route;    /* outgoing: no peer for the destination */
	uint64_t dropped_no_endpoint; /* outgoing: the peer has no endpoint, or no private key */
	uint64_t dropped_staged;      /* outgoing: pushed out of a full staged queue */
};
void wg_device_get_stats(const struct wg_device *dev, struct wg_device_stats *stats);

/* ---- Split data path (multi-threaded daemon) ----
 * prepare/complete run under the device lock; seal/open are pure crypto and
 * thread-safe on distinct buffers. A job holds a reference on its keypair
 * until complete. Nonces are reserved in call order, so completing jobs of
 * one peer in the order prepared keeps the wire order. */
struct wg_keypair;
struct wg_tx_job {
	struct wg_peer *peer;
	struct wg_keypair *keypair;
	uint64_t counter;
	struct wg_endpoint to;
	size_t len;   /* plaintext length (before padding) */
	uint32_t mtu; /* the device MTU when prepared: seal pads with it, lock-free */
};
/* WG_OK: job ready for seal. WG_STAGED: packet copied to the peer's staged
 * queue, handshake started. WG_ERR_NOROUTE: no peer. */
int wg_device_prepare_tx(struct wg_device *dev, const uint8_t *ip_pkt, size_t len,
			 struct wg_tx_job *job);
/* Writes the full transport message (header, ciphertext, tag) to out, which
 * needs wg_tx_sealed_len(job, mtu) bytes; out may equal
 * ip_pkt + WG_DATA_HEADER_LEN. Returns the message length. Thread-safe.
 * In place: read the packet to buf + WG_DATA_HEADER_LEN and pass it as
 * ip_pkt, out = buf (any overlap of ip_pkt and out works; the packet is
 * moved as needed). The padding (up to 15 bytes, never past job->mtu) and
 * the WG_AUTHTAG_LEN tag follow
 * the packet, so out needs wg_tx_sealed_len() bytes. */
size_t wg_tx_sealed_len(const struct wg_device *dev, const struct wg_tx_job *job);
size_t wg_tx_seal(const struct wg_device *dev, const struct wg_tx_job *job, const uint8_t *ip_pkt,
		  uint8_t *out);
/* Accounting and timers after the message was sent (or failed: sent=false). */
void wg_device_complete_tx(struct wg_device *dev, struct wg_tx_job *job, bool sent);

struct wg_rx_job {
	struct wg_keypair *keypair;
	uint64_t counter;
	struct wg_endpoint from;
	bool authentic; /* set by wg_rx_open */
	uint8_t *plain; /* decrypted packet (points into the datagram) */
	size_t plain_len;
};
/* For a type-4 datagram: finds the keypair by receiver index. WG_OK or
 * WG_ERR_DROPPED. */
int wg_device_prepare_rx(struct wg_device *dev, const struct wg_endpoint *from, const uint8_t *pkt,
			 size_t len, struct wg_rx_job *job);
/* Decrypts in place. Thread-safe. Returns job->authentic. */
bool wg_rx_open(struct wg_rx_job *job, uint8_t *pkt, size_t len);
/* Replay window, key confirmation, roaming, timers, inner validation; on
 * success delivers through io.deliver (or returns the packet in *out/out_len
 * when out is non-NULL and does not deliver). Drops the job's reference. */
int wg_device_complete_rx(struct wg_device *dev, struct wg_rx_job *job, const uint8_t **out,
			  size_t *out_len);

/* ---- Split handshake path (multi-threaded daemon) ----
 * The costly part of an incoming handshake message (X25519, decryption of
 * the initiator's static key and timestamp, mac1) runs outside the lock:
 *
 * wg_device_prepare_handshake(), under the lock: the RNG gate and the load
 *   state; under load also the source's cookie, mac2 and, with a valid
 *   mac2, the per-source rate limiter (admission is device state; two small
 *   BLAKE2s). Copies the message, takes a reference on the device's static
 *   identity (an immutable snapshot, replaced when the private key changes)
 *   and, for a response, copies the state of our initiation it answers.
 *   A cookie reply is consumed here; one for our pending initiation sends
 *   that initiation again at once, with mac2, through io.send (once per
 *   attempt; the Linux module waits for REKEY_TIMEOUT).
 * wg_handshake_consume(), on any thread, without the lock: reads only the
 *   job, the identity snapshot and dev's immutable env (env.get_random must
 *   then be thread-safe; the default is). mac1; under load without a valid
 *   mac2 the cookie reply; else Noise message 1 (and, for a valid one, the
 *   response's ephemeral and its two DH results) or message 2.
 * wg_device_complete_handshake(), under the lock: refuses the job if the
 *   device's identity is no longer the job's (the private key was changed or
 *   removed meanwhile), if its peer is gone or, for a response, if our
 *   initiation was replaced or answered meanwhile; then peer lookup,
 *   timestamp replay and initiation flood checks, index, keypair, timers,
 *   endpoint. Drops the job's references and wipes its secrets.
 *
 * Every prepared job goes through the three calls in this order, even when
 * prepare has decided already (consume then does nothing). Complete returns
 * what wg_device_receive() would (which is these three calls and a send).
 * A datagram to answer with (the response to an initiation, a cookie reply)
 * is returned in the job, for the caller to send after dropping the lock:
 * these never go through io.send. Complete's other sends (staged data, or a
 * keepalive, once our initiation was answered) are data and do, as the
 * data path's own do. Jobs are independent: consume them on any threads,
 * complete them in any order (if a peer's newer initiation completes
 * first, an older one in flight is then refused as a replay). */
struct wg_identity;
/* The engine's Noise state (chaining key, hash), embedded in jobs. */
struct wg_noise_core {
	uint8_t ck[WG_HASH_LEN];
	uint8_t h[WG_HASH_LEN];
};

struct wg_handshake_job {
	/* Output: send out[0..out_len) to `to` (out_len 0: nothing to send). */
	struct wg_endpoint to;
	size_t out_len;
	uint8_t out[WG_HANDSHAKE_MAX_LEN];

	/* The engine's; opaque to callers. */
	struct wg_handshake_job_state {
		int type;   /* message type 1-3 */
		int stage;  /* what is left to do (enum in wg/handshake.c) */
		int result; /* the verdict once decided */
		struct wg_endpoint from;
		size_t len;
		uint8_t msg[WG_HANDSHAKE_MAX_LEN];
		uint8_t cookie[WG_COOKIE_LEN]; /* under load: the cookie of `from` */
		struct wg_identity *id;
		struct wg_peer *peer; /* response: whose initiation it answers (a reference) */
		uint32_t serial;      /* response: our initiation's serial */
		struct wg_noise_core core;
		uint8_t e_priv[WG_PUBLIC_KEY_LEN]; /* response: our initiation's ephemeral */
		uint8_t psk[WG_SYMMETRIC_KEY_LEN]; /* response: the peer's PSK */
		uint8_t remote_ephemeral[WG_PUBLIC_KEY_LEN]; /* initiation */
		uint8_t remote_static[WG_PUBLIC_KEY_LEN];
		uint8_t timestamp[WG_TIMESTAMP_LEN];
		/* initiation: our response's ephemeral and DH(e, re), DH(e, rs) */
		uint8_t resp_e_pub[WG_PUBLIC_KEY_LEN], resp_ee[WG_PUBLIC_KEY_LEN],
		    resp_se[WG_PUBLIC_KEY_LEN];
	} s;
};

/* A handshake datagram (types 1-3, wg_message_type) into job. Under the lock. */
void wg_device_prepare_handshake(struct wg_device *dev, const struct wg_endpoint *from,
				 const uint8_t *pkt, size_t len, struct wg_handshake_job *job);
/* The crypto. Thread-safe on distinct jobs; no lock. */
void wg_handshake_consume(const struct wg_device *dev, struct wg_handshake_job *job);
/* Commits the result to the device. Under the lock. WG_OK, WG_ERR_DROPPED or
 * (not a handshake message) WG_ERR_INVALID; job->out_len tells whether to
 * send job->out to job->to. */
int wg_device_complete_handshake(struct wg_device *dev, struct wg_handshake_job *job);

#endif
