/* Where zinctun-proxy puts its configuration socket (see usage in main.c
 * and zinctun.8, FILES). */
#ifndef ZTP_RUNDIR_H
#define ZTP_RUNDIR_H

#include <stddef.h>

/* path (len bytes) = given, else NAME.sock in $XDG_RUNTIME_DIR/zinctun
 * (when XDG_RUNTIME_DIR is ours) or /tmp/zinctun-UID, made 0700 if needed.
 * When that directory exists but is not ours alone (another user made it
 * first, or it is a symlink), it is not used: the socket goes to a new
 * directory made by mkdtemp beside it (/tmp/zinctun-UID.XXXXXX), and a
 * line on stderr says so. 0 or a negative errno. */
int rundir_socket_path(char *path, size_t len, const char *name, const char *given);

#endif
