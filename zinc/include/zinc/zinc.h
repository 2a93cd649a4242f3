/* Zinc: a library of crypto primitives, not a framework. */
#ifndef ZINC_ZINC_H
#define ZINC_ZINC_H

#include <zinc/blake2s.h>
#include <zinc/chacha20.h>
#include <zinc/chacha20poly1305.h>
#include <zinc/curve25519.h>
#include <zinc/memzero.h>
#include <zinc/poly1305.h>
#include <zinc/random.h>

#endif
