/* Credential comparison for the proxies' Username and Password. */
#ifndef ZT_PROXY_CRED_H
#define ZT_PROXY_CRED_H

#include <stdbool.h>
#include <stddef.h>

/* The same time for any content and length up to PROXY_CRED_MAX (longer:
 * false at once): timing tells a client nothing but that it failed. */
bool proxy_cred_equal(const char *a, size_t alen, const char *b, size_t blen);

#endif
