// SPDX-License-Identifier: MIT
/* The measured choice of path (zinc/measure.h) with injected costs: the
 * default stays unless another path is clearly (the margin) cheaper, the
 * cheapest of several wins, extreme counts do not overflow. No timing is
 * asserted; the description says how the choice was made. */
#include <zinc/impl.h>

#include "test.h"
#include "../../zinc/measure.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check_pick(void)
{
	const uint64_t close[] = {100, 97, 100};      /* within the margin */
	const uint64_t clear[] = {80, 100};	      /* 20 % cheaper */
	const uint64_t at_bar[] = {94, 100};	      /* exactly the margin: kept */
	const uint64_t past_bar[] = {93, 100};	      /* just past it */
	const uint64_t several[] = {50, 40, 45, 100}; /* the cheapest wins */
	const uint64_t slower[] = {100, 200, 150};    /* default in the middle */
	const uint64_t huge[] = {UINT64_MAX / 2, UINT64_MAX};
	const uint64_t one[] = {7};
	const uint64_t zero[] = {0, 0};

	CHECK(zinc_measure_pick(close, N(close), 2) == 2);
	CHECK(zinc_measure_pick(close, N(close), 1) == 1);
	CHECK(zinc_measure_pick(clear, N(clear), 1) == 0);
	CHECK(zinc_measure_pick(clear, N(clear), 0) == 0);
	CHECK(zinc_measure_pick(at_bar, N(at_bar), 1) == 1);
	CHECK(zinc_measure_pick(past_bar, N(past_bar), 1) == 0);
	CHECK(zinc_measure_pick(several, N(several), 3) == 1);
	CHECK(zinc_measure_pick(slower, N(slower), 1) == 0);
	CHECK(zinc_measure_pick(slower, N(slower), 0) == 0);
	CHECK(zinc_measure_pick(huge, N(huge), 1) == 0);
	CHECK(zinc_measure_pick(huge, N(huge), 0) == 0);
	CHECK(zinc_measure_pick(one, N(one), 0) == 0);
	CHECK(zinc_measure_pick(zero, N(zero), 1) == 1);
	/* the BLAKE2s case this was built for: generic 5.08, asm 5.66 c/B */
	const uint64_t b2s[] = {508, 566};

	CHECK(zinc_measure_pick(b2s, N(b2s), 1) == 0);
}

/* Forced by name (this test runs under each ZINC_IMPL in
 * test_zinc_paths) or measured: the description and the reason agree;
 * with every accelerated entry failed there is one path, nothing timed. */
static void check_describe(void)
{
	const char *d = zinc_impl_describe(), *why = zinc_impl_choice();
	const char *env = getenv("ZINC_IMPL");
	bool forced = env && *env && strcmp(env, "auto");

	CHECK(strstr(d, forced ? " choice=forced" : " choice=measured") != NULL);
	CHECK(why && *why);
	if (forced)
		CHECK(strstr(why, "forced by name") != NULL);
	else if (strcmp(zinc_impl_available(), "generic") && !strstr(d, "selftest=FAILED"))
		CHECK(strstr(why, "x25519:") || strstr(why, "chacha20:"));
	printf("%s\n%s\n", d, why);
}

int main(void)
{
	check_pick();
	check_describe();
	return test_finish("test_zinc_measure");
}
