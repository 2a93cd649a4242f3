/* Destinations whose path MTU refused a UDP GSO send of a segment size
 * (the kernel refuses the whole instead of fragmenting): such runs go one
 * by one without a failing call per batch, retried after
 * GSO_PATH_RETRY_NS. Thread-safe; with none recorded, one relaxed load. */
#ifndef ZT_GSO_PATH_H
#define ZT_GSO_PATH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wg/wg.h"

enum {
	GSO_PATH_SLOTS = 64, /* direct-mapped by destination; a collision evicts */
};
#define GSO_PATH_RETRY_NS (30ULL * 1000000000ULL)

struct gso_dest {
	uint8_t addr[16]; /* IPv4 in the first 4 bytes */
	uint16_t family, port;
};

struct gso_path_entry {
	struct gso_dest dest;
	size_t refused_seg; /* 0: slot unused */
	uint64_t retry_at_ns;
};

struct gso_paths {
	pthread_mutex_t lock;
	atomic_uint used;	/* slots in use: 0 lets gso_path_allows skip the lock */
	atomic_ullong refusals; /* GSO sends the path refused */
	struct gso_path_entry slot[GSO_PATH_SLOTS];
};

void gso_paths_init(struct gso_paths *p);
void gso_paths_destroy(struct gso_paths *p);
/* True while no refusal is recorded (one relaxed load): every GSO send is
 * allowed, and the caller need not read the clock for gso_path_allows. */
static inline bool gso_paths_none(struct gso_paths *p)
{
	return !atomic_load_explicit(&p->used, memory_order_relaxed);
}
/* False when a GSO send of seg-byte segments to "to" was refused less than
 * GSO_PATH_RETRY_NS before now_ns. */
bool gso_path_allows(struct gso_paths *p, const struct wg_endpoint *to, size_t seg,
		     uint64_t now_ns);
/* Records that the path to "to" refused seg-byte segments; true the first
 * time this process records any refusal (the caller logs it once). */
bool gso_path_refused(struct gso_paths *p, const struct wg_endpoint *to, size_t seg,
		      uint64_t now_ns);

#endif
