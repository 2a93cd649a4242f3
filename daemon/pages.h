/* Zeroed memory from the kernel for big, mostly unused buffers: a page
 * counts in RSS only once written (calloc may clear, so touch, it). */
#ifndef ZT_PAGES_H
#define ZT_PAGES_H

#include <stddef.h>

/* NULL on failure. */
void *zt_pages_alloc(size_t len);
/* p from zt_pages_alloc(len) (the same len), or NULL. */
void zt_pages_free(void *p, size_t len);

#endif
