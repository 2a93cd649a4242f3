/* Receiver index table: chained hashing on the (random) index itself. */
#include <stdlib.h>

#include "device.h"
#include "index.h"

enum { INDEX_INITIAL_BUCKETS = 64 };

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
	uint32_t index;

	wg_index_remove(t, e);
	if (t->count >= t->mask + 1)
		grow(t);
	do {
		if (!wg_device_random(dev, &index, sizeof(index)))
			return false;
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
