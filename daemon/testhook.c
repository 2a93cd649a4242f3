/* The escape attempts of test builds: see testhook.h. Each attempt is one
 * raw system call, so that the call the filter sees is the one named. */
#ifdef ZINCTUN_TEST_HOOKS
#include "testhook.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
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
#define HOOK_TRACEE_ENV "ZINCTUN_TEST_TRACEE" /* a root process to ptrace */
#define HOOK_VICTIM_LINK "ztvictim0"	      /* RTM_DELLINK's target */
#define HOOK_ROUTE_DST 0xc6336400u	      /* 198.51.100.0/24, RTM_NEWROUTE's */
#define HOOK_ROUTE_LEN 24
#define HOOK_NETLINK_MAX 4

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
static long tracee;
static int netlink_fd[HOOK_NETLINK_MAX], n_netlink;

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

/* execve with an argv the kernel cannot read: EFAULT means it got past
 * every check and would have run the program (nothing runs either way) */
static long try_exec(void)
{
	return syscall(SYS_execve, path[P_TOOL], (char *const *)1, NULL);
}

/* attach without stopping it, then let go */
static long try_ptrace(void)
{
	long r = tracee > 0 ? syscall(SYS_ptrace, PTRACE_SEIZE, tracee, NULL, NULL) : -1;

	if (tracee <= 0)
		errno = ESRCH;
	if (r == 0)
		syscall(SYS_ptrace, PTRACE_DETACH, tracee, NULL, NULL);
	return r;
}

