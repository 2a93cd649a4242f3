/* Zeroed memory straight from the kernel for the data path's big buffers
 * and tables, which are sized for the worst batch but mostly stay unused:
 * a page counts in the daemon's RSS only once written. (calloc may clear,
 * and so touch, memory it takes from its heap; malloc leaves no such
 * promise either.) */
#ifndef ZT_PAGES_H
#define ZT_PAGES_H

#include <stddef.h>

/* NULL on failure. */
void *zt_pages_alloc(size_t len);
/* p from zt_pages_alloc(len) (the same len), or NULL. */
void zt_pages_free(void *p, size_t len);

#endif
