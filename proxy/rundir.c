/* The configuration socket's directory (rundir.h). */
#include "rundir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { RUNDIR_PATH_MAX = 108 }; /* sun_path */

/* A directory only we can use: created 0700, or one that is ours and 0700
 * (lstat: a symlink, even to a directory of ours, is refused). */
static int own_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

/* The fixed name in /tmp is taken (another user made it first, or a
 * symlink): a fresh directory of a name nobody can guess, made 0700 by
 * mkdtemp, so that start-up never depends on what others left in /tmp. */
static int fallback_dir(char *dir, size_t len, int err)
{
	char taken[RUNDIR_PATH_MAX];

	snprintf(taken, sizeof(taken), "%s", dir);
	if ((size_t)snprintf(dir, len, "%s.XXXXXX", taken) >= len)
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	fprintf(stderr,
		"zinctun-proxy: %s is not a private directory of uid %u (%s): not used; "
		"the configuration socket goes to %s instead\n",
		taken, (unsigned)getuid(), strerror(-err), dir);
	return 0;
}

int rundir_socket_path(char *path, size_t len, const char *name, const char *given)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char dir[RUNDIR_PATH_MAX];
	struct stat st;
	int ret;

	if (given) {
		if ((size_t)snprintf(path, len, "%s", given) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	/* XDG_RUNTIME_DIR is used only when it is ours: one inherited from
	 * another user (setpriv or su from a root shell) is not writable */
	if (xdg && *xdg && !stat(xdg, &st) && S_ISDIR(st.st_mode) && st.st_uid == getuid())
		snprintf(dir, sizeof(dir), "%s/zinctun", xdg);
	else
		snprintf(dir, sizeof(dir), "/tmp/zinctun-%u", (unsigned)getuid());
	ret = own_dir(dir);
	if (ret == -EPERM || ret == -ENOTDIR)
		ret = fallback_dir(dir, sizeof(dir), ret);
	if (ret)
		return ret;
	if ((size_t)snprintf(path, len, "%s/%s.sock", dir, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}
