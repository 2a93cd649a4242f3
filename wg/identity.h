/* The device's static identity as the unlocked handshake step reads it: an
 * immutable snapshot, refcounted (the device holds one reference while it is
 * current, each prepared handshake job one). A private key change makes a
 * new one instead of changing it, so a computation in flight keeps a
 * consistent key, and complete sees by comparing pointers that the key
 * changed (the job's reference keeps the old address from being reused).
 * References are taken and dropped under the device lock only. */
#ifndef WG_IDENTITY_H
#define WG_IDENTITY_H

#include <stdint.h>

#include "cookie.h"

struct wg_identity {
	uint32_t refcount;
	uint8_t static_private[WG_PUBLIC_KEY_LEN];
	uint8_t static_public[WG_PUBLIC_KEY_LEN];
	uint8_t mac1_key[WG_SYMMETRIC_KEY_LEN];	  /* HASH(LABEL_MAC1 || static_public) */
	uint8_t cookie_key[WG_SYMMETRIC_KEY_LEN]; /* HASH(LABEL_COOKIE || static_public) */
};

/* NULL when out of memory. */
struct wg_identity *wg_identity_new(const uint8_t priv[WG_PUBLIC_KEY_LEN],
				    const uint8_t pub[WG_PUBLIC_KEY_LEN],
				    const struct wg_cookie_checker *keys);
void wg_identity_get(struct wg_identity *id);
/* The last reference wipes and frees it. NULL is ignored. */
void wg_identity_put(struct wg_identity *id);

#endif
