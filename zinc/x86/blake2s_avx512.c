// SPDX-License-Identifier: MIT
/* BLAKE2s compression, AVX-512VL (vprord rotates). */
#if defined(__x86_64__)
#include <immintrin.h>

#define B2_TARGET __attribute__((target("avx512f,avx512vl")))
#define B2_NAME zinc_blake2s_compress_avx512
#define B2_FINAL_NAME zinc_blake2s_compress_final_avx512
#define B2_ROT(x, n) _mm_ror_epi32(x, n)

#include "blake2s_simd.h"
#endif
