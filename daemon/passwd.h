/* User lookup for --user without NSS: the daemon is linked statically (its
 * idle memory is then its own pages only, not libc.so's), and glibc's
 * getpwnam() in a static binary would need the shared NSS modules at run
 * time. Reads a passwd(5)-format file; local users only (no LDAP/systemd
 * dynamic users). A name made only of digits is taken as a numeric uid. */
#ifndef ZT_PASSWD_H
#define ZT_PASSWD_H

#include <sys/types.h>

#define ZT_PASSWD_FILE "/etc/passwd"

/* 0 and *uid, *gid set; -ENOENT if the user is unknown or the file
 * unreadable, -ENOMEM.
 * A numeric name not found in the file gets gid = uid. */
int zt_passwd_lookup(const char *path, const char *name, uid_t *uid, gid_t *gid);

/* The same lookup on a passwd(5) text already in memory (fuzzable). */
int zt_passwd_parse(const char *text, size_t len, const char *name, uid_t *uid, gid_t *gid);

#endif
