// SPDX-License-Identifier: MIT
/* CPU feature probe, the path a caller selects by name and the one table
 * every dispatching primitive reads; the known answers it runs first are in
 * selftest.c. See cpu.h. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zinc/impl.h>
#include "cpu.h"
#include "measure.h"
#include "selftest.h"

#if defined(__aarch64__)
#include <sys/auxv.h>
static const char *const level_names[ZINC_LEVEL_COUNT] = {"generic", "neon"};
#else
static const char *const level_names[ZINC_LEVEL_COUNT] = {"generic", "ssse3", "avx2", "avx512"};
#endif

struct cpu_features {
	bool ssse3, avx2, avx512, avx512_ifma, bmi2_adx, neon;
};

#if defined(__x86_64__)
static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ __volatile__("cpuid"
			     : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			     : "a"(leaf), "c"(sub));
}

/* The OS must save the wider registers too (XCR0), not just the CPU have them. */
static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static void probe(struct cpu_features *f)
{
	uint32_t r[4], max;
	uint64_t xcr0 = 0;
	bool ymm_os = false, zmm_os = false;

	memset(f, 0, sizeof(*f));
	cpuid(0, 0, r);
	max = r[0];
	if (max < 1)
		return;
	cpuid(1, 0, r);
	f->ssse3 = r[2] & (1u << 9);
	if ((r[2] & (1u << 27)) && (r[2] & (1u << 28))) { /* OSXSAVE and AVX */
		xcr0 = xgetbv0();
		ymm_os = (xcr0 & 0x6) == 0x6;
		zmm_os = ymm_os && (xcr0 & 0xe0) == 0xe0;
	}
	if (max < 7)
		return;
	cpuid(7, 0, r);
	f->bmi2_adx = (r[1] & (1u << 8)) && (r[1] & (1u << 19));
	f->avx2 = ymm_os && (r[1] & (1u << 5));
	/* AVX-512 F, VL (the 128/256-bit forms of vprold) and BW (byte masks
	 * for ChaCha20 tails); every CPU with VL has BW. */
	f->avx512 =
	    f->avx2 && zmm_os && (r[1] & (1u << 16)) && (r[1] & (1u << 30)) && (r[1] & (1u << 31));
	f->avx512_ifma = f->avx512 && (r[1] & (1u << 21));
}
#else
static void probe(struct cpu_features *f)
{
	memset(f, 0, sizeof(*f));
#if defined(__aarch64__)
	f->neon = getauxval(AT_HWCAP) & (1u << 1); /* HWCAP_ASIMD */
#endif
}
#endif

static enum zinc_level best_level(const struct cpu_features *f)
{
#if defined(__aarch64__)
	return f->neon ? ZINC_LEVEL_NEON : ZINC_LEVEL_GENERIC;
#else
	if (f->avx512)
		return ZINC_LEVEL_AVX512;
	if (f->avx2)
		return ZINC_LEVEL_AVX2;
	if (f->ssse3)
		return ZINC_LEVEL_SSSE3;
	return ZINC_LEVEL_GENERIC;
#endif
}

/* ---- table ----------------------------------------------------------- */

static struct zinc_impl table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static char describe_buf[384];
static char choice_buf[640];
static char available_buf[64];

static void set_generic(struct zinc_impl *t)
{
	t->chacha20 = zinc_chacha20_generic;
	t->aead_seal = zinc_aead_seal_generic;
	t->aead_open = zinc_aead_open_generic;
	t->blake2s_compress = zinc_blake2s_compress_generic;
	t->blake2s_final = zinc_blake2s_compress_final_generic;
	t->x25519 = zinc_x25519_generic;
	t->x25519_base = zinc_x25519_base_generic;
	t->x25519_x8 = NULL;
	t->x25519_batch_name = "loop";
	t->poly1305_blocks = zinc_poly1305_blocks_generic;
	t->chacha20_name = t->aead_name = t->blake2s_name = t->x25519_name = "generic";
	t->poly1305_name = t->x25519_base_name = "generic";
}

/* The path zinc_impl_select() asked for; -1: the best the CPU has. */
static int requested = -1;
static atomic_bool chosen;

static int level_by_name(const char *name)
{
	for (int l = 0; l < ZINC_LEVEL_COUNT; l++)
		if (!strcmp(name, level_names[l]))
			return l;
	return -1;
}

/* The other architecture's path names are known too: asked for here, they
 * fall back like a path this CPU lacks (one configuration for both). */
static bool foreign_name(const char *name)
{
#if defined(__aarch64__)
	return !strcmp(name, "ssse3") || !strcmp(name, "avx2") || !strcmp(name, "avx512");
#else
	return !strcmp(name, "neon");
#endif
}

bool zinc_impl_name_known(const char *name)
{
	return name &&
	       (!*name || !strcmp(name, "auto") || level_by_name(name) >= 0 || foreign_name(name));
}

int zinc_impl_select(const char *name)
{
	if (!zinc_impl_name_known(name ? name : ""))
		return -EINVAL;
	if (atomic_load(&chosen))
		return -EBUSY;
	requested = name ? level_by_name(name) : -1;
	if (name && foreign_name(name))
		requested = ZINC_LEVEL_COUNT;
	return 0;
}

static enum zinc_level requested_level(enum zinc_level best, const char **note)
{
	*note = "";
	if (requested < 0)
		return best;
	if ((enum zinc_level)requested > best) {
		*note = " (asked for more than this CPU has)";
		return best;
	}
	return (enum zinc_level)requested;
}

