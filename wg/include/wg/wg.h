/* The WireGuard protocol engine: no I/O, no threads, no clock reads.
 * Packets and time go in; datagrams and IP packets come out through
 * callbacks (doc/engine.md). Calls on one device are serialized by the
 * caller (the daemon's engine lock) unless a function says otherwise;
 * callbacks run inside those calls. */
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
	WG_MAX_PEERS = 1 << 20, /* wg_device_peer_add refuses more */
	WG_DEFAULT_MTU = 1420,	/* the tunnel MTU until wg_device_set_mtu */
	/* How many incoming handshake messages a caller queues at most (the
	 * Linux module's MAX_QUEUED_INCOMING_HANDSHAKES): the engine is under
	 * load while the depth it is told (wg_device_set_handshake_queue_len)
	 * is 1/8 of this or more. */
	WG_MAX_QUEUED_INCOMING_HANDSHAKES = 4096,
	/* The outer DS field (IPv4 TOS, IPv6 traffic class) of handshake
	 * initiations and responses: DSCP AF41, ECN 0 (the Linux module's
	 * HANDSHAKE_DSCP), so that they pass congested queues. */
	WG_HANDSHAKE_DS = 0x88,
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
	/* a packet to the peer's own endpoint routed into the peer: our own
	 * datagram came back through the tunnel (no fwmark rule or endpoint
	 * route), dropped. At most once a minute per peer; attempt: the packets
	 * dropped since the last one. */
	WG_EVENT_ROUTING_LOOP,
	WG_EVENT_KIND_COUNT,
};

struct wg_event {
	enum wg_event_kind kind;
	struct wg_peer *peer;		    /* NULL for the refused messages */
	const struct wg_endpoint *endpoint; /* the peer's or the source; NULL if none */
	const uint8_t *public_key;	    /* the peer's, or UNKNOWN_PEER's sender's; else NULL */
	uint32_t attempt;		    /* INITIATION_SENT, HANDSHAKE_RETRY, ROUTING_LOOP */
	bool initiator;			    /* HANDSHAKE_COMPLETE, KEYPAIR_ROTATED */
	/* HANDSHAKE_COMPLETE: no handshake in the REJECT_AFTER_TIME before
	 * (wall clock): the tunnel comes up rather than rekeys */
	bool fresh;
};

/* Output. send: a datagram for the network, with the DS field its outer IP
 * header should carry (as the Linux module: WG_HANDSHAKE_DS for initiations
 * and responses, for data the inner packet's ECN bits with DSCP 0 and CE
 * sent as ECT(0), 0 for keepalives and cookie replies). deliver: a decrypted, validated
 * IP packet for the tunnel interface (buffer valid only during the call);
 * NULL for a caller that takes every packet from wg_device_complete_rx's out
 * and never calls wg_device_receive (a packet is dropped if it comes).
 * event: NULL, or told of each wg_event (the struct and what it points to
 * are valid only during the call). It runs inside engine calls, so under
 * the daemon's lock: it must be quick and must not call into the engine.
 * No event comes from wg_handshake_consume (the lock-free step) nor from
 * wg_device_free.
 * initiations_pending: NULL, and our handshake initiations are built and
 * sent through send inside the call that needs them (X25519 included);
 * else they are queued, and this is called (inside an engine call, under
 * the caller's lock) when the queue stops being empty: the caller then
 * takes them with wg_device_prepare_initiations, off the data path (see
 * "Split handshake path"). It must not call into the engine. */
struct wg_io {
	void (*send)(void *ctx, const struct wg_endpoint *to, const uint8_t *pkt, size_t len,
		     uint8_t ds);
	void (*deliver)(void *ctx, struct wg_peer *from, const uint8_t *pkt, size_t len);
	void *ctx;
	void (*event)(void *ctx, const struct wg_event *ev);
	void (*initiations_pending)(void *ctx);
};

/* Results: errors are negative and below -1000, never an -errno value
 * (daemon/ and proxy/ return -errno; doc/engine.md, error conventions). */
enum wg_result {
	WG_OK = 0,
	WG_STAGED = 1, /* send: queued until a handshake completes */
	WG_ERR_NOROUTE =
	    -1001, /* send: no peer for the destination (caller sends ICMP unreachable) */
	WG_ERR_INVALID = -1002, /* malformed packet or argument */
	WG_ERR_DROPPED = -1003, /* received and rejected (auth, replay, ratelimit, rng gate...) */
	WG_ERR_NOKEY = -1004,	/* no private key / no endpoint */
	WG_ERR_NOMEM = -1005,
	WG_ERR_LOOP = -1006, /* send: a datagram to the routed peer's own endpoint (routing loop) */
};

