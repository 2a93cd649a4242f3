/* Path-compressed binary trie, one per address family. Each node holds a
 * masked key of cidr bits; a node either owns its prefix (a route) or is a
 * branch node with exactly two children. Keys are two host-order 64-bit
 * words so that prefix comparison is an XOR and a count of leading zeros.
 * Tree depth is bounded by the address length (cidr strictly grows). */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "allowedips.h"

/* Fields read by lookup come first, within 48 bytes. */
struct wg_allowedips_node {
	uint64_t key[2];
	struct wg_allowedips_node *bit[2];
	struct wg_allowedips_owner *owner; /* NULL for a branch node */
	uint8_t cidr;
	uint8_t family;				/* AF_INET or AF_INET6 */
	struct wg_allowedips_node *next, *prev; /* owner's circular list */
};

struct wg_allowedips {
	struct wg_allowedips_node *root4, *root6;
};

enum {
	MAX_DEPTH = 130, /* 129 possible cidrs plus the root slot */
};

static uint64_t load_be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void store_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

/* Returns the address length in bits, or 0 for an unknown family. */
static unsigned int family_bits(int family)
{
	return family == AF_INET ? 32 : family == AF_INET6 ? 128 : 0;
}

static void load_key(uint64_t key[2], int family, const void *addr)
{
	const uint8_t *p = addr;

	if (family == AF_INET) {
		key[0] = (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
			 (uint64_t)p[3] << 32;
		key[1] = 0;
	} else {
		key[0] = load_be64(p);
		key[1] = load_be64(p + 8);
	}
}

static void mask_key(uint64_t key[2], unsigned int cidr)
{
	if (cidr == 0) {
		key[0] = key[1] = 0;
	} else if (cidr < 64) {
		key[0] &= ~0ULL << (64 - cidr);
		key[1] = 0;
	} else if (cidr == 64) {
		key[1] = 0;
	} else if (cidr < 128) {
		key[1] &= ~0ULL << (128 - cidr);
	}
}

static unsigned int bit_at(const uint64_t key[2], unsigned int i)
{
	return (unsigned int)(key[i >> 6] >> (63 - (i & 63))) & 1;
}

/* Length of the common prefix of a and b, capped at limit. */
static unsigned int common_bits(const uint64_t a[2], const uint64_t b[2], unsigned int limit)
{
	uint64_t x = a[0] ^ b[0];
	unsigned int n;

	if (x)
		n = (unsigned int)__builtin_clzll(x);
	else if ((x = a[1] ^ b[1]))
		n = 64 + (unsigned int)__builtin_clzll(x);
	else
		n = 128;
	return n < limit ? n : limit;
}

static struct wg_allowedips_node **root_of(struct wg_allowedips *t, int family)
{
	return family == AF_INET ? &t->root4 : &t->root6;
}

static void owner_append(struct wg_allowedips_owner *o, struct wg_allowedips_node *n)
{
	struct wg_allowedips_node *head = o->head;

	n->owner = o;
	if (!head) {
		n->next = n->prev = n;
		o->head = n;
	} else {
		n->prev = head->prev;
		n->next = head;
		head->prev->next = n;
		head->prev = n;
	}
	o->count++;
}

static void owner_unlink(struct wg_allowedips_node *n)
{
	struct wg_allowedips_owner *o = n->owner;

	if (n->next == n) {
		o->head = NULL;
	} else {
		n->prev->next = n->next;
		n->next->prev = n->prev;
		if (o->head == n)
			o->head = n->next;
	}
	n->next = n->prev = NULL;
	n->owner = NULL;
	o->count--;
}

static struct wg_allowedips_node *node_new(const uint64_t key[2], unsigned int cidr, int family)
{
	struct wg_allowedips_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->key[0] = key[0];
	n->key[1] = key[1];
	mask_key(n->key, cidr);
	n->cidr = (uint8_t)cidr;
	n->family = (uint8_t)family;
	return n;
}

struct wg_allowedips *wg_allowedips_new(void)
{
	return calloc(1, sizeof(struct wg_allowedips));
}

static void free_trie(struct wg_allowedips_node *root)
{
	struct wg_allowedips_node *stack[2 * MAX_DEPTH], *n;
	size_t sp = 0;

	if (root)
		stack[sp++] = root;
	while (sp) {
		n = stack[--sp];
		if (n->bit[0])
			stack[sp++] = n->bit[0];
		if (n->bit[1])
			stack[sp++] = n->bit[1];
		if (n->owner) {
			n->owner->head = NULL;
			n->owner->count = 0;
		}
		free(n);
	}
}

void wg_allowedips_free(struct wg_allowedips *t)
{
	if (!t)
		return;
	free_trie(t->root4);
	free_trie(t->root6);
	free(t);
}

int wg_allowedips_insert(struct wg_allowedips *t, int family, const void *addr, uint8_t cidr,
			 struct wg_allowedips_owner *owner)
{
	struct wg_allowedips_node **slot, *n, *leaf, *branch;
	unsigned int bits = family_bits(family), c;
	uint64_t key[2];

	if (!t || !addr || !owner || !bits || cidr > bits)
		return -EINVAL;
	load_key(key, family, addr);
	mask_key(key, cidr);

	/* Descend while the node's prefix covers the new one. */
	slot = root_of(t, family);
	c = 0;
	while ((n = *slot)) {
		c = common_bits(n->key, key, n->cidr < cidr ? n->cidr : cidr);
		if (c < n->cidr)
			break;
		if (n->cidr == cidr) {
			/* exact prefix: it goes to the end of owner's list,
			 * even when owner had it already (the Linux module's
			 * list_move_tail, and wireguard-go's order) */
			if (n->owner)
				owner_unlink(n);
			owner_append(owner, n);
			return 0;
		}
		slot = &n->bit[bit_at(key, n->cidr)];
	}

	leaf = node_new(key, cidr, family);
	if (!leaf)
		return -ENOMEM;
	if (n && c < cidr) {
		/* Diverge at bit c: a branch node holds both. */
		branch = node_new(key, c, family);
		if (!branch) {
			free(leaf);
			return -ENOMEM;
		}
		branch->bit[bit_at(key, c)] = leaf;
		branch->bit[bit_at(n->key, c)] = n;
		*slot = branch;
	} else {
		/* Empty slot, or the new prefix sits above n. */
		if (n)
			leaf->bit[bit_at(n->key, cidr)] = n;
		*slot = leaf;
	}
	owner_append(owner, leaf);
	return 0;
}

/* Finds the node with exactly this masked key and cidr; fills path with the
 * slots from the root down to it and returns its depth, or -1. */
static int find_exact(struct wg_allowedips *t, int family, const uint64_t key[2], unsigned int cidr,
		      struct wg_allowedips_node **path[MAX_DEPTH])
{
	struct wg_allowedips_node **slot = root_of(t, family), *n;
	int d = 0;

	while ((n = *slot)) {
		if (n->cidr > cidr || common_bits(n->key, key, n->cidr) < n->cidr)
			return -1;
		path[d] = slot;
		if (n->cidr == cidr)
			return d;
		slot = &n->bit[bit_at(key, n->cidr)];
		d++;
	}
	return -1;
}

/* Drops the owner of the node at path[d] and removes nodes that no longer
 * route or branch. */
static void remove_at(struct wg_allowedips_node **path[MAX_DEPTH], int d)
{
	struct wg_allowedips_node *n = *path[d], *child, *parent;

	owner_unlink(n);
	if (n->bit[0] && n->bit[1])
		return; /* still needed as a branch */
	child = n->bit[0] ? n->bit[0] : n->bit[1];
	*path[d] = child;
	free(n);
	if (child || d == 0)
		return;
	/* n was a leaf: a branch-only parent now has one child; splice it. */
	parent = *path[d - 1];
	if (parent->owner)
		return;
	*path[d - 1] = parent->bit[0] ? parent->bit[0] : parent->bit[1];
	free(parent);
}

int wg_allowedips_remove(struct wg_allowedips *t, int family, const void *addr, uint8_t cidr,
			 struct wg_allowedips_owner *owner)
{
	struct wg_allowedips_node **path[MAX_DEPTH];
	unsigned int bits = family_bits(family);
	uint64_t key[2];
	int d;

	if (!t || !addr || !owner || !bits || cidr > bits)
		return -ENOENT;
	load_key(key, family, addr);
	mask_key(key, cidr);
	d = find_exact(t, family, key, cidr, path);
	if (d < 0 || (*path[d])->owner != owner)
		return -ENOENT;
	remove_at(path, d);
	return 0;
}

void wg_allowedips_remove_by_owner(struct wg_allowedips *t, struct wg_allowedips_owner *owner)
{
	struct wg_allowedips_node **path[MAX_DEPTH], *n;
	int d;

	if (!t || !owner)
		return;
	while ((n = owner->head)) {
		d = find_exact(t, n->family, n->key, n->cidr, path);
		if (d < 0 || *path[d] != n) /* cannot happen: owner not in t */
			abort();
		remove_at(path, d);
	}
}

struct wg_allowedips_owner *wg_allowedips_lookup(const struct wg_allowedips *t, int family,
						 const void *addr)
{
	const struct wg_allowedips_node *n;
	struct wg_allowedips_owner *best = NULL;
	uint64_t key[2];

	if (!t || !addr || !family_bits(family))
		return NULL;
	load_key(key, family, addr);
	n = family == AF_INET ? t->root4 : t->root6;
	while (n) {
		if (common_bits(n->key, key, n->cidr) < n->cidr)
			break;
		if (n->owner)
			best = n->owner;
		if (n->cidr >= 128)
			break;
		n = n->bit[bit_at(key, n->cidr)];
	}
	return best;
}

void wg_allowedips_foreach(const struct wg_allowedips_owner *owner,
			   bool (*fn)(void *ctx, int family, const void *addr, uint8_t cidr),
			   void *ctx)
{
	const struct wg_allowedips_node *n, *head;
	uint8_t addr[16];

	if (!owner || !(head = owner->head))
		return;
	n = head;
	do {
		store_be64(addr, n->key[0]);
		store_be64(addr + 8, n->key[1]);
		if (!fn(ctx, n->family, addr, n->cidr))
			return;
		n = n->next;
	} while (n != head);
}
