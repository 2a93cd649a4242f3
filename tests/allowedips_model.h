/* Naive reference model of wg/allowedips for tests and the fuzzer: a flat
 * array scanned linearly. Owners are small integers; seq orders each owner's
 * prefixes by when it acquired them. */
#ifndef ALLOWEDIPS_MODEL_H
#define ALLOWEDIPS_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* the trie's source, for its node struct (trie_nodes below) */
#include "../wg/allowedips.c"

/* Nodes in a trie, branch nodes included (the engine keeps no count). */
static inline size_t subtrie_nodes(const struct wg_allowedips_node *n)
{
	return n ? 1 + subtrie_nodes(n->bit[0]) + subtrie_nodes(n->bit[1]) : 0;
}

static inline size_t trie_nodes(const struct wg_allowedips *t)
{
	return t ? subtrie_nodes(t->root4) + subtrie_nodes(t->root6) : 0;
}

struct model_entry {
	int family;
	uint8_t addr[16];
	uint8_t cidr;
	int owner;
	uint64_t seq;
};

struct model {
	struct model_entry *e;
	size_t n, cap;
	uint64_t seq;
};

static inline size_t model_addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* Copies addr with every bit at index >= cidr cleared. */
static inline void model_mask(uint8_t out[16], const void *addr, int family, unsigned int cidr)
{
	const uint8_t *a = addr;

	memset(out, 0, 16);
	for (unsigned int i = 0; i < cidr; i++)
		out[i / 8] |= a[i / 8] & (0x80 >> (i % 8));
	(void)family;
}

static inline bool model_match(const struct model_entry *m, int family, const uint8_t *addr)
{
	if (m->family != family)
		return false;
	for (unsigned int i = 0; i < m->cidr; i++) {
		unsigned int bit = 0x80 >> (i % 8);
		if ((m->addr[i / 8] & bit) != (addr[i / 8] & bit))
			return false;
	}
	return true;
}

static inline struct model_entry *model_find(struct model *m, int family, const uint8_t *masked,
					     unsigned int cidr)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].family == family && m->e[i].cidr == cidr &&
		    !memcmp(m->e[i].addr, masked, 16))
			return &m->e[i];
	return NULL;
}

static inline void model_insert(struct model *m, int family, const void *addr, unsigned int cidr,
				int owner)
{
	uint8_t masked[16];
	struct model_entry *e;

	model_mask(masked, addr, family, cidr);
	e = model_find(m, family, masked, cidr);
	if (e) {
		/* re-acquired, even from itself: last in owner's order */
		e->owner = owner;
		e->seq = ++m->seq;
		return;
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->e = realloc(m->e, m->cap * sizeof(*m->e));
		if (!m->e)
			abort();
	}
	e = &m->e[m->n++];
	e->family = family;
	memcpy(e->addr, masked, 16);
	e->cidr = (uint8_t)cidr;
	e->owner = owner;
	e->seq = ++m->seq;
}

/* 0 or -1 (absent or owned by someone else). */
static inline int model_remove(struct model *m, int family, const void *addr, unsigned int cidr,
			       int owner)
{
	uint8_t masked[16];
	struct model_entry *e;

	model_mask(masked, addr, family, cidr);
	e = model_find(m, family, masked, cidr);
	if (!e || e->owner != owner)
		return -1;
	*e = m->e[--m->n];
	return 0;
}

static inline void model_remove_owner(struct model *m, int owner)
{
	for (size_t i = 0; i < m->n;) {
		if (m->e[i].owner == owner)
			m->e[i] = m->e[--m->n];
		else
			i++;
	}
}

/* Owner of the longest matching prefix, or -1. */
static inline int model_lookup(const struct model *m, int family, const void *addr)
{
	int best = -1, best_cidr = -1;

	for (size_t i = 0; i < m->n; i++)
		if ((int)m->e[i].cidr > best_cidr && model_match(&m->e[i], family, addr)) {
			best_cidr = m->e[i].cidr;
			best = m->e[i].owner;
		}
	return best;
}

static inline int model_cmp_seq(const void *a, const void *b)
{
	const struct model_entry *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Fills out (capacity m->n) with owner's prefixes in acquisition order. */
static inline size_t model_list(const struct model *m, int owner, struct model_entry *out)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].owner == owner)
			out[k++] = m->e[i];
	if (k > 1)
		qsort(out, k, sizeof(*out), model_cmp_seq);
	return k;
}

/* Comparing the real table's per-owner lists against the model. */
struct model_walk {
	const struct model_entry *want;
	size_t n, pos;
	bool ok;
};

static inline bool model_walk_fn(void *ctx, int family, const void *addr, uint8_t cidr)
{
	struct model_walk *w = ctx;
	const struct model_entry *e;

	if (w->pos >= w->n) {
		w->ok = false;
		return false;
	}
	e = &w->want[w->pos++];
	if (e->family != family || e->cidr != cidr ||
	    memcmp(e->addr, addr, model_addr_len(family)) != 0)
		w->ok = false;
	return w->ok;
}

/* True if owner's list (count and order) matches the model's owner idx.
 * scratch has room for m->n entries. */
static inline bool model_check_owner(const struct model *m, int idx,
				     const struct wg_allowedips_owner *owner,
				     struct model_entry *scratch)
{
	struct model_walk w = {scratch, model_list(m, idx, scratch), 0, true};

	if (owner->count != w.n)
		return false;
	wg_allowedips_foreach(owner, model_walk_fn, &w);
	return w.ok && w.pos == w.n;
}

static inline void model_free(struct model *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

#endif
