/* Destinations whose path MTU is below a GSO segment size (gso_path.h). */
#include "gso_path.h"

#include <string.h>

static bool dest_key_of(const struct wg_endpoint *to, struct gso_dest *k)
{
	memset(k, 0, sizeof(*k));
	k->family = to->addr.sa.sa_family;
	if (k->family == AF_INET) {
		memcpy(k->addr, &to->addr.in4.sin_addr, sizeof(to->addr.in4.sin_addr));
		k->port = to->addr.in4.sin_port;
	} else if (k->family == AF_INET6) {
		memcpy(k->addr, &to->addr.in6.sin6_addr, sizeof(to->addr.in6.sin6_addr));
		k->port = to->addr.in6.sin6_port;
	} else {
		return false;
	}
	return true;
}

/* FNV-1a: endpoints are not attacker-chosen in bulk, and a collision only
 * costs one more refused GSO send. */
static size_t slot_of(const struct gso_dest *k)
{
	const uint8_t *b = (const uint8_t *)k;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ b[i]) * 16777619u;
	return h % GSO_PATH_SLOTS;
}

/* Keys are zero-filled (dest_key_of) and have no padding. */
static bool same_dest(const struct gso_path_entry *e, const struct gso_dest *k)
{
	return !memcmp(&e->dest, k, sizeof(*k));
}

void gso_paths_init(struct gso_paths *p)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
}

void gso_paths_destroy(struct gso_paths *p)
{
	pthread_mutex_destroy(&p->lock);
}

bool gso_path_allows(struct gso_paths *p, const struct wg_endpoint *to, size_t seg, uint64_t now_ns)
{
	struct gso_path_entry *e;
	struct gso_dest k;
	bool allowed = true;

	if (!atomic_load_explicit(&p->used, memory_order_relaxed) || !dest_key_of(to, &k))
		return true;
	pthread_mutex_lock(&p->lock);
	e = &p->slot[slot_of(&k)];
	if (e->refused_seg && same_dest(e, &k)) {
		if (now_ns < e->retry_at_ns) {
			allowed = seg < e->refused_seg;
		} else { /* try GSO once more */
			memset(e, 0, sizeof(*e));
			atomic_fetch_sub_explicit(&p->used, 1, memory_order_relaxed);
		}
	}
	pthread_mutex_unlock(&p->lock);
	return allowed;
}

bool gso_path_refused(struct gso_paths *p, const struct wg_endpoint *to, size_t seg,
		      uint64_t now_ns)
{
	struct gso_path_entry *e;
	struct gso_dest k;

	if (!dest_key_of(to, &k))
		return false;
	pthread_mutex_lock(&p->lock);
	e = &p->slot[slot_of(&k)];
	if (!e->refused_seg)
		atomic_fetch_add_explicit(&p->used, 1, memory_order_relaxed);
	if (!e->refused_seg || !same_dest(e, &k) || seg < e->refused_seg)
		e->refused_seg = seg;
	e->dest = k;
	e->retry_at_ns = now_ns + GSO_PATH_RETRY_NS;
	pthread_mutex_unlock(&p->lock);
	return atomic_fetch_add_explicit(&p->refusals, 1, memory_order_relaxed) == 0;
}