/* ---- Device lifetime and identity ---- */
struct wg_device *wg_device_new(const struct wg_env *env, const struct wg_io *io);
/* Wipes all key material and frees every peer. Complete every prepared
 * tx/rx job first (they hold references into the device). */
void wg_device_free(struct wg_device *dev);

/* key NULL or all zero removes the private key. The key is clamped. As in
 * the Linux module, peers with the new public key are removed, and existing
 * sessions stop sending (the next packet starts a handshake) but receive
 * until they expire, while the peer learns the new public key. */
void wg_device_set_private_key(struct wg_device *dev, const uint8_t key[WG_PUBLIC_KEY_LEN]);
/* False when no private key is set. */
bool wg_device_get_private_key(const struct wg_device *dev, uint8_t key[WG_PUBLIC_KEY_LEN]);
bool wg_device_get_public_key(const struct wg_device *dev, uint8_t pub[WG_PUBLIC_KEY_LEN]);
/* Tunnel MTU: transport plaintext is padded to 16 but never past it. */
void wg_device_set_mtu(struct wg_device *dev, uint32_t mtu);

/* ---- Peers ---- */
struct wg_peer *wg_device_peer_lookup(struct wg_device *dev, const uint8_t pub[WG_PUBLIC_KEY_LEN]);
/* Adds a peer (or returns the existing one). NULL at WG_MAX_PEERS or if pub is
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

/* Classifies a datagram without touching state (to pick a queue): an enum
 * wg_message_type, WG_MESSAGE_INVALID for a bad size or type. */
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
	uint64_t dropped_bad_mac;      /* handshake mac1, data authentication tag */
	uint64_t dropped_replay;       /* data counter seen; old handshake timestamp or flood */
	uint64_t dropped_wrong_source; /* inner packet not IP or outside the peer's allowed IPs */
	uint64_t dropped_no_session;   /* data for no usable keypair; response to no initiation */
	uint64_t dropped_invalid;      /* malformed, failed handshake crypto, unknown peer */
	uint64_t dropped_no_route;     /* outgoing: no peer for the destination */
	uint64_t dropped_no_endpoint;  /* outgoing: the peer has no endpoint, or no private key */
	uint64_t dropped_staged;       /* outgoing: pushed out of a full staged queue */
	uint64_t
	    dropped_routing_loop; /* outgoing: to the routed peer's own endpoint (WG_ERR_LOOP) */
};
void wg_device_get_stats(const struct wg_device *dev, struct wg_device_stats *stats);

/* ---- AmneziaWG obfuscation (opt-in; doc/engine.md) ----
 * As amneziawg-go v0.2.16 puts it on the wire: before each initiation the
 * special junk packets i1..i5 then jc random junk packets of jmin..jmax
 * bytes; s1..s4 random bytes in front of initiations, responses, cookie
 * replies and transport data (keepalives unpadded); the 4-byte type field
 * replaced by a value from h1..h4. Both ends must agree on s and h. */
enum {
	/* junk, special junk and padded handshake messages stay within the
	 * IPv6 minimum MTU (AmneziaWG's documented bounds) */
	WG_OBFS_MAX_DATAGRAM = 1280,
	WG_OBFS_MAX_JUNK_COUNT = 128, /* jc */
	WG_OBFS_SPECIALS = 5,	      /* i1..i5 */
	WG_OBFS_SPEC_LEN = 4096,      /* an i spec's text, NUL included */
	WG_OBFS_TYPES = 4,	      /* s and h: one per message type */
};
struct wg_obfs_range {
	uint32_t lo, hi;
};
/* given: which keys were set (bit k: the k-th of wg_obfs_key_name); an
 * update copies only those. Fields not given hold the plain values. */
struct wg_obfs_config {
	uint32_t given;
	uint32_t jc, jmin, jmax;
	uint32_t s[WG_OBFS_TYPES];
	struct wg_obfs_range h[WG_OBFS_TYPES]; /* plain: {type, type} */
	char i[WG_OBFS_SPECIALS][WG_OBFS_SPEC_LEN];
};
/* Plain WireGuard: no junk, no padding, the standard types. */
void wg_obfs_config_init(struct wg_obfs_config *c);
/* The k-th key's UAPI name ("jc", ..., "i5"); NULL past the last. */
const char *wg_obfs_key_name(unsigned k);
/* Sets one key from its UAPI value (amneziawg-go's forms; the name matched
 * case-insensitively, as the proxy config spells it "Jc"): 1 done, 0 not an
 * obfuscation key, -1 invalid (*why says why). */
int wg_obfs_set_key(struct wg_obfs_config *c, const char *key, size_t klen, const char *val,
		    size_t vlen, const char **why);
/* The k-th key's `get` line value into out (NUL-terminated; cap
 * WG_OBFS_SPEC_LEN holds any); false when not printed: unset (as
 * amneziawg-go), or h1-h4 while no key was ever set (it prints them always;
 * a plain device's get stays wireguard-go's). */
