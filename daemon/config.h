/* The UAPI "get" and "set" operations against the running daemon. */
#ifndef ZT_CONFIG_H
#define ZT_CONFIG_H

#include <stddef.h>

#include "buf.h"
#include "runtime.h"
#include "uapi_parse.h"

/* Writes the key=value lines of a get (without the final errno line).
 * Returns 0 or a negative errno. */
int config_get(struct zt *zt, struct buf *out);
/* Parses the whole body first, then applies it under the engine lock:
 * a rejected set changes nothing. Returns 0 or a negative errno. */
int config_set(struct zt *zt, const char *body, size_t len);
/* Applies a parsed set (uapi_parse_set's, or the proxy's file) under the
 * engine lock, all or nothing. Returns 0 or a negative errno. */
int config_apply(struct zt *zt, const struct uapi_set *set);

#endif
