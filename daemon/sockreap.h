/* Removal of the configuration socket's file when the daemon exits, however
 * it exits (return, signal, crash). The sandboxed daemon cannot do it: it
 * runs as nobody, who may not unlink in root's /var/run/wireguard, and its
 * seccomp filter allows no unlink; a dirfd kept open would not help, as the
 * directory's permissions are checked against the caller at unlinkat. */
#ifndef ZT_SOCKREAP_H
#define ZT_SOCKREAP_H

#include <stddef.h>

/* Forks, before the sandbox and before any thread, a helper that closes
 * every descriptor, gives up every capability (it keeps only the uid that
 * owns the directory), renames itself over title (the argv area, title_len
 * bytes: scripts that find the daemon by its command line do not find it)
 * and waits on a pipe whose write end only the daemon holds. When that end
 * closes it unlinks path if path is still the file the daemon bound (same
 * device and inode), and exits. 0, or a negative errno (nothing forked). */
int sockreap_start(const char *path, char *title, size_t title_len);

#endif
