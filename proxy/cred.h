/* Credential comparison for the proxies' Username and Password. */
#ifndef ZT_PROXY_CRED_H
#define ZT_PROXY_CRED_H

#include <stdbool.h>
#include <stddef.h>

/* True when a[0..alen) equals b[0..blen). Takes the same time for every
 * content and every length up to PROXY_CRED_MAX (longer: false, at once),
 * so a client learns nothing from timing but that it failed. */
bool proxy_cred_equal(const char *a, size_t alen, const char *b, size_t blen);

#endif