#if defined(__x86_64__)
static void pick_x86(struct zinc_impl *t, enum zinc_level level, const struct cpu_features *f)
{
	if (level >= ZINC_LEVEL_SSSE3) {
		t->chacha20 = zinc_chacha20_ssse3;
		t->aead_seal = zinc_aead_seal_ssse3;
		t->aead_open = zinc_aead_open_ssse3;
		t->blake2s_compress = zinc_blake2s_compress_x86_64;
		t->blake2s_final = zinc_blake2s_compress_final_x86_64;
		t->poly1305_blocks = zinc_poly1305_blocks_x86_64;
		t->chacha20_name = t->aead_name = "ssse3";
		t->poly1305_name = "x86_64";
		t->blake2s_name = "x86_64";
	}
	if (level >= ZINC_LEVEL_AVX2) {
		t->chacha20 = zinc_chacha20_avx2;
		t->aead_seal = zinc_aead_seal_avx2;
		t->aead_open = zinc_aead_open_avx2;
		t->poly1305_blocks = zinc_poly1305_blocks_avx2;
		t->blake2s_compress = zinc_blake2s_compress_avx;
		t->blake2s_final = zinc_blake2s_compress_final_avx;
		t->chacha20_name = t->aead_name = t->poly1305_name = t->blake2s_name = "avx2";
		if (f->bmi2_adx) {
			t->x25519 = zinc_x25519_bmi2_adx;
			t->x25519_name = "bmi2-adx";
			t->x25519_base = zinc_x25519_base_bmi2_adx;
			t->x25519_base_name = "bmi2-adx-comb";
		}
		t->x25519_x8 = zinc_x25519_x4_avx2;
		t->x25519_lanes = 4;
		t->x25519_batch_name = "avx2-x4";
	}
	if (level >= ZINC_LEVEL_AVX512) {
		t->chacha20 = zinc_chacha20_avx512;
		t->aead_seal = zinc_aead_seal_avx512;
		t->aead_open = zinc_aead_open_avx512;
		t->poly1305_blocks = zinc_poly1305_blocks_avx512;
		t->blake2s_compress = zinc_blake2s_compress_avx512;
		t->blake2s_final = zinc_blake2s_compress_final_avx512;
		t->chacha20_name = t->aead_name = t->poly1305_name = t->blake2s_name = "avx512";
		if (f->avx512_ifma) {
			t->aead_seal = zinc_aead_seal_avx512_ifma;
			t->aead_open = zinc_aead_open_avx512_ifma;
			t->poly1305_blocks = zinc_poly1305_blocks_ifma;
			t->aead_name = t->poly1305_name = "avx512-ifma";
			t->x25519_x8 = zinc_x25519_x8_ifma;
			t->x25519_lanes = 8;
			t->x25519_batch_name = "avx512-ifma-x8";
		}
	}
}
#endif

/* ZINC_SELFTEST_FAIL=1 proves the fallback to the portable code; test
 * builds only (libzinc-testhooks.a). */
static bool selftest_forced_to_fail(void)
{
#ifdef ZINC_TEST_HOOKS
	const char *ff = getenv("ZINC_SELFTEST_FAIL");

	return ff && !strcmp(ff, "1");
#else
	return false;
#endif
}

/* The table for level: the CPU-flag pick; unless a path was asked for,
 * each primitive then takes whichever self-tested path of the levels up to
 * it measures clearly fastest here (measure.h). */
static void choose(enum zinc_level level, const struct cpu_features *f, bool force_fail)
{
	struct zinc_impl cand[ZINC_LEVEL_COUNT] = {0};
	int lo = requested < 0 ? 0 : (int)level;

	for (int l = lo; l <= (int)level; l++) {
		set_generic(&cand[l]);
#if defined(__x86_64__)
		pick_x86(&cand[l], (enum zinc_level)l, f);
#elif defined(__aarch64__)
		(void)f;
		zinc_pick_arm64(&cand[l], (enum zinc_level)l);
#else
		(void)f;
#endif
		zinc_selftest(&cand[l], force_fail);
	}
	table = cand[level];
	if (requested >= 0) {
		snprintf(choice_buf, sizeof(choice_buf), "forced by name (ZINC_IMPL=%s)",
			 level_names[requested]);
		return;
	}
	snprintf(choice_buf, sizeof(choice_buf), "nothing to measure (one path)");
	zinc_measure(&table, cand, (size_t)level + 1, choice_buf, sizeof(choice_buf));
}

static void table_init(void)
{
	struct cpu_features f;
	enum zinc_level best, level;
	const char *note;
	size_t n = 0;

	atomic_store(&chosen, true);
	probe(&f);
	best = best_level(&f);
	level = requested_level(best, &note);
	choose(level, &f, selftest_forced_to_fail());
	for (int l = 0; l <= (int)best; l++)
		n += (size_t)snprintf(available_buf + n, sizeof(available_buf) - n, "%s%s",
				      l ? " " : "", level_names[l]);
	snprintf(describe_buf, sizeof(describe_buf),
		 "path=%s%s chacha20=%s aead=%s poly1305=%s blake2s=%s x25519=%s "
		 "x25519_base=%s x25519_batch=%s selftest=%s "
		 "choice=%s",
		 level_names[level], note, table.chacha20_name, table.aead_name,
		 table.poly1305_name, table.blake2s_name, table.x25519_name, table.x25519_base_name,
		 table.x25519_batch_name, table.selftest_failures ? "FAILED" : "ok",
		 requested < 0 ? "measured" : "forced");
}

const struct zinc_impl *zinc_impl(void)
{
	pthread_once(&table_once, table_init);
	return &table;
}

const char *zinc_impl_describe(void)
{
	zinc_impl();
	return describe_buf;
}

const char *zinc_impl_available(void)
{
	zinc_impl();
	return available_buf;
}

unsigned zinc_impl_selftest_failures(void)
{
	return zinc_impl()->selftest_failures;
}

const char *zinc_impl_choice(void)
{
	zinc_impl();
	return choice_buf;
}
