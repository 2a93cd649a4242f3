/* Which implementation Zinc chose, for logs and tests. Zinc probes the CPU
 * once, on first use; ZINC_IMPL=generic|ssse3|avx2|avx512 in the environment
 * forces a path (unset or "auto": the best the CPU has). Each accelerated
 * entry runs known answers first and is replaced by the portable code if it
 * fails. */
#ifndef ZINC_IMPL_H
#define ZINC_IMPL_H

/* One line, e.g. "path=avx2 chacha20=avx2 aead=avx2 blake2s=avx
 * x25519=bmi2-adx selftest=ok"; "selftest=FAILED" names a rejected path. */
const char *zinc_impl_describe(void);
/* Number of accelerated entries the start-up self-test rejected. */
unsigned zinc_impl_selftest_failures(void);
/* The ZINC_IMPL values this CPU can run, e.g. "generic ssse3 avx2 avx512". */
const char *zinc_impl_available(void);

#endif
