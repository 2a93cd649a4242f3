/* Little-endian wire integers, an all-zero test and container_of. Internal. */
#ifndef WG_BYTES_H
#define WG_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline uint32_t wg_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void wg_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
static inline uint64_t wg_le64(const uint8_t *p)
{
	return (uint64_t)wg_le32(p) | (uint64_t)wg_le32(p + 4) << 32;
}
static inline void wg_put_le64(uint8_t *p, uint64_t v)
{
	wg_put_le32(p, (uint32_t)v);
	wg_put_le32(p + 4, (uint32_t)(v >> 32));
}

/* All n bytes zero, without an exit that depends on them (keys are secret). */
static inline bool wg_is_zero(const uint8_t *p, size_t n)
{
	const volatile uint8_t *v = p;
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= v[i];
	return acc == 0;
}

#define wg_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#endif
