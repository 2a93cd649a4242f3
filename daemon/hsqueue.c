#include "hsqueue.h"

#include <errno.h>
#include <string.h>

#include "pages.h"

int hsq_init(struct hsqueue *q)
{
	memset(q, 0, sizeof(*q));
	/* ~800 KiB that a flood fills, nothing else: untouched until then */
	q->items = zt_pages_alloc(WG_MAX_QUEUED_INCOMING_HANDSHAKES * sizeof(*q->items));
	if (!q->items)
		return -ENOMEM;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	return 0;
}

void hsq_destroy(struct hsqueue *q)
{
	if (!q->items)
		return;
	zt_pages_free(q->items, WG_MAX_QUEUED_INCOMING_HANDSHAKES * sizeof(*q->items));
	q->items = NULL;
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
}

bool hsq_push(struct hsqueue *q, const struct wg_endpoint *from, const uint8_t *msg, size_t len)
{
	struct hsq_item *it;
	bool ok = false;

	if (len > WG_HANDSHAKE_MAX_LEN)
		return false;
	pthread_mutex_lock(&q->lock);
	if (q->count < WG_MAX_QUEUED_INCOMING_HANDSHAKES && !q->closed) {
		it = &q->items[(q->head + q->count) % WG_MAX_QUEUED_INCOMING_HANDSHAKES];
		it->from = *from;
		it->len = (uint16_t)len;
		memcpy(it->data, msg, len);
		q->count++;
		ok = true;
		pthread_cond_signal(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	return ok;
}

bool hsq_pop(struct hsqueue *q, struct hsq_item *out, size_t max, size_t *n, size_t *remaining)
{
	bool open;

	*n = 0;
	pthread_mutex_lock(&q->lock);
	while (!q->count && !q->kicked && !q->closed)
		pthread_cond_wait(&q->cond, &q->lock);
	q->kicked = false;
	while (*n < max && q->count && !q->closed) {
		out[(*n)++] = q->items[q->head];
		q->head = (q->head + 1) % WG_MAX_QUEUED_INCOMING_HANDSHAKES;
		q->count--;
	}
	*remaining = q->count;
	open = !q->closed;
	pthread_mutex_unlock(&q->lock);
	return open;
}

void hsq_kick(struct hsqueue *q)
{
	pthread_mutex_lock(&q->lock);
	q->kicked = true;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

size_t hsq_len(struct hsqueue *q)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = q->count;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void hsq_close(struct hsqueue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}
