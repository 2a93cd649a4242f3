// SPDX-License-Identifier: MIT
/* ZINC_IMPL for the test programs, tools and benchmarks: libzinc reads no
 * environment, so every program linked with this object hands the
 * variable to zinc_impl_select() before main, as zinctun does with its
 * option (test_zinc_paths runs the tests on each path this way). */
#include <stdio.h>
#include <stdlib.h>

#include <zinc/impl.h>

__attribute__((constructor)) static void zinc_impl_from_env(void)
{
	const char *name = getenv("ZINC_IMPL");

	if (zinc_impl_select(name)) {
		fprintf(stderr,
			"ZINC_IMPL=%s is not a Zinc path (generic, ssse3, avx2, avx512, "
			"auto)\n",
			name);
		exit(2);
	}
}
