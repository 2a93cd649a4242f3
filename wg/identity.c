/* Static identity snapshots for the split handshake path (identity.h). */
#include <stdlib.h>
#include <string.h>

#include <zinc/memzero.h>

#include "identity.h"

struct wg_identity *wg_identity_new(const uint8_t priv[32], const uint8_t pub[32],
				    const struct wg_cookie_checker *keys)
{
	struct wg_identity *id = calloc(1, sizeof(*id));

	if (!id)
		return NULL;
	id->refcount = 1;
	memcpy(id->static_private, priv, 32);
	memcpy(id->static_public, pub, 32);
	memcpy(id->mac1_key, keys->mac1_key, 32);
	memcpy(id->cookie_key, keys->cookie_key, 32);
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
