/* Which implementation Zinc uses. Zinc probes the CPU once, on first use;
 * unless zinc_impl_select() asked for a path before, each primitive then
 * times the paths this CPU has (about a millisecond in all) and keeps the
 * fastest, the one the CPU flags suggest unless another is clearly faster.
 * Each accelerated entry runs known answers first and is replaced by the
 * portable code if it fails. The library reads no environment:
 * a program that wants a switch (zinctun's ZINC_IMPL) passes its value. */
#ifndef ZINC_IMPL_H
#define ZINC_IMPL_H

#include <stdbool.h>

/* Asks for a path by name: "generic", "ssse3", "avx2" or "avx512"; "auto",
 * "" or NULL for the best this CPU has. A path the CPU lacks falls back to
 * the best it has (zinc_impl_describe() says so). Call it before any other
 * Zinc function, from one thread: the choice is made at the first use.
 * Returns 0, -EINVAL for an unknown name, -EBUSY once the choice is made. */
int zinc_impl_select(const char *name);
/* Whether zinc_impl_select() takes name (NULL: no). */
bool zinc_impl_name_known(const char *name);

/* One line, e.g. "path=avx2 chacha20=avx2 aead=avx2 blake2s=avx2
 * x25519=bmi2-adx selftest=ok choice=measured"; "selftest=FAILED" names a
 * rejected path, "choice=forced" a path asked for by name. */
const char *zinc_impl_describe(void);
/* Why: each primitive's timed paths with their cost in timer ticks (TSC
 * cycles on x86-64) and the one kept, e.g. "blake2s: generic 1020 x86_64
 * 1130 -> generic; ...", or "forced by name (ZINC_IMPL=avx2)". */
const char *zinc_impl_choice(void);
/* Number of accelerated entries the start-up self-test rejected. */
unsigned zinc_impl_selftest_failures(void);
/* The path names this CPU can run, e.g. "generic ssse3 avx2 avx512". */
const char *zinc_impl_available(void);

#endif
