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

/* lock guards items, head, count, kicked and closed; a leaf lock, taken
 * alone or (hsq_kick only) under the engine lock (see doc/datapath.md,
 * "Concurrency"). */
struct hsqueue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct hsq_item *items;
	size_t head, count;
	bool kicked; /* hsq_pop returns even without items: initiations wait */
	bool closed;
};

int hsq_init(struct hsqueue *q);
void hsq_destroy(struct hsqueue *q);
/* False when full (the message is dropped) or too long. */
bool hsq_push(struct hsqueue *q, const struct wg_endpoint *from, const uint8_t *msg, size_t len);
/* Blocks until items exist, a kick or the queue is closed; moves up to max
 * items into out (*n of them, maybe 0 after a kick) and tells the
 * remaining depth. False once closed. */
bool hsq_pop(struct hsqueue *q, struct hsq_item *out, size_t max, size_t *n, size_t *remaining);
/* Wakes hsq_pop once: the engine has initiations for the handshake thread. */
void hsq_kick(struct hsqueue *q);
size_t hsq_len(struct hsqueue *q);
void hsq_close(struct hsqueue *q);

#endif
