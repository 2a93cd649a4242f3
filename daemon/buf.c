#include "buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

void buf_init(struct buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

void buf_free(struct buf *b)
{
	if (b->data)
		/* may hold key material (a set request, get output) */
		explicit_bzero(b->data, b->cap);
	free(b->data);
	buf_init(b, b->max);
}

static bool reserve(struct buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > b->max - b->len) {
		b->overflow = true;
		return false;
	}
	need = b->len + extra;
	if (need <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	if (cap > b->max)
		cap = b->max;
	p = malloc(cap);
	if (!p) {
		b->overflow = true;
		return false;
	}
	/* copy instead of realloc so old copies of secrets can be wiped */
	if (b->data) {
		memcpy(p, b->data, b->len);
		explicit_bzero(b->data, b->cap);
		free(b->data);
	}
	b->data = p;
	b->cap = cap;
	return true;
}

bool buf_append(struct buf *b, const void *data, size_t len)
{
	if (!reserve(b, len))
		return false;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return true;
}

bool buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		b->overflow = true;
		return false;
	}
	bool ok = buf_append(b, tmp, (size_t)n);

	explicit_bzero(tmp, sizeof(tmp));
	return ok;
}

void buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

bool buf_send(const struct buf *b, int fd, size_t *off)
{
	while (*off < b->len) {
		ssize_t n = send(fd, b->data + *off, b->len - *off, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		*off += (size_t)n;
	}
	return true;
}
