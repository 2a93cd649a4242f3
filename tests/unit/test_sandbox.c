// qemu-user: skip (the emulator runs threads of its own and does not apply a guest seccomp filter)
/* daemon/sandbox.c: each case runs in a forked child that enters the
 * sandbox and reports its failed checks through its exit status. Forbidden
 * calls are chosen so that they would succeed (or fail differently) without
 * the filter: open, execve, ptrace(TRACEME), fork, netlink sockets. */
#include "test.h"

#include "../../daemon/sandbox.c"
#include "../../daemon/passwd.c"

#include <pwd.h>

#include <fcntl.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <net/if.h>

static bool is_root;

#define NOWHERE "/nonexistent-zinctun-sandbox-test"

static uint64_t effective_caps(void)
{
	struct caps c;

	if (caps_get(&c))
		return ~0ULL;
	return c.effective;
}

static uint64_t permitted_caps(void)
{
	struct caps c;

	if (caps_get(&c))
		return ~0ULL;
	return c.permitted;
}

/* -1 with the given errno, and nothing else. */
#define CHECK_ERRNO(call, e)                                                                       \
	do {                                                                                       \
		errno = 0;                                                                         \
		long r_ = (long)(call);                                                            \
		CHECK(r_ == -1 && errno == (e));                                                   \
	} while (0)

static void *thread_main(void *arg)
{
	*(int *)arg = 42;
	return NULL;
}

static int bind_udp_port(uint16_t port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), r;

	if (fd < 0)
		return -errno;
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	close(fd);
	return r;
}

static int so_mark(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), mark = 0x1234, got = 0, r;
	socklen_t len = sizeof(got);

	if (fd < 0)
		return -errno;
	r = setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) ? -errno : 0;
	if (!r && (getsockopt(fd, SOL_SOCKET, SO_MARK, &got, &len) || got != mark))
		r = -EIO;
	close(fd);
	return r;
}

static int enter(const struct zt_sandbox_config *cfg)
{
	char err[256] = "";
	int r = zt_sandbox_enter(cfg, err, sizeof(err));

	if (r)
		fprintf(stderr, "zt_sandbox_enter: %s\n", err);
	return r;
}

