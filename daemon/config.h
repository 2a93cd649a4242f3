/* The UAPI "get" and "set" operations against the running daemon. */
#ifndef ZT_CONFIG_H
#define ZT_CONFIG_H

#include <stddef.h>

#include "buf.h"
#include "runtime.h"
#include "uapi_parse.h"

/* The uapi_ops of a struct zt_runtime (ctx). get writes the key=value lines
 * without the errno line; set parses the whole body before applying it. */
int config_get(void *ctx, struct buf *out);
int config_set(void *ctx, const char *body, size_t len);
/* Applies a parsed set (uapi_parse_set's, or the proxy's file) under the
 * engine lock, all or nothing. Returns 0 or a negative errno. */
int config_apply(struct zt_runtime *zt, const struct uapi_set *set);

#endif