static long try_packet_socket(void)
{
	return syscall(SYS_socket, AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
}

/* an address change on lo (127.0.0.1 again: harmless in the test's
 * namespace) through a socket the filter lets the daemon make */
static long try_ioctl_sifaddr(void)
{
	struct ifreq ifr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	long fd = syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;
	int saved;

	if (fd < 0)
		return fd;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r = syscall(SYS_ioctl, (int)fd, SIOCSIFADDR, &ifr);
	saved = errno;
	close((int)fd);
	errno = saved;
	return r;
}

/* RTM_NEWROUTE (a blackhole route) or RTM_DELLINK (HOOK_VICTIM_LINK) on
 * every rtnetlink socket the daemon holds, plainly or naming the kernel as
 * destination; the answer goes to the daemon's reader, so the test looks
 * at the result. The first failure is returned. */
static long netlink_send(bool newroute, bool to_kernel)
{
	uint32_t buf[32] = {0}; /* aligned for nlmsghdr */
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	uint32_t dst = htonl(HOOK_ROUTE_DST);
	size_t body = newroute ? sizeof(struct rtmsg) : sizeof(struct ifinfomsg);
	size_t value = newroute ? sizeof(dst) : sizeof(HOOK_VICTIM_LINK);
	struct rtattr *rta = (struct rtattr *)((char *)NLMSG_DATA(nh) + NLMSG_ALIGN(body));
	long r = 0;

	if (!n_netlink) {
		errno = EBADF;
		return -1;
	}
	nh->nlmsg_len = (uint32_t)(NLMSG_LENGTH(body) + RTA_SPACE(value));
	nh->nlmsg_flags = NLM_F_REQUEST | (newroute ? NLM_F_CREATE | NLM_F_EXCL : 0);
	rta->rta_len = (unsigned short)RTA_LENGTH(value);
	if (newroute) {
		struct rtmsg *rt = NLMSG_DATA(nh);

		nh->nlmsg_type = RTM_NEWROUTE;
		rt->rtm_family = AF_INET;
		rt->rtm_dst_len = HOOK_ROUTE_LEN;
		rt->rtm_table = RT_TABLE_MAIN;
		rt->rtm_protocol = RTPROT_STATIC;
		rt->rtm_scope = RT_SCOPE_UNIVERSE;
		rt->rtm_type = RTN_BLACKHOLE;
		rta->rta_type = RTA_DST;
		memcpy(RTA_DATA(rta), &dst, sizeof(dst));
	} else {
		nh->nlmsg_type = RTM_DELLINK;
		((struct ifinfomsg *)NLMSG_DATA(nh))->ifi_family = AF_UNSPEC;
		rta->rta_type = IFLA_IFNAME;
		memcpy(RTA_DATA(rta), HOOK_VICTIM_LINK, sizeof(HOOK_VICTIM_LINK));
	}
	for (int i = 0; i < n_netlink; i++) {
		long one = syscall(SYS_sendto, netlink_fd[i], buf, nh->nlmsg_len, 0,
				   to_kernel ? (struct sockaddr *)&kernel : NULL,
				   to_kernel ? sizeof(kernel) : 0);

		if (one < 0 && r == 0)
			r = one;
	}
	return r;
}

static long try_netlink_newroute(void)
{
	return netlink_send(true, false);
}

static long try_netlink_newroute_to(void)
{
	return netlink_send(true, true);
}

static long try_netlink_dellink(void)
{
	return netlink_send(false, false);
}

static long try_netlink_dellink_to(void)
{
	return netlink_send(false, true);
}

/* a copy of an rtnetlink descriptor would escape the filter's rules */
static long try_netlink_dup(void)
{
	if (!n_netlink) {
		errno = EBADF;
		return -1;
	}
	return syscall(SYS_dup, netlink_fd[0]);
}

static const struct attempt {
	const char *name;
	long (*fn)(void);
	bool opens;	 /* a descriptor to close on success */
	int got_through; /* this errno means the call passed every check */
} attempts[] = {
    {"open-read", try_open_read, true, 0},
    {"open-write", try_open_write, true, 0},
    {"open-create", try_open_create, true, 0},
    {"fchmodat", try_fchmodat, false, 0},
    {"fchownat", try_fchownat, false, 0},
    {"truncate", try_truncate, false, 0},
    {"mkdirat", try_mkdirat, false, 0},
    {"unlinkat", try_unlinkat, false, 0},
    {"renameat2", try_renameat2, false, 0},
    {"linkat", try_linkat, false, 0},
    {"symlinkat", try_symlinkat, false, 0},
    {"mknodat", try_mknodat, false, 0},
#ifdef HOOK_LEGACY_CALLS
    {"open", try_open, true, 0},
    {"chmod", try_chmod, false, 0},
    {"chown", try_chown, false, 0},
    {"mkdir", try_mkdir, false, 0},
    {"unlink", try_unlink, false, 0},
    {"rename", try_rename, false, 0},
    {"link", try_link, false, 0},
    {"symlink", try_symlink, false, 0},
#endif
    {"unix-connect", try_unix_connect, false, 0},
    {"unix-socket", try_unix_socket, false, 0},
    {"kill-init", try_kill_init, false, 0},
    {"tgkill-init", try_tgkill_init, false, 0},
    {"prlimit-init", try_prlimit_init, false, 0},
    {"exec", try_exec, false, EFAULT},
    {"ptrace", try_ptrace, false, 0},
    {"packet-socket", try_packet_socket, true, 0},
    {"ioctl-sifaddr", try_ioctl_sifaddr, false, 0},
    {"netlink-newroute", try_netlink_newroute, false, 0},
    {"netlink-newroute-to", try_netlink_newroute_to, false, 0},
    {"netlink-dellink", try_netlink_dellink, false, 0},
    {"netlink-dellink-to", try_netlink_dellink_to, false, 0},
    {"netlink-dup", try_netlink_dup, true, 0},
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
		if (r < 0 && (!attempts[i].got_through || errno != attempts[i].got_through)) {
			say(attempts[i].name, " refused errno=", (unsigned long)errno);
			continue;
		}
		if (attempts[i].opens && r >= 0)
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
	tracee = getenv(HOOK_TRACEE_ENV) ? atol(getenv(HOOK_TRACEE_ENV)) : 0;
	/* the rtnetlink sockets the process holds (linkmon's) */
	n_netlink = 0;
	for (int fd = 0; fd < 1024 && n_netlink < HOOK_NETLINK_MAX; fd++) {
		int domain;
		socklen_t len = sizeof(domain);

		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 &&
		    domain == AF_NETLINK)
			netlink_fd[n_netlink++] = fd;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = run_attempts;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
}

int zt_testhook_emulator_threads(void)
{
	const char *q = getenv("ZINCTUN_TEST_QEMU_USER");

	return q && !strcmp(q, "1");
}
#endif
