/* AmneziaWG framing inside the engine (wg.h says what goes on the wire). */
#ifndef WG_OBFS_H
#define WG_OBFS_H

#include <stdatomic.h>

#include "wg/wg.h"

/* A thread's keystream for transport padding and header values, refilled
 * at once: 4 ChaCha20 blocks, one pass of the SIMD code (1 KiB, 16 blocks,
 * cost each daemon 12-16 KiB more idle RSS in its threads' TLS). */
enum { WG_OBFS_STREAM_LEN = 256 };

struct wg_device;
struct wg_peer;

/* The device's: cfg under the engine lock; the lock-free classifier reads
 * the copies below (a packet racing a set may be misjudged, then dropped). */
struct wg_obfs {
	struct wg_obfs_config cfg;
	_Atomic bool on; /* anything but plain WireGuard */
	_Atomic uint32_t pad[WG_OBFS_TYPES], lo[WG_OBFS_TYPES], hi[WG_OBFS_TYPES];
	/* Transport padding and header values: ChaCha20 keystream under this
	 * key (from the injected RNG at the first set), not a system call per
	 * packet. Written once under the lock before any job that reads it. */
	uint8_t data_key[WG_SYMMETRIC_KEY_LEN];
	bool has_data_key;
};

void wg_obfs_init(struct wg_obfs *o);
/* A handshake message's type (1-3) with its padding taken off, else 0. */
int wg_obfs_handshake_type(const struct wg_device *dev, const uint8_t *msg, size_t len);
/* The type field of a message of type t (1-4) at p, from h<t>. */
void wg_obfs_put_header(struct wg_device *dev, uint8_t *p, int t);
/* msg (type t) with s<t> random bytes in front, into out
 * (WG_OBFS_MAX_DATAGRAM bytes; msg may be out); returns the length. */
size_t wg_obfs_frame(struct wg_device *dev, int t, const void *msg, size_t len, uint8_t *out);
/* Special junk i1..i5, then jc junk packets: before each initiation, sent
 * to the peer's endpoint (counted as its tx) with the handshake's DS field,
 * so that they share its queue and stay ahead of it. Under the lock. */
void wg_obfs_send_junk(struct wg_device *dev, struct wg_peer *peer);
/* A transport message's padding and header value, for a job. */
void wg_obfs_tx_params(const struct wg_device *dev, size_t plain_len, uint32_t *pad,
		       struct wg_obfs_range *hdr);
/* Writes pad random bytes at out and a header value from hdr after them;
 * on any thread. */
void wg_obfs_frame_data(const struct wg_device *dev, uint8_t *out, uint32_t pad,
			const struct wg_obfs_range *hdr);

/* obfs_conf.c: a whole configuration's check; an i spec's check and its
 * packet (into out, WG_OBFS_MAX_DATAGRAM bytes; returns the length). */
const char *wg_obfs_config_check(const struct wg_obfs_config *c);
/* d updated by c's given keys. */
void wg_obfs_config_merge(struct wg_obfs_config *d, const struct wg_obfs_config *c);
const char *wg_obfs_spec_check(const char *spec, size_t *len);
size_t wg_obfs_spec_emit(struct wg_device *dev, const char *spec, uint8_t *out);
/* What s1..s4 pad: the three handshake messages, transport data (>= a keepalive). */
extern const size_t wg_obfs_msg_len[WG_OBFS_TYPES];

#endif
