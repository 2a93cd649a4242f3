/* Allowed IPs: a longest-prefix-match table from IPv4/IPv6 prefixes to
 * owners (peers), plus each owner's prefixes in insertion order. Not locked:
 * the caller serialises writers against readers. */
#ifndef WG_ALLOWEDIPS_H
#define WG_ALLOWEDIPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wg_allowedips_node; /* private */

/* Embedded in a peer; zero-initialise it. head is the owner's first prefix
 * (a circular list), count the number of prefixes it owns. */
struct wg_allowedips_owner {
	struct wg_allowedips_node *head;
	size_t count;
};

struct wg_allowedips; /* private */

struct wg_allowedips *wg_allowedips_new(void);
/* Frees every node; owners still pointing into the table are reset to empty. */
void wg_allowedips_free(struct wg_allowedips *t);

/* family AF_INET (addr 4 bytes) or AF_INET6 (16 bytes), in network order;
 * cidr <= 32/128 else -EINVAL. Host bits are masked off. If the prefix exists
 * it moves to owner and to the end of owner's list (also when owner had it
 * already). Returns 0, -EINVAL or -ENOMEM. */
int wg_allowedips_insert(struct wg_allowedips *t, int family, const void *addr, uint8_t cidr,
			 struct wg_allowedips_owner *owner);

/* Removes the prefix (host bits masked) only if owned by owner: 0, or
 * -ENOENT (also for a bad family or cidr). */
int wg_allowedips_remove(struct wg_allowedips *t, int family, const void *addr, uint8_t cidr,
			 struct wg_allowedips_owner *owner);

void wg_allowedips_remove_by_owner(struct wg_allowedips *t, struct wg_allowedips_owner *owner);

/* Longest prefix match; NULL if none. No allocation, O(address bits). */
struct wg_allowedips_owner *wg_allowedips_lookup(const struct wg_allowedips *t, int family,
						 const void *addr);

/* Calls fn for each prefix of owner in insertion order (addr in network
 * order, masked); stops when fn returns false. fn must not modify the table. */
void wg_allowedips_foreach(const struct wg_allowedips_owner *owner,
			   bool (*fn)(void *ctx, int family, const void *addr, uint8_t cidr),
			   void *ctx);

#endif