/* Stay root (--user root), filter in EPERM mode. */
static void case_filter_errno(void)
{
	struct zt_sandbox_config cfg = {.user = "root", .seccomp = true};
	struct sockaddr_un sun = {.sun_family = AF_UNIX, .sun_path = "/nonexistent-zinctun"};
	char *const argv[] = {"/bin/true", NULL};
	pthread_t th;
	int fd, flag = 0, sv[2];
	struct rlimit lim;

	CHECK(enter(&cfg) == 0);

	/* allowed */
	CHECK(getpid() > 0);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0);
	close(fd);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	CHECK(fd >= 0);
	close(fd);
	CHECK(if_nametoindex("lo") == 1); /* link-local scopes: AF_UNIX refused, AF_INET used */
	CHECK(raise(0) == 0);
	CHECK(prctl(PR_SET_NAME, "sandboxed", 0, 0, 0) == 0);
	/* threads still start: clone3 -> ENOSYS -> clone(CLONE_THREAD) */
	CHECK(pthread_create(&th, NULL, thread_main, &flag) == 0 && pthread_join(th, NULL) == 0);
	CHECK(flag == 42);

	/* forbidden: paths (each would fail otherwise with ENOENT, not EPERM) */
	CHECK_ERRNO(open("/dev/null", O_RDONLY), EPERM);
	CHECK_ERRNO(unlink(NOWHERE), EPERM);
	CHECK_ERRNO(unlinkat(AT_FDCWD, NOWHERE, 0), EPERM);
	CHECK_ERRNO(chmod(NOWHERE, 04755), EPERM);
	CHECK_ERRNO(fchmodat(AT_FDCWD, NOWHERE, 04755, 0), EPERM);
	CHECK_ERRNO(chown(NOWHERE, 0, 0), EPERM);
	CHECK_ERRNO(mkdir(NOWHERE "/d", 0755), EPERM);
	CHECK_ERRNO(mkdirat(AT_FDCWD, NOWHERE "/d", 0755), EPERM);
	CHECK_ERRNO(rename(NOWHERE, NOWHERE "2"), EPERM);
	CHECK_ERRNO(link(NOWHERE, NOWHERE "2"), EPERM);
	CHECK_ERRNO(symlink(NOWHERE, NOWHERE "/l"), EPERM);
	CHECK_ERRNO(truncate(NOWHERE, 0), EPERM);
	CHECK_ERRNO(mknod(NOWHERE "/p", S_IFIFO | 0600, 0), EPERM);
	CHECK_ERRNO(access(NOWHERE, F_OK), EPERM);
	CHECK_ERRNO(chdir(NOWHERE), EPERM);
	/* forbidden: unix sockets, connect, signals to others */
	CHECK_ERRNO(socket(AF_UNIX, SOCK_STREAM, 0), EPERM);
	CHECK_ERRNO(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), EPERM);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK_ERRNO(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), EPERM);
	close(fd);
	CHECK_ERRNO(kill(getpid(), 0), EPERM);
	/* typing into a terminal (ENOTTY on a socket without the filter), any
	 * request but the daemon's queries */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK_ERRNO(ioctl(fd, TIOCSTI, "x"), EPERM);
	CHECK_ERRNO(ioctl(fd, FIONREAD, &flag), EPERM);
	{
		struct ifreq ifr = {.ifr_name = "lo"};

		CHECK(ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0);
		CHECK_ERRNO(ioctl(fd, SIOCSIFMTU, &ifr), EPERM);
	}
	close(fd);
	CHECK_ERRNO(syscall(SYS_tgkill, getppid(), getppid(), 0), EPERM);
	CHECK_ERRNO(prlimit(getppid(), RLIMIT_NOFILE, NULL, &lim), EPERM);
	CHECK(prlimit(0, RLIMIT_NOFILE, NULL, &lim) == 0 && getrlimit(RLIMIT_NOFILE, &lim) == 0);
	CHECK_ERRNO(execve("/bin/true", argv, NULL), EPERM);
	CHECK_ERRNO(ptrace(PTRACE_TRACEME, 0, NULL, NULL), EPERM);
	CHECK_ERRNO(fork(), EPERM);
	CHECK_ERRNO(socket(AF_NETLINK, SOCK_RAW, 0), EPERM);
	CHECK_ERRNO(socket(AF_PACKET, SOCK_RAW, 0), EPERM);
	CHECK_ERRNO(mount("none", "/mnt", "tmpfs", 0, NULL), EPERM);
	CHECK_ERRNO(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), EPERM);
	CHECK_ERRNO(syscall(SYS_clone3, NULL, 0), ENOSYS);
#ifdef __x86_64__
	CHECK_ERRNO(syscall(0x40000000 | __NR_getpid), EPERM); /* x32 ABI */
#endif

	/* state */
	CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1);
	CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2);
	if (is_root) {
		CHECK(effective_caps() == CAP_BIT(CAP_NET_ADMIN));
		CHECK(permitted_caps() == CAP_BIT(CAP_NET_ADMIN));
		CHECK(prctl(PR_CAPBSET_READ, CAP_NET_ADMIN, 0, 0, 0) == 1);
		CHECK(prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) == 0);
		CHECK(prctl(PR_CAPBSET_READ, CAP_NET_BIND_SERVICE, 0, 0, 0) == 0);
		CHECK(prctl(PR_CAPBSET_READ, CAP_SETUID, 0, 0, 0) == 0);
		CHECK(so_mark() == 0); /* the fwmark still works */
		CHECK(getuid() == 0);
	} else {
		CHECK(effective_caps() == 0);
	}
}

/* Root drops to nobody and keeps NET_ADMIN + NET_BIND_SERVICE. */
static void case_user_bind(void)
{
	struct zt_sandbox_config cfg = {
	    .user = "nobody", .need_bind_service = true, .seccomp = true};
	struct passwd *pw = getpwnam("nobody");
	gid_t groups[4];

	CHECK(pw != NULL);
	if (!pw)
		return;
	/* a private network namespace: port 80 is surely free there */
	CHECK(unshare(CLONE_NEWNET) == 0);
	CHECK(enter(&cfg) == 0);
	CHECK(getuid() == pw->pw_uid && geteuid() == pw->pw_uid);
	CHECK(getgid() == pw->pw_gid && getegid() == pw->pw_gid);
	CHECK(getgroups(4, groups) == 0);
	CHECK(effective_caps() == (CAP_BIT(CAP_NET_ADMIN) | CAP_BIT(CAP_NET_BIND_SERVICE)));
	CHECK(permitted_caps() == (CAP_BIT(CAP_NET_ADMIN) | CAP_BIT(CAP_NET_BIND_SERVICE)));
	CHECK(bind_udp_port(80) == 0);
	CHECK(so_mark() == 0);
	CHECK_ERRNO(setresuid(0, 0, 0), EPERM);
	CHECK(prctl(PR_CAPBSET_READ, CAP_SETUID, 0, 0, 0) == 0);
}

