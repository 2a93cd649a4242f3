// SPDX-License-Identifier: MIT
/* The arm64 entries zinc_impl() hands out at the "neon" path (cpu.c). */
#if defined(__aarch64__)
#include "../cpu.h"

void zinc_pick_arm64(struct zinc_impl *t, enum zinc_level level)
{
	if (level < ZINC_LEVEL_NEON)
		return;
	t->chacha20 = zinc_chacha20_neon;
	t->aead_seal = zinc_aead_seal_neon;
	t->aead_open = zinc_aead_open_neon;
	t->poly1305_blocks = zinc_poly1305_blocks_arm64;
	t->chacha20_name = t->aead_name = "neon";
	t->poly1305_name = "arm64";
	t->x25519 = zinc_x25519_arm64;
	t->x25519_name = "arm64";
}
#endif
