/* Token buckets measured in nanoseconds of credit: each packet costs
 * 1 s / rate, the bucket holds burst packets' worth. Entries live in a
 * preallocated pool chained from a power-of-two bucket array, so the packet
 * path never allocates and the memory bound is fixed. An all-zero table is
 * empty (entry 0 is never used, so a zero link ends a chain) and entries
 * are handed out in order before the free list is used: the ~290 KiB pool
 * stays untouched, out of the daemon's RSS, until sources come. */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "ratelimiter.h"
#include "siphash.h"

#define PACKET_COST (WG_NS_PER_SEC / WG_RATELIMIT_PACKETS_PER_SECOND)
#define TOKEN_MAX (PACKET_COST * WG_RATELIMIT_BURST)

enum {
	NBUCKETS = WG_RATELIMIT_MAX_ENTRIES, /* load factor <= 1 */
	NONE = 0,			     /* the end of a chain; entries[0] is unused */
};

_Static_assert((NBUCKETS & (NBUCKETS - 1)) == 0, "bucket count must be a power of two");

struct entry {
	uint64_t tokens; /* ns of credit */
	uint64_t last_ns;
	uint8_t key[9]; /* family tag, then IPv4 address or IPv6 /64 */
	uint32_t next;	/* chain or free list */
};

struct wg_ratelimiter {
	uint8_t hash_key[WG_SIPHASH_KEY_LEN];
	size_t count;
	uint32_t free_head;
	uint32_t used; /* entries [1, used] were handed out at least once */
	uint64_t last_gc_ns;
	uint32_t buckets[NBUCKETS];
	struct entry entries[WG_RATELIMIT_MAX_ENTRIES + 1];
};

struct wg_ratelimiter *wg_ratelimiter_new(const uint8_t hash_key[WG_SIPHASH_KEY_LEN])
{
	struct wg_ratelimiter *rl = calloc(1, sizeof(*rl));

	if (!rl)
		return NULL;
	memcpy(rl->hash_key, hash_key, sizeof(rl->hash_key));
	return rl;
}

void wg_ratelimiter_free(struct wg_ratelimiter *rl)
{
	if (!rl)
		return;
	memset(rl->hash_key, 0, sizeof(rl->hash_key));
	free(rl);
}

/* Builds the bucket key: IPv4 (also v4-mapped IPv6) by address, IPv6 by /64. */
static bool source_key(const struct sockaddr *src, uint8_t key[9])
{
	memset(key, 0, 9);
	if (!src)
		return false;
	if (src->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)src;
		key[0] = 4;
		memcpy(key + 1, &sin->sin_addr, 4);
		return true;
	}
	if (src->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)src;
		const uint8_t *a = sin6->sin6_addr.s6_addr;
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			key[0] = 4;
			memcpy(key + 1, a + 12, 4);
		} else {
			key[0] = 6;
			memcpy(key + 1, a, 8);
		}
		return true;
	}
	return false;
}

static void gc(struct wg_ratelimiter *rl, uint64_t now_ns)
{
	rl->last_gc_ns = now_ns;
	if (!rl->count)
		return; /* the common case: no walk over 8192 empty buckets */
	for (uint32_t b = 0; b < NBUCKETS; b++) {
		uint32_t *link = &rl->buckets[b];
		while (*link != NONE) {
			struct entry *e = &rl->entries[*link];
			uint32_t idx = *link;
			if (now_ns > e->last_ns &&
			    now_ns - e->last_ns >= WG_RATELIMIT_ENTRY_TIMEOUT) {
				*link = e->next;
				e->next = rl->free_head;
				rl->free_head = idx;
				rl->count--;
			} else {
				link = &e->next;
			}
		}
	}
}

static uint32_t bucket_of(const struct wg_ratelimiter *rl, const uint8_t key[9])
{
	return (uint32_t)wg_siphash24(rl->hash_key, key, 9) & (NBUCKETS - 1);
}

bool wg_ratelimiter_allow(struct wg_ratelimiter *rl, const struct sockaddr *src, uint64_t now_ns)
{
	uint8_t key[9];
	uint32_t b, idx;
	struct entry *e;
	bool ok;

	if (!rl || !source_key(src, key))
		return false;
	b = bucket_of(rl, key);

	for (idx = rl->buckets[b]; idx != NONE; idx = e->next) {
		e = &rl->entries[idx];
		if (memcmp(e->key, key, sizeof(key)) != 0)
			continue;
		if (now_ns > e->last_ns) {
			uint64_t t = e->tokens + (now_ns - e->last_ns);
			e->tokens = t < e->tokens || t > TOKEN_MAX ? TOKEN_MAX : t;
			e->last_ns = now_ns;
		}
		ok = e->tokens >= PACKET_COST;
		if (ok)
			e->tokens -= PACKET_COST;
		return ok;
	}

	/* New source. A full table is first swept of idle entries, at most
	 * once per timeout so a flood cannot make every packet pay for it. */
	if (rl->free_head == NONE && rl->used == WG_RATELIMIT_MAX_ENTRIES &&
	    now_ns - rl->last_gc_ns >= WG_RATELIMIT_ENTRY_TIMEOUT && now_ns >= rl->last_gc_ns)
		gc(rl, now_ns);
	idx = rl->free_head;
	if (idx != NONE) {
		rl->free_head = rl->entries[idx].next;
	} else if (rl->used < WG_RATELIMIT_MAX_ENTRIES) {
		idx = ++rl->used;
	} else {
		return false;
	}
	e = &rl->entries[idx];
	memcpy(e->key, key, sizeof(key));
	e->tokens = TOKEN_MAX - PACKET_COST;
	e->last_ns = now_ns;
	e->next = rl->buckets[b];
	rl->buckets[b] = idx;
	rl->count++;
	return true;
}

void wg_ratelimiter_gc(struct wg_ratelimiter *rl, uint64_t now_ns)
{
	if (rl)
		gc(rl, now_ns);
}

void wg_ratelimiter_rekey(struct wg_ratelimiter *rl, const uint8_t hash_key[WG_SIPHASH_KEY_LEN])
{
	uint32_t live = NONE;

	if (!rl)
		return;
	/* Unchain every live entry into one list, then chain each again
	 * under the new key. */
	for (uint32_t b = 0; b < NBUCKETS; b++) {
		while (rl->buckets[b] != NONE) {
			uint32_t idx = rl->buckets[b];
			rl->buckets[b] = rl->entries[idx].next;
			rl->entries[idx].next = live;
			live = idx;
		}
	}
	memcpy(rl->hash_key, hash_key, sizeof(rl->hash_key));
	while (live != NONE) {
		struct entry *e = &rl->entries[live];
		uint32_t idx = live, b = bucket_of(rl, e->key);
		live = e->next;
		e->next = rl->buckets[b];
		rl->buckets[b] = idx;
	}
}

size_t wg_ratelimiter_count(const struct wg_ratelimiter *rl)
{
	return rl ? rl->count : 0;
}