/* By default (no user given) root becomes nobody, with the filter on:
 * root's files and root-only sockets are out of reach twice over. */
static void case_default_user(void)
{
	struct zt_sandbox_config cfg = {.need_bind_service = true, .seccomp = true};
	struct passwd *pw = getpwnam(ZT_SANDBOX_DEFAULT_USER);
	uid_t want = pw ? pw->pw_uid : ZT_SANDBOX_DEFAULT_ID;

	CHECK(enter(&cfg) == 0);
	CHECK(getuid() == want && geteuid() == want);
	CHECK(want != 0);
	CHECK(effective_caps() == (CAP_BIT(CAP_NET_ADMIN) | CAP_BIT(CAP_NET_BIND_SERVICE)));
	CHECK(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0); /* others of that uid cannot look in */
	CHECK_ERRNO(open("/etc/passwd", O_RDONLY), EPERM);
	CHECK_ERRNO(chmod("/etc/passwd", 04755), EPERM);
	CHECK(so_mark() == 0);
}

/* Root drops to nobody without the bind capability and without the
 * filter: low ports and root's files are out of reach by permissions. */
static void case_user_nofilter(void)
{
	struct zt_sandbox_config cfg = {.user = "nobody"};

	CHECK(unshare(CLONE_NEWNET) == 0);
	CHECK(enter(&cfg) == 0);
	CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0);
	CHECK(effective_caps() == CAP_BIT(CAP_NET_ADMIN));
	CHECK(bind_udp_port(80) == -EACCES);
	CHECK(bind_udp_port(0) == 0);
	CHECK_ERRNO(open("/etc/shadow", O_RDONLY), EACCES);
	CHECK(so_mark() == 0);
}

static void *blocker(void *arg)
{
	int *fds = arg;
	char c;

	return read(fds[0], &c, 1) < 0 ? NULL : arg;
}

/* With a second thread alive the sandbox refuses and changes nothing. */
static void case_refuses_threads(void)
{
	struct zt_sandbox_config cfg = {.seccomp = true};
	char err[256] = "";
	pthread_t th;
	int fds[2];

	CHECK(pipe(fds) == 0);
	CHECK(pthread_create(&th, NULL, blocker, fds) == 0);
	CHECK(zt_sandbox_enter(&cfg, err, sizeof(err)) == -1);
	CHECK(strstr(err, "thread") != NULL);
	CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0);
	CHECK(write(fds[1], "x", 1) == 1);
	pthread_join(th, NULL);
}

/* A thread that blocks every signal looks like ThreadSanitizer's own. Any
 * build refuses it: only a TSan build tolerates one such thread, and there
 * the forked child already has TSan's own. */
static void case_masked_thread(void)
{
	struct zt_sandbox_config cfg = {.seccomp = false};
	char err[256] = "";
	sigset_t all, old;
	pthread_t th;
	int fds[2];

	CHECK(pipe(fds) == 0);
	sigfillset(&all);
	CHECK(pthread_sigmask(SIG_BLOCK, &all, &old) == 0); /* inherited by th */
	CHECK(pthread_create(&th, NULL, blocker, fds) == 0);
	CHECK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
	CHECK(zt_sandbox_enter(&cfg, err, sizeof(err)) == -1);
	CHECK(strstr(err, "thread") != NULL);
	CHECK(write(fds[1], "x", 1) == 1);
	pthread_join(th, NULL);
}

static void case_unknown_user(void)
{
	struct zt_sandbox_config cfg = {.user = "no-such-user-zinctun", .seccomp = true};
	char err[256] = "";

	CHECK(zt_sandbox_enter(&cfg, err, sizeof(err)) == -1);
	CHECK(strstr(err, "no-such-user-zinctun") != NULL);
	CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0);
}

/* Kill mode: the first forbidden call ends the process with SIGSYS. */
static void case_kill(void)
{
	struct zt_sandbox_config cfg = {.seccomp = true, .seccomp_kill = true};

	if (enter(&cfg))
		_exit(3);
	if (getpid() <= 0) /* allowed calls still work */
		_exit(4);
	errno = 0;
	if (open("/dev/null", O_RDONLY) != -1 || errno != EPERM) /* refused, not fatal */
		_exit(6);
	errno = 0;
	if (unlink(NOWHERE) != -1 || errno != EPERM) /* the exit path's unlink */
		_exit(7);
	errno = 0;
	if (if_nametoindex("lo") != 1) /* AF_UNIX refused, not fatal */
		_exit(8);
	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	_exit(5); /* not reached */
}

