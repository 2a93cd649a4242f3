/* Static identity snapshots for the split handshake path (identity.h). */
#include <stdlib.h>
#include <string.h>

#include <zinc/memzero.h>

#include "identity.h"

struct wg_identity *wg_identity_new(const uint8_t priv[WG_PUBLIC_KEY_LEN],
				    const uint8_t pub[WG_PUBLIC_KEY_LEN],
				    const struct wg_cookie_checker *keys)
{
	struct wg_identity *id = calloc(1, sizeof(*id));

	if (!id)
		return NULL;
	id->refcount = 1;
	memcpy(id->static_private, priv, WG_PUBLIC_KEY_LEN);
	memcpy(id->static_public, pub, WG_PUBLIC_KEY_LEN);
	memcpy(id->mac1_key, keys->mac1_key, WG_SYMMETRIC_KEY_LEN);
	memcpy(id->cookie_key, keys->cookie_key, WG_SYMMETRIC_KEY_LEN);
	return id;
}

void wg_identity_get(struct wg_identity *id)
{
	id->refcount++;
}

void wg_identity_put(struct wg_identity *id)
{
	if (!id || --id->refcount)
		return;
	zinc_memzero(id, sizeof(*id));
	free(id);
}
