/* Secret hygiene helpers. */
#ifndef ZINC_MEMZERO_H
#define ZINC_MEMZERO_H

#include <stdbool.h>
#include <stddef.h>

/* Wipes len bytes; the compiler cannot elide it. */
void zinc_memzero(void *p, size_t len);
/* Constant-time equality of two buffers of len bytes. */
bool zinc_memeq(const void *a, const void *b, size_t len);

#endif
