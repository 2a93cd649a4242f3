/* The socket file's remover (see sockreap.h). */
#include "sockreap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define REAPER_NAME "zinctun-sockrm" /* fits the 16 bytes of a thread name */

static void __attribute__((noreturn))
reap(int fd, const char *path, const struct stat *own, char *title, size_t title_len)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct none[2] = {{0}};
	struct stat now;
	ssize_t n;
	char byte;

	/* nothing of the daemon's: its TUN (the interface would outlive it),
	 * sockets, the metrics port, the caller's pipe */
	if (fd > 0)
		syscall(SYS_close_range, 0, fd - 1, 0);
	syscall(SYS_close_range, fd + 1, ~0U, 0);
	if (title_len) /* NUL-padded; its last byte is a NUL already */
		strncpy(title, REAPER_NAME, title_len - 1);
	prctl(PR_SET_NAME, REAPER_NAME, 0, 0, 0);
	(void)!chdir("/"); /* holds no mount busy */
	/* the stop signals stay blocked (signals_open): SIGTERM to the whole
	 * cgroup leaves this process waiting for the daemon's end */
	syscall(SYS_capset, &h, none);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	/* only the end counts: bytes written by a subverted daemon are ignored */
	do
		n = read(fd, &byte, 1);
	while (n > 0 || (n < 0 && errno == EINTR));
	if (lstat(path, &now) == 0 && now.st_dev == own->st_dev && now.st_ino == own->st_ino)
		unlink(path);
	_exit(0);
}

int sockreap_start(const char *path, char *title, size_t title_len)
{
	struct stat own;
	int p[2], err;
	pid_t pid;

	if (lstat(path, &own) < 0 || pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid == 0)
		reap(p[0], path, &own, title, title_len);
	err = pid < 0 ? -errno : 0;
	close(p[0]);
	if (err)
		close(p[1]);
	return err; /* p[1] stays open, unnamed, until the daemon exits */
}
