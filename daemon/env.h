/* Switches read from the daemon's environment (ZINCTUN_*). */
#ifndef ZT_ENV_H
#define ZT_ENV_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Whether NAME is given at all: set and not empty. */
static inline bool env_given(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

/* NAME=1 (any value but "0") turns a switch on; "0", empty or unset: off. */
static inline bool env_on(const char *name)
{
	return env_given(name) && strcmp(getenv(name), "0") != 0;
}

#endif
