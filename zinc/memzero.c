// SPDX-License-Identifier: MIT
/* Secret hygiene: a wipe the optimiser must keep, and a constant-time compare. */
#include <stdint.h>
#include <string.h>

#include <zinc/memzero.h>

void zinc_memzero(void *p, size_t len)
{
	if (!len)
		return;
	memset(p, 0, len);
	/* The asm claims to read p's memory, so the stores above are not dead. */
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

bool zinc_memeq(const void *a, const void *b, size_t len)
{
	const volatile uint8_t *x = a;
	const volatile uint8_t *y = b;
	uint32_t acc = 0;

	for (size_t i = 0; i < len; i++)
		acc |= (uint32_t)(x[i] ^ y[i]);
	/* Fold to one bit without a data-dependent branch. */
	return (bool)(1 & ((acc - 1) >> 8));
}
