/* zinctun --proxy FILE (see proxy_exec.h). */
#include "proxy_exec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int proxy_exec(const char *file, const char *user)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	if (n < 0) {
		fprintf(stderr,
			"zinctun: --proxy: cannot find our own binary (/proc/self/exe: %s)\n",
			strerror(errno));
		return 1;
	}
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash + 1 - path) + sizeof(ZT_PROXY_BINARY) > sizeof(path)) {
		fprintf(stderr, "zinctun: --proxy: odd binary path '%s'\n", path);
		return 1;
	}
	memcpy(slash + 1, ZT_PROXY_BINARY, sizeof(ZT_PROXY_BINARY));
	/* the environment passes through (execv) */
	/* "--": FILE is never taken for an option, whatever it starts with */
	if (user)
		execv(path,
		      (char *const[]){path, "--user", (char *)user, "--", (char *)file, NULL});
	else
		execv(path, (char *const[]){path, "--", (char *)file, NULL});
	if (errno == ENOENT)
		fprintf(stderr, "zinctun: --proxy needs %s, which is not installed (%s missing)\n",
			ZT_PROXY_BINARY, path);
	else
		fprintf(stderr, "zinctun: --proxy: cannot run %s: %s\n", path, strerror(errno));
	return 1;
}
