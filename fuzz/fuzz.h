/* What every fuzz target shares. */
#ifndef ZT_FUZZ_H
#define ZT_FUZZ_H

#include <errno.h> /* program_invocation_short_name (_GNU_SOURCE) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* A property of the code under test that must hold: when it does not, say
 * which and abort, so that libFuzzer keeps the input that broke it. */
static inline void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s: %s\n", program_invocation_short_name, what);
		abort();
	}
}

#endif
