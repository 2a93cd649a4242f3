/* WireGuard wire layout and the engine's protocol constants, in one place;
 * what callers need too (key and message lengths, message types, the
 * handshake queue) is in wg/wg.h. */
#ifndef WG_MESSAGES_H
#define WG_MESSAGES_H

#include <stdint.h>

#include <zinc/blake2s.h>
#include <zinc/chacha20poly1305.h>
#include <zinc/curve25519.h>

#include "wg/wg.h"

#define WG_NS_PER_SEC 1000000000ULL
#define WG_NS_PER_MS 1000000ULL

enum wg_limits {
	WG_MAX_STAGED_PACKETS = 128,
	WG_COUNTER_WINDOW_BITS = 8192, /* replay window */
	WG_MESSAGE_PADDING_MULTIPLE = 16,
	WG_RATELIMIT_PACKETS_PER_SECOND = 20,
	WG_RATELIMIT_BURST = 5,
	WG_RATELIMIT_MAX_ENTRIES = 8192,
	/* TTL a WireGuard message in WireGuard costs (wg/loop.c): 8 passes
	 * of a loop from TTL 64 */
	WG_NEST_TTL_STEP = 8,
};

#define WG_REKEY_AFTER_MESSAGES (1ULL << 60)
#define WG_REJECT_AFTER_MESSAGES (UINT64_MAX - (1ULL << 13)) /* 2^64 - 2^13 - 1 */

/* Times in nanoseconds. */
#define WG_REKEY_AFTER_TIME (120 * WG_NS_PER_SEC)
#define WG_REJECT_AFTER_TIME (180 * WG_NS_PER_SEC)
#define WG_REKEY_ATTEMPT_TIME (90 * WG_NS_PER_SEC)
#define WG_REKEY_TIMEOUT (5 * WG_NS_PER_SEC)
#define WG_REKEY_TIMEOUT_JITTER_MAX (333 * WG_NS_PER_MS)
#define WG_KEEPALIVE_TIMEOUT (10 * WG_NS_PER_SEC)
#define WG_COOKIE_SECRET_MAX_AGE (120 * WG_NS_PER_SEC)
#define WG_COOKIE_SECRET_LATENCY (5 * WG_NS_PER_SEC)
#define WG_HANDSHAKE_INITIATION_RATE (WG_NS_PER_SEC / 50) /* flood guard */
#define WG_UNDER_LOAD_AFTER_TIME (1 * WG_NS_PER_SEC)
#define WG_UNDER_LOAD_QUEUE_LEN (WG_MAX_QUEUED_INCOMING_HANDSHAKES / 8)
#define WG_RATELIMIT_ENTRY_TIMEOUT (1 * WG_NS_PER_SEC)
#define WG_LOOP_REPORT_INTERVAL (60 * WG_NS_PER_SEC) /* WG_EVENT_ROUTING_LOOP per peer */

enum {
	WG_COOKIE_NONCE_LEN = 24, /* XChaCha20-Poly1305 */
	WG_COOKIE_KEY_LABEL_LEN = 8,
};
#define WG_ENCRYPTED_LEN(plain_len) ((plain_len) + WG_AUTHTAG_LEN)

/* The lengths (wg.h, above) are the primitives' (zinc). */
_Static_assert((int)WG_PUBLIC_KEY_LEN == (int)ZINC_CURVE25519_KEY_SIZE, "public key");
_Static_assert((int)WG_SYMMETRIC_KEY_LEN == (int)ZINC_CHACHA20POLY1305_KEY_SIZE, "symmetric key");
_Static_assert((int)WG_HASH_LEN == (int)ZINC_BLAKE2S_HASH_SIZE, "hash");
_Static_assert((int)WG_AUTHTAG_LEN == (int)ZINC_CHACHA20POLY1305_AUTHTAG_SIZE, "tag");
_Static_assert((int)WG_COOKIE_NONCE_LEN == (int)ZINC_XCHACHA20POLY1305_NONCE_SIZE, "nonce");

/* Wire structs: sizeof equals the wire size; integers little-endian on the
 * wire (use the helpers in the code, never rely on host order). */
struct wg_message_header {
	uint8_t type;
	uint8_t reserved[3];
};

struct wg_message_macs {
	uint8_t mac1[WG_COOKIE_LEN];
	uint8_t mac2[WG_COOKIE_LEN];
};

struct wg_message_handshake_initiation {
	struct wg_message_header header;
	uint8_t sender_index[4];
	uint8_t unencrypted_ephemeral[WG_PUBLIC_KEY_LEN];
	uint8_t encrypted_static[WG_ENCRYPTED_LEN(WG_PUBLIC_KEY_LEN)];
	uint8_t encrypted_timestamp[WG_ENCRYPTED_LEN(WG_TIMESTAMP_LEN)];
	struct wg_message_macs macs;
};

struct wg_message_handshake_response {
	struct wg_message_header header;
	uint8_t sender_index[4];
	uint8_t receiver_index[4];
	uint8_t unencrypted_ephemeral[WG_PUBLIC_KEY_LEN];
	uint8_t encrypted_nothing[WG_ENCRYPTED_LEN(0)];
	struct wg_message_macs macs;
};

struct wg_message_handshake_cookie {
	struct wg_message_header header;
	uint8_t receiver_index[4];
	uint8_t nonce[WG_COOKIE_NONCE_LEN];
	uint8_t encrypted_cookie[WG_ENCRYPTED_LEN(WG_COOKIE_LEN)];
};

struct wg_message_data {
	struct wg_message_header header;
	uint8_t receiver_index[4];
	uint8_t counter[8];
	uint8_t encrypted_data[];
};

_Static_assert(sizeof(struct wg_message_handshake_initiation) == WG_HANDSHAKE_MAX_LEN,
	       "initiation size (the largest handshake message)");
_Static_assert(sizeof(struct wg_message_handshake_response) == 92, "response size");
_Static_assert(sizeof(struct wg_message_handshake_cookie) == 64, "cookie size");
_Static_assert(sizeof(struct wg_message_data) == WG_DATA_HEADER_LEN, "data header size");

#define WG_MESSAGE_MINIMUM_LENGTH WG_ENCRYPTED_LEN(sizeof(struct wg_message_data))

static const char WG_CONSTRUCTION[] = "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s";
static const char WG_IDENTIFIER[] = "WireGuard v1 zx2c4 Jason@zx2c4.com";
static const char WG_LABEL_MAC1[] = "mac1----";
static const char WG_LABEL_COOKIE[] = "cookie--";
_Static_assert(sizeof(WG_LABEL_MAC1) - 1 == WG_COOKIE_KEY_LABEL_LEN, "label");
_Static_assert(sizeof(WG_LABEL_COOKIE) - 1 == WG_COOKIE_KEY_LABEL_LEN, "label");

#endif
