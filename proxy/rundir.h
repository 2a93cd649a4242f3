/* Where zinctun-proxy puts its configuration socket (see usage in main.c
 * and zinctun.8, FILES). */
#ifndef ZTP_RUNDIR_H
#define ZTP_RUNDIR_H

#include <stddef.h>

/* path (len bytes) = given, else a NAME.sock in a directory that only we
 * can use, made if needed. 0 or a negative errno. */
int rundir_socket_path(char *path, size_t len, const char *name, const char *given);

#endif
