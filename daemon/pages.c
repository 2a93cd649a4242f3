#include "pages.h"

#include <sys/mman.h>

void *zt_pages_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void zt_pages_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}
