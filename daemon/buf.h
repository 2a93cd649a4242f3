/* A growable byte buffer with a size cap (UAPI client I/O, "get" output). */
#ifndef ZT_BUF_H
#define ZT_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct buf {
	char *data;
	size_t len, cap, max;
	bool overflow; /* an append hit max; the buffer content is incomplete */
};

void buf_init(struct buf *b, size_t max);
void buf_free(struct buf *b);
bool buf_append(struct buf *b, const void *data, size_t len);
bool buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Drops the first n bytes. */
void buf_consume(struct buf *b, size_t n);
/* Sends b from *off on, as far as the non-blocking socket fd takes it
 * (*off advances). False on an error but EAGAIN/EINTR: drop the client. */
bool buf_send(const struct buf *b, int fd, size_t *off);

#endif
