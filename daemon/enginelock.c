/* The lock checks of debug and sanitizer builds (enginelock.h). */
#include "enginelock.h"

#ifdef ZT_LOCK_CHECKS
#include <stdio.h>
#include <stdlib.h>

enum { HELD_MAX = 4 }; /* locks one thread holds at once: engine, udp */

static _Thread_local const pthread_mutex_t *held[HELD_MAX];

void zt_lock_note(const pthread_mutex_t *m, bool taken)
{
	for (int i = 0; i < HELD_MAX; i++) {
		if (held[i] == (taken ? NULL : m)) {
			held[i] = taken ? m : NULL;
			return;
		}
	}
	fprintf(stderr, "zinctun: lock checks: %p not tracked\n", (const void *)m);
	abort();
}

void zt_lock_check(const pthread_mutex_t *m, const char *lock, const char *where)
{
	for (int i = 0; i < HELD_MAX; i++)
		if (held[i] == m)
			return;
	fprintf(stderr, "zinctun: %s: %s is not held\n", where, lock);
	abort();
}
#endif

#ifndef ZT_LOCK_CHECKS
typedef int zt_enginelock_unused; /* an empty translation unit is not ISO C */
#endif
