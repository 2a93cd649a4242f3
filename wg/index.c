/* Lookup tables (the Linux module's peerlookup.c): receiver indices, by
 * chained hashing on the (random) index itself; peers by public key. */
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "device.h"
#include "index.h"
#include "peer.h"

enum { INDEX_INITIAL_BUCKETS = 64, PUBKEY_INITIAL_BUCKETS = 16 };

int wg_index_init(struct wg_index_table *t)
{
	t->buckets = calloc(INDEX_INITIAL_BUCKETS, sizeof(*t->buckets));
	if (!t->buckets)
		return -1;
	t->mask = INDEX_INITIAL_BUCKETS - 1;
	t->count = 0;
	return 0;
}

void wg_index_destroy(struct wg_index_table *t)
{
	free(t->buckets);
	t->buckets = NULL;
	t->count = 0;
}

static struct wg_index_entry **bucket(const struct wg_index_table *t, uint32_t index)
{
	return &t->buckets[index & t->mask];
}

/* Doubles the table; on allocation failure keeps the old (longer chains). */
static void grow(struct wg_index_table *t)
{
	size_t n = (t->mask + 1) * 2;
	struct wg_index_entry **nb = calloc(n, sizeof(*nb));
	if (!nb)
		return;
	for (size_t i = 0; i <= t->mask; i++) {
		struct wg_index_entry *e = t->buckets[i], *next;
		for (; e; e = next) {
			next = e->next;
			e->next = nb[e->index & (n - 1)];
			nb[e->index & (n - 1)] = e;
		}
	}
	free(t->buckets);
	t->buckets = nb;
	t->mask = n - 1;
}

static struct wg_index_entry *find(const struct wg_index_table *t, uint32_t index)
{
	for (struct wg_index_entry *e = *bucket(t, index); e; e = e->next)
		if (e->index == index)
			return e;
	return NULL;
}

void wg_index_remove(struct wg_index_table *t, struct wg_index_entry *e)
{
	if (!e->hashed)
		return;
	for (struct wg_index_entry **pp = bucket(t, e->index); *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	}
	e->next = NULL;
	e->hashed = false;
	t->count--;
}

bool wg_index_insert_new(struct wg_device *dev, struct wg_index_entry *e)
{
	struct wg_index_table *t = &dev->index;
	uint8_t rnd[4];
	uint32_t index;

	wg_index_remove(t, e);
	if (t->count >= t->mask + 1)
		grow(t);
	do {
		if (!wg_device_random(dev, rnd, sizeof(rnd)))
			return false;
		/* as the wire reads it: the same bytes on every architecture */
		index = wg_le32(rnd);
	} while (find(t, index));
	e->index = index;
	e->next = *bucket(t, index);
	*bucket(t, index) = e;
	e->hashed = true;
	t->count++;
	return true;
}

void wg_index_replace(struct wg_index_table *t, struct wg_index_entry *old,
		      struct wg_index_entry *new_entry)
{
	if (!old->hashed)
		return;
	wg_index_remove(t, new_entry);
	for (struct wg_index_entry **pp = bucket(t, old->index); *pp; pp = &(*pp)->next) {
		if (*pp == old) {
			new_entry->index = old->index;
			new_entry->next = old->next;
			new_entry->hashed = true;
			*pp = new_entry;
			old->next = NULL;
			old->hashed = false;
			return;
		}
	}
}

struct wg_index_entry *wg_index_lookup(const struct wg_index_table *t, uint32_t index,
				       unsigned types)
{
	struct wg_index_entry *e = find(t, index);
	if (e && (e->type & types))
		return e;
	return NULL;
}

/* ---- Peers by public key (SipHash with dev->peer_hash_key) ---- */

int wg_pubkey_init(struct wg_device *dev)
{
	dev->peer_buckets = calloc(PUBKEY_INITIAL_BUCKETS, sizeof(*dev->peer_buckets));
	dev->peer_mask = PUBKEY_INITIAL_BUCKETS - 1;
	return dev->peer_buckets ? 0 : -1;
}

static size_t pubkey_bucket(const struct wg_device *dev, const uint8_t pub[WG_PUBLIC_KEY_LEN])
{
	return (size_t)wg_siphash24(dev->peer_hash_key, pub, WG_PUBLIC_KEY_LEN) & dev->peer_mask;
}

struct wg_peer *wg_pubkey_lookup(struct wg_device *dev, const uint8_t pub[WG_PUBLIC_KEY_LEN])
{
	for (struct wg_peer *p = dev->peer_buckets[pubkey_bucket(dev, pub)]; p; p = p->hash_next)
		if (!memcmp(p->public_key, pub, WG_PUBLIC_KEY_LEN))
			return p;
	return NULL;
}

/* Chains every peer of the device list into buckets (all empty). */
static void pubkey_fill(struct wg_device *dev, struct wg_peer **buckets)
{
	for (struct wg_peer *p = dev->peer_first; p; p = p->list_next) {
		size_t b = pubkey_bucket(dev, p->public_key);
		p->hash_next = buckets[b];
		buckets[b] = p;
	}
}

void wg_pubkey_rehash(struct wg_device *dev)
{
	memset(dev->peer_buckets, 0, (dev->peer_mask + 1) * sizeof(*dev->peer_buckets));
	pubkey_fill(dev, dev->peer_buckets);
}

void wg_pubkey_insert(struct wg_device *dev, struct wg_peer *peer)
{
	size_t b, n = (dev->peer_mask + 1) * 2;
	struct wg_peer **nb;

	/* Doubles the table first when full; out of memory: longer chains. */
	if (dev->peer_count >= dev->peer_mask + 1 && (nb = calloc(n, sizeof(*nb)))) {
		dev->peer_mask = n - 1;
		pubkey_fill(dev, nb);
		free(dev->peer_buckets);
		dev->peer_buckets = nb;
	}
	b = pubkey_bucket(dev, peer->public_key);
	peer->hash_next = dev->peer_buckets[b];
	dev->peer_buckets[b] = peer;
}

void wg_pubkey_remove(struct wg_device *dev, struct wg_peer *peer)
{
	struct wg_peer **pp = &dev->peer_buckets[pubkey_bucket(dev, peer->public_key)];

	for (; *pp; pp = &(*pp)->hash_next) {
		if (*pp == peer) {
			*pp = peer->hash_next;
			break;
		}
	}
	peer->hash_next = NULL;
}