#ifdef __x86_64__
/* getpid through the i386 entry point (syscall 20 there): the filter sees
 * AUDIT_ARCH_I386 and must kill, whatever the number means. */
static long getpid_i386(void)
{
	long ret = 20;

	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static void case_ia32_probe(void)
{
	/* without ia32 emulation int 0x80 faults: die quietly, even under ASan */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	_exit(getpid_i386() == getpid() ? 0 : 1);
}

static void case_ia32_filtered(void)
{
	struct zt_sandbox_config cfg = {.seccomp = true};

	if (enter(&cfg))
		_exit(3);
	getpid_i386();
	_exit(5); /* not reached */
}
#endif

static int probe_fd[2];

/* Waits for its go, then tries open(): the filter must have reached it. */
static void *probe_main(void *arg)
{
	char go;
	int fd;

	if (read(probe_fd[0], &go, 1) != 1)
		return NULL;
	fd = open("/dev/null", O_RDONLY);
	*(int *)arg = fd < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* The proxy's two steps: the drop while alone (no capability left), a
 * thread (lwIP's), then the filter, which reaches that thread too (TSYNC);
 * connect is allowed, AF_PACKET and AF_NETLINK are not. */
static void case_proxy_profile(void)
{
	struct zt_sandbox_config cfg = {.profile = ZT_SANDBOX_PROXY, .seccomp = true};
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(9)};
	char err[256] = "";
	int result = 1, fd;
	pthread_t th;

	CHECK(pipe(probe_fd) == 0);
	CHECK(zt_sandbox_drop(&cfg, err, sizeof(err)) == 0);
	CHECK(effective_caps() == 0 && permitted_caps() == 0);
	CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1);
	CHECK(pthread_create(&th, NULL, probe_main, &result) == 0);
	CHECK(zt_sandbox_drop(&cfg, err, sizeof(err)) == -1); /* a thread runs */
	CHECK(zt_sandbox_filter(&cfg, err, sizeof(err)) == 0);
	CHECK(write(probe_fd[1], "g", 1) == 1 && pthread_join(th, NULL) == 0);
	CHECK(result == -EPERM);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	close(fd);
	CHECK_ERRNO(socket(AF_PACKET, SOCK_RAW, 0), EPERM);
	CHECK_ERRNO(socket(AF_NETLINK, SOCK_RAW, 0), EPERM);
	CHECK_ERRNO(open("/dev/null", O_RDONLY), EPERM);
}

/* Runs fn in a child; returns its wait status. */
static int run_child(const char *name, void (*fn)(void))
{
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		test_failures = 0; /* count this child's checks only */
		test_checks = 0;
		fn();
		printf("  %s: %d checks, %d failed\n", name, test_checks, test_failures);
		fflush(stdout);
		_exit(test_failures > 100 ? 100 : test_failures);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static void expect_clean(const char *name, void (*fn)(void))
{
	int st = run_child(name, fn);
	bool ok = st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;

	if (!ok)
		fprintf(stderr, "case %s: status %#x\n", name, st);
	CHECK(ok);
}

int main(void)
{
	int st;

	is_root = geteuid() == 0;
	expect_clean("filter_errno", case_filter_errno);
	expect_clean("proxy_profile", case_proxy_profile);
	expect_clean("refuses_threads", case_refuses_threads);
	expect_clean("masked_thread", case_masked_thread);
	expect_clean("unknown_user", case_unknown_user);
	if (is_root) {
		expect_clean("default_user", case_default_user);
		expect_clean("user_bind", case_user_bind);
		expect_clean("user_nofilter", case_user_nofilter);
	} else {
		printf("not root: user switch cases not run\n");
	}
	st = run_child("kill", case_kill);
	CHECK(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS);
#ifdef __x86_64__
	/* Only where the kernel runs i386 code at all (ia32 emulation on). */
	st = run_child("ia32_probe", case_ia32_probe);
	if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		st = run_child("ia32", case_ia32_filtered);
		CHECK(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS);
	} else {
		printf("no ia32 emulation: foreign-arch case not run\n");
	}
#endif
	return test_finish("test_sandbox");
}
