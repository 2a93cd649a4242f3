/* The engine's state inside a struct wg_handshake_job: public only because
 * callers allocate jobs; they never read it. Included by wg/wg.h, whose
 * types it uses; not to be included alone. */
#ifndef WG_HANDSHAKE_JOB_H
#define WG_HANDSHAKE_JOB_H

struct wg_identity;
/* Noise state (chaining key, hash). */
struct wg_noise_core {
	uint8_t ck[WG_HASH_LEN];
	uint8_t h[WG_HASH_LEN];
};

struct wg_handshake_job_state {
	int type;   /* message type 1-3 */
	int stage;  /* what is left to do (enum in wg/handshake.c) */
	int result; /* the verdict once decided */
	bool own;   /* our initiation to `peer` (prepared by wg_device_prepare_initiations) */
	struct wg_endpoint from;
	size_t len;
	uint8_t msg[WG_HANDSHAKE_MAX_LEN];
	uint8_t cookie[WG_COOKIE_LEN]; /* under load: the cookie of `from` */
	struct wg_identity *id;
	struct wg_peer *peer; /* response, own: whose initiation (a reference) */
	uint32_t serial;      /* response: our initiation's serial */
	struct wg_noise_core core;
	/* response, own: our initiation's ephemeral; initiation: our response's */
	uint8_t e_priv[WG_PUBLIC_KEY_LEN];
	uint8_t psk[WG_SYMMETRIC_KEY_LEN];	     /* response: the peer's PSK */
	uint8_t remote_ephemeral[WG_PUBLIC_KEY_LEN]; /* initiation */
	uint8_t remote_static[WG_PUBLIC_KEY_LEN];
	uint8_t timestamp[WG_TIMESTAMP_LEN];
	uint8_t dh[3][WG_PUBLIC_KEY_LEN]; /* X25519 results between consume's steps */
	/* initiation: our response's ephemeral and DH(e, re), DH(e, rs) */
	uint8_t resp_e_pub[WG_PUBLIC_KEY_LEN], resp_ee[WG_PUBLIC_KEY_LEN],
	    resp_se[WG_PUBLIC_KEY_LEN];
};

#endif
