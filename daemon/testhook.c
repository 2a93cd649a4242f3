/* The escape attempts of test builds: see testhook.h. Each attempt is one
 * raw system call, so that the call the filter sees is the one named. */
#ifdef ZINCTUN_TEST_HOOKS
#include "testhook.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define HOOK_ENV "ZINCTUN_TEST_ESCAPE"
#define HOOK_TAG "zinctun-testhook: "
#define HOOK_PATH_MAX 108 /* sun_path: root.sock must fit one */
#define HOOK_UNPRIVILEGED_ID 65534

/* Names in DIR: the test makes the first six, the rest must not appear. */
enum hook_path {
	P_TOOL,	  /* root's 0755 file: a setuid bit here would be an escape */
	P_SECRET, /* root's 0600 file */
	P_VICTIM, /* to unlink */
	P_VICTIM2,
	P_MOVABLE, /* to rename */
	P_MOVABLE2,
	P_SOCK, /* root's 0600 listening unix socket */
	P_CREATED,
	P_NEWDIR,
	P_NEWDIR2,
	P_HARDLINK,
	P_HARDLINK2,
	P_SYMLINK,
	P_SYMLINK2,
	P_MOVED,
	P_MOVED2,
	P_FIFO,
	P_COUNT
};

static const char *const path_names[P_COUNT] = {
    "tool",	 "secret",   "victim", "victim2", "movable",  "movable2",
    "root.sock", "created",  "newdir", "newdir2", "hardlink", "hardlink2",
    "symlink",	 "symlink2", "moved",  "moved2",  "fifo",
};

static char path[P_COUNT][HOOK_PATH_MAX];
static int unix_fd = -1;

static long try_open_read(void)
{
	return syscall(SYS_openat, AT_FDCWD, path[P_SECRET], O_RDONLY | O_CLOEXEC);
}

static long try_open_write(void)
{
	return syscall(SYS_openat, AT_FDCWD, path[P_TOOL], O_WRONLY | O_CLOEXEC);
}

static long try_open_create(void)
{
	return syscall(SYS_openat, AT_FDCWD, path[P_CREATED], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
}

static long try_fchmodat(void)
{
	return syscall(SYS_fchmodat, AT_FDCWD, path[P_TOOL], 04755);
}

static long try_fchownat(void)
{
	return syscall(SYS_fchownat, AT_FDCWD, path[P_TOOL], HOOK_UNPRIVILEGED_ID,
		       HOOK_UNPRIVILEGED_ID, 0);
}

static long try_truncate(void)
{
	return syscall(SYS_truncate, path[P_TOOL], 0);
}

static long try_mkdirat(void)
{
	return syscall(SYS_mkdirat, AT_FDCWD, path[P_NEWDIR2], 0755);
}

static long try_unlinkat(void)
{
	return syscall(SYS_unlinkat, AT_FDCWD, path[P_VICTIM2], 0);
}

static long try_renameat2(void)
{
	return syscall(SYS_renameat2, AT_FDCWD, path[P_MOVABLE2], AT_FDCWD, path[P_MOVED2], 0);
}

static long try_linkat(void)
{
	return syscall(SYS_linkat, AT_FDCWD, path[P_TOOL], AT_FDCWD, path[P_HARDLINK2], 0);
}

static long try_symlinkat(void)
{
	return syscall(SYS_symlinkat, path[P_TOOL], AT_FDCWD, path[P_SYMLINK2]);
}

static long try_mknodat(void)
{
	return syscall(SYS_mknodat, AT_FDCWD, path[P_FIFO], S_IFIFO | 0666, 0);
}

#if defined(SYS_open) && defined(SYS_chmod) && defined(SYS_mkdir) && defined(SYS_unlink) &&        \
    defined(SYS_rename) && defined(SYS_link) && defined(SYS_symlink) && defined(SYS_chown)
#define HOOK_LEGACY_CALLS 1
static long try_open(void)
{
	return syscall(SYS_open, path[P_SECRET], O_RDONLY | O_CLOEXEC);
}

static long try_chmod(void)
{
	return syscall(SYS_chmod, path[P_TOOL], 04755);
}

static long try_chown(void)
{
	return syscall(SYS_chown, path[P_TOOL], HOOK_UNPRIVILEGED_ID, HOOK_UNPRIVILEGED_ID);
}

static long try_mkdir(void)
{
	return syscall(SYS_mkdir, path[P_NEWDIR], 0755);
}

static long try_unlink(void)
{
	return syscall(SYS_unlink, path[P_VICTIM]);
}

static long try_rename(void)
{
	return syscall(SYS_rename, path[P_MOVABLE], path[P_MOVED]);
}

static long try_link(void)
{
	return syscall(SYS_link, path[P_TOOL], path[P_HARDLINK]);
}

static long try_symlink(void)
{
	return syscall(SYS_symlink, path[P_TOOL], path[P_SYMLINK]);
}
#endif

static long connect_root_sock(int fd)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	memcpy(sa.sun_path, path[P_SOCK], sizeof(sa.sun_path));
	return syscall(SYS_connect, fd, (struct sockaddr *)&sa, sizeof(sa));
}

