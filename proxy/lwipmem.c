/* lwIP's heap on malloc, within one budget (lwipmem.h). lwIP allocates
 * under its core lock, but its free may come from any thread that holds a
 * pbuf: the count is atomic. */
#include "lwipmem.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lwip/opt.h"

static size_t budget = (size_t)LWIPMEM_DEFAULT_MIB << 20;
static atomic_size_t used;

void lwipmem_set_budget(size_t bytes)
{
	if (bytes)
		budget = bytes;
}

size_t lwipmem_used(void)
{
	return atomic_load_explicit(&used, memory_order_relaxed);
}

void *lwipmem_malloc(size_t size)
{
	void *p;

	if (size > budget || lwipmem_used() > budget - size)
		return NULL;
	p = malloc(size);
	if (p)
		atomic_fetch_add_explicit(&used, malloc_usable_size(p), memory_order_relaxed);
	return p;
}

void *lwipmem_calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	p = lwipmem_malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void lwipmem_free(void *p)
{
	if (!p)
		return;
	atomic_fetch_sub_explicit(&used, malloc_usable_size(p), memory_order_relaxed);
	free(p);
}
