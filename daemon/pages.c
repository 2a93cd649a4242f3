#include "pages.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Under AddressSanitizer from its heap instead, whose red zones catch an
 * overrun of these buffers (RSS means nothing there anyway). */
#if defined(__SANITIZE_ADDRESS__)
#define ZT_PAGES_FROM_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZT_PAGES_FROM_HEAP 1
#endif
#endif

void *zt_pages_alloc(size_t len)
{
#ifdef ZT_PAGES_FROM_HEAP
	return calloc(1, len);
#else
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
#endif
}

void zt_pages_free(void *p, size_t len)
{
#ifdef ZT_PAGES_FROM_HEAP
	(void)len;
	free(p);
#else
	if (p)
		munmap(p, len);
#endif
}