bool wg_device_format_obfs(const struct wg_device *dev, unsigned k, char *out, size_t cap);
/* The device's configuration updated by c's given keys: NULL and applied,
 * or why it is refused (nothing changes); check only with apply false. */
const char *wg_device_set_obfs(struct wg_device *dev, const struct wg_obfs_config *c, bool apply);
/* wg_message_type for this device's headers and padding; lock-free. *off:
 * where the message starts after the padding. */
int wg_device_message_type(const struct wg_device *dev, const uint8_t *pkt, size_t len,
			   size_t *off);
/* Bytes of padding in front of a transport message; lock-free (a caller
 * laying out buffers before wg_device_prepare_tx). */
uint32_t wg_device_tx_padding(const struct wg_device *dev);

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
	size_t len;	   /* plaintext length (before padding) */
	uint32_t mtu;	   /* the device MTU when prepared: seal pads with it, lock-free */
	uint8_t ds;	   /* the outer DS field to send with (see wg_io.send) */
	uint8_t ttl;	   /* the outer TTL / hop limit, 0: the system's (wg/loop.c) */
	uint32_t obfs_pad; /* AmneziaWG s4 (0 for a keepalive) */
	struct wg_obfs_range obfs_header; /* AmneziaWG h4 */
};
/* WG_OK: job ready for seal. WG_STAGED: packet copied to the peer's staged
 * queue, handshake started. WG_ERR_NOROUTE: no peer. WG_ERR_LOOP: refused,
 * a routing loop (counted, reported by WG_EVENT_ROUTING_LOOP). */
int wg_device_prepare_tx(struct wg_device *dev, const uint8_t *ip_pkt, size_t len,
			 struct wg_tx_job *job);
/* Writes the transport message (obfuscation padding, header, ciphertext
 * padded to 16 but never past job->mtu, tag) to out, which needs
 * wg_tx_sealed_len() bytes, and returns its length. Thread-safe (with
 * padding, env.get_random must be too). In place: the packet at buf +
 * job->obfs_pad + WG_DATA_HEADER_LEN as ip_pkt, out = buf (any overlap
 * works). */
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
	/* The datagram's outer DS field: prepare sets 0, the caller may set it
	 * before complete, which marks the inner packet's ECN bits from it as
	 * the Linux module does (INET_ECN_decapsulate, wg/ecn.c). */
	uint8_t ds;
	size_t off; /* the message after AmneziaWG padding */
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

/* ---- Split handshake path (multi-threaded daemon; doc/engine.md) ----
 * Every job goes through prepare (under the lock), consume (no lock, any
 * thread: mac1, X25519, Noise) and complete (under the lock), in this
 * order. A datagram to send is returned in the job, to be sent after
 * dropping the lock: an answer to a received message (complete returns what
 * wg_device_receive() would) or one of our initiations. */
#include "wg/handshake_job.h"

struct wg_handshake_job {
	/* Output: send out[0..out_len) to `to` with outer DS field ds
	 * (out_len 0: nothing to send). */
	struct wg_endpoint to;
	size_t out_len;
	uint8_t ds;
	uint8_t out[WG_OBFS_MAX_DATAGRAM];

	struct wg_handshake_job_state s; /* the engine's (wg/handshake_job.h) */
};

/* A handshake message (types 1-3, wg_device_message_type; AmneziaWG padding
 * taken off: the message from *off on) into job. Under the lock. */
void wg_device_prepare_handshake(struct wg_device *dev, const struct wg_endpoint *from,
				 const uint8_t *pkt, size_t len, struct wg_handshake_job *job);
/* Our queued initiations (io.initiations_pending), up to max, into jobs;
 * returns how many. Under the lock. A peer removed, without endpoint or
 * within its REKEY_TIMEOUT by now is skipped. Completing one returns WG_OK
 * and the initiation in job->out, or WG_ERR_DROPPED and nothing when the
 * peer was removed or the private key changed since prepare. */
size_t wg_device_prepare_initiations(struct wg_device *dev, struct wg_handshake_job *jobs,
				     size_t max);
/* The crypto. Thread-safe on distinct jobs; no lock. */
void wg_handshake_consume(const struct wg_device *dev, struct wg_handshake_job *job);
/* The same for n jobs of any kind, their independent X25519 operations
 * computed together (one batch per step: up to three steps). */
void wg_handshake_consume_batch(const struct wg_device *dev, struct wg_handshake_job *jobs,
				size_t n);
/* Commits the result to the device. Under the lock. WG_OK, WG_ERR_DROPPED or
 * (not a handshake message) WG_ERR_INVALID; job->out_len tells whether to
 * send job->out to job->to. */
int wg_device_complete_handshake(struct wg_device *dev, struct wg_handshake_job *job);

#endif
