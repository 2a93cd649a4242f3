/* Lookup tables: receiver indices, random u32s unique on the device, to the
 * handshake or keypair that owns them; peers by public key. */
#ifndef WG_INDEX_H
#define WG_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wg/wg.h"

struct wg_device;
struct wg_peer;

enum wg_index_type {
	WG_INDEX_HANDSHAKE = 1,
	WG_INDEX_KEYPAIR = 2,
};

struct wg_index_entry {
	struct wg_index_entry *next;
	struct wg_peer *peer;
	uint32_t index;
	uint8_t type;
	bool hashed;
};

struct wg_index_table {
	struct wg_index_entry **buckets;
	size_t mask; /* bucket count - 1 (power of two) */
	size_t count;
};

int wg_index_init(struct wg_index_table *t);
void wg_index_destroy(struct wg_index_table *t);
/* Gives e a fresh random index no other entry has (dropping its old one).
 * False when the RNG fails or memory is short. */
bool wg_index_insert_new(struct wg_device *dev, struct wg_index_entry *e);
void wg_index_remove(struct wg_index_table *t, struct wg_index_entry *e);
/* new takes old's index; old leaves the table. */
void wg_index_replace(struct wg_index_table *t, struct wg_index_entry *old,
		      struct wg_index_entry *new_entry);
/* types: a mask of enum wg_index_type. */
struct wg_index_entry *wg_index_lookup(const struct wg_index_table *t, uint32_t index,
				       unsigned types);

/* The peer table (dev->peer_buckets), beside the device's list; rehash
 * after a new dev->peer_hash_key. */
int wg_pubkey_init(struct wg_device *dev);
struct wg_peer *wg_pubkey_lookup(struct wg_device *dev, const uint8_t pub[WG_PUBLIC_KEY_LEN]);
void wg_pubkey_insert(struct wg_device *dev, struct wg_peer *peer);
void wg_pubkey_remove(struct wg_device *dev, struct wg_peer *peer);
void wg_pubkey_rehash(struct wg_device *dev);

#endif
