/* Internal: the start-up known answers. Each accelerated entry of the
 * table is run on fixed inputs whose expected outputs were computed with
 * libsodium and OpenSSL; one that fails is replaced by its portable entry,
 * named "generic (self-test failed)" and counted in selftest_failures. */
#ifndef ZINC_SELFTEST_H
#define ZINC_SELFTEST_H

#include <stdbool.h>

#include "cpu.h"

/* force_fail: every accelerated entry fails (the fallback's test seam). */
void zinc_selftest(struct zinc_impl *t, bool force_fail);

#endif
