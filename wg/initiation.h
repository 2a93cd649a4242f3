/* Our handshake initiations as jobs of the split handshake path (wg.h):
 * prepared under the caller's lock, their X25519 work done without it,
 * completed under it. Internal. */
#ifndef WG_INITIATION_H
#define WG_INITIATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "peer.h"

/* An initiation to peer, if its gates allow (identity, endpoint, seeded
 * RNG, one per REKEY_TIMEOUT unless early). With io.initiations_pending the
 * peer is queued for wg_device_prepare_initiations (once until that job
 * completes) and the caller told; without, it is built and sent now
 * through io.send. */
void wg_initiation_request(struct wg_device *dev, struct wg_peer *peer, bool early);
/* Consume, for the batch (handshake.c): the X25519 operations a job of
 * ours needs (out, secret, point: WG_DH_PER_JOB each; 0: none), then the
 * message from their results. No lock. */
size_t wg_initiation_dh_ops(struct wg_handshake_job_state *s, uint8_t **out, const uint8_t **secret,
			    const uint8_t **point);
void wg_initiation_dh_done(struct wg_handshake_job_state *s);
/* Under the lock: refused (WG_ERR_DROPPED, nothing to send) when the peer
 * was removed or lost its endpoint, or the private key changed, since
 * prepare; else the message is in job->out. */
int wg_initiation_complete(struct wg_device *dev, struct wg_handshake_job *job);
/* Drops the queue (wg_device_free). */
void wg_initiation_queue_clear(struct wg_device *dev);

#endif
