/* A bounded queue of incoming handshake messages, so a flood costs the
 * data path nothing and the engine sees the load to demand cookies. */
#ifndef ZT_HSQUEUE_H
#define ZT_HSQUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wg/wg.h"

struct hsq_item {
	struct wg_endpoint from;
	uint16_t len;
	uint8_t data[WG_HANDSHAKE_MAX_LEN];
};

/* lock guards items, head, count and closed; a leaf lock, never taken
 * with the engine lock held (see doc/datapath.md, "Concurrency"). */
struct hsqueue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct hsq_item *items;
	size_t head, count;
	bool closed;
};

int hsq_init(struct hsqueue *q);
void hsq_destroy(struct hsqueue *q);
/* False when full (the message is dropped) or too long. */
bool hsq_push(struct hsqueue *q, const struct wg_endpoint *from, const uint8_t *msg, size_t len);
/* Blocks until items exist or the queue is closed; moves up to max items
 * into out. Returns the count (0: closed) and the remaining depth. */
size_t hsq_pop(struct hsqueue *q, struct hsq_item *out, size_t max, size_t *remaining);
size_t hsq_len(struct hsqueue *q);
void hsq_close(struct hsqueue *q);

#endif