/* connect() on the socket made before the filter */
static long try_unix_connect(void)
{
	return connect_root_sock(unix_fd);
}

/* a new AF_UNIX socket, then connect() */
static long try_unix_socket(void)
{
	long fd = syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long ret;
	int saved;

	if (fd < 0)
		return fd;
	ret = connect_root_sock((int)fd);
	saved = errno;
	close((int)fd);
	errno = saved;
	return ret;
}

/* signal 0 to init: only permission is checked */
static long try_kill_init(void)
{
	return syscall(SYS_kill, 1, 0);
}

/* signal 0 to init's main thread */
static long try_tgkill_init(void)
{
	return syscall(SYS_tgkill, 1, 1, 0);
}

/* only reads init's descriptor limit: permission is what counts */
static long try_prlimit_init(void)
{
	struct rlimit old;

	return syscall(SYS_prlimit64, 1, RLIMIT_NOFILE, NULL, &old);
}

static const struct attempt {
	const char *name;
	long (*fn)(void);
	bool opens; /* a descriptor to close on success */
} attempts[] = {
    {"open-read", try_open_read, true},
    {"open-write", try_open_write, true},
    {"open-create", try_open_create, true},
    {"fchmodat", try_fchmodat, false},
    {"fchownat", try_fchownat, false},
    {"truncate", try_truncate, false},
    {"mkdirat", try_mkdirat, false},
    {"unlinkat", try_unlinkat, false},
    {"renameat2", try_renameat2, false},
    {"linkat", try_linkat, false},
    {"symlinkat", try_symlinkat, false},
    {"mknodat", try_mknodat, false},
#ifdef HOOK_LEGACY_CALLS
    {"open", try_open, true},
    {"chmod", try_chmod, false},
    {"chown", try_chown, false},
    {"mkdir", try_mkdir, false},
    {"unlink", try_unlink, false},
    {"rename", try_rename, false},
    {"link", try_link, false},
    {"symlink", try_symlink, false},
#endif
    {"unix-connect", try_unix_connect, false},
    {"unix-socket", try_unix_socket, false},
    {"kill-init", try_kill_init, false},
    {"tgkill-init", try_tgkill_init, false},
    {"prlimit-init", try_prlimit_init, false},
};

/* async-signal-safe output: no stdio in a handler */
static void put(char *line, size_t *len, size_t cap, const char *s)
{
	while (*s && *len + 1 < cap)
		line[(*len)++] = *s++;
}

static void put_uint(char *line, size_t *len, size_t cap, unsigned long v)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < (int)sizeof(digits));
	while (n && *len + 1 < cap)
		line[(*len)++] = digits[--n];
}

static void say(const char *name, const char *what, unsigned long num)
{
	char line[160];
	size_t len = 0;

	put(line, &len, sizeof(line), HOOK_TAG);
	put(line, &len, sizeof(line), name);
	put(line, &len, sizeof(line), what);
	if (num != (unsigned long)-1)
		put_uint(line, &len, sizeof(line), num);
	line[len++] = '\n';
	if (write(STDERR_FILENO, line, len) < 0)
		return; /* nowhere to report it */
}

static void run_attempts(int sig)
{
	int saved = errno;

	(void)sig;
	for (size_t i = 0; i < sizeof(attempts) / sizeof(attempts[0]); i++) {
		long r;

		errno = 0;
		r = attempts[i].fn();
		if (r < 0) {
			say(attempts[i].name, " refused errno=", (unsigned long)errno);
			continue;
		}
		if (attempts[i].opens)
			close((int)r);
		say(attempts[i].name, " ALLOWED", (unsigned long)-1);
	}
	say("done", " uid=", (unsigned long)getuid());
	errno = saved;
}

void zt_testhook_arm(void)
{
	const char *dir = getenv(HOOK_ENV);
	struct sigaction sa;

	if (!dir || !*dir)
		return;
	for (int i = 0; i < P_COUNT; i++)
		if ((size_t)snprintf(path[i], sizeof(path[i]), "%s/%s", dir, path_names[i]) >=
		    sizeof(path[i]))
			return;
	unix_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = run_attempts;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
}
#endif
