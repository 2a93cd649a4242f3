// SPDX-License-Identifier: MIT
#include "cred.h"

#include <string.h>

#include <zinc/memzero.h>

#include "proxy_limits.h"

bool proxy_cred_equal(const char *a, size_t alen, const char *b, size_t blen)
{
	/* both padded to the longest allowed, so the work never depends on
	 * where they differ or on the lengths */
	char pa[PROXY_CRED_MAX] = {0}, pb[PROXY_CRED_MAX] = {0};
	bool same;

	if (alen > PROXY_CRED_MAX || blen > PROXY_CRED_MAX)
		return false;
	memcpy(pa, a, alen);
	memcpy(pb, b, blen);
	same = zinc_memeq(pa, pb, sizeof(pa)) & (alen == blen);
	zinc_memzero(pa, sizeof(pa));
	zinc_memzero(pb, sizeof(pb));
	return same;
}
