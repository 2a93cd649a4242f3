/* Least privilege after start-up: see sandbox.h. Raw syscalls only (no
 * libcap, no libseccomp): the capability and seccomp ABIs are small. */
#include "sandbox.h"
#include "passwd.h"
#include "testhook.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ZT_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ZT_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
/* No filter where its syscall list was never run (make check-cross builds
 * armhf and s390x): the lists below stay unused there. */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-const-variable"
#endif

static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- capabilities ---- */

struct caps {
	uint64_t effective, permitted, inheritable;
};

static int caps_get(struct caps *c)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	c->effective = d[0].effective | (uint64_t)d[1].effective << 32;
	c->permitted = d[0].permitted | (uint64_t)d[1].permitted << 32;
	c->inheritable = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

static int caps_set(const struct caps *c)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {
	    {(uint32_t)c->effective, (uint32_t)c->permitted, (uint32_t)c->inheritable},
	    {(uint32_t)(c->effective >> 32), (uint32_t)(c->permitted >> 32),
	     (uint32_t)(c->inheritable >> 32)},
	};

	return (int)syscall(SYS_capset, &h, d);
}

#define CAP_BIT(c) (1ULL << (c))

/* Empties the bounding set except keep. Needs CAP_SETPCAP; without it the
 * set cannot change, which is harmless here: no_new_privs and the filter
 * forbid the execve that would use it. */
static int drop_bounding_set(uint64_t keep, bool can, char *err, size_t errlen)
{
	if (!can)
		return 0;
	for (int cap = 0; cap < 64; cap++) {
		if (keep & CAP_BIT(cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
			if (errno == EINVAL)
				break; /* past the kernel's last capability */
			return fail(err, errlen, "PR_CAPBSET_DROP(%d): %s", cap, strerror(errno));
		}
	}
	return 0;
}

/* ThreadSanitizer starts its background thread in the child of every
 * fork(), so a daemonizing zinctun built with -fsanitize=thread already has
 * two threads when it drops privileges. __sanitizer_sandbox_on_notify()
 * cannot stop that one (it only stops a thread started from
 * pthread_create). Sanitizer threads start with every signal blocked; a
 * thread of ours never does. So, in a TSan build only (a test build), one
 * such thread is not counted; it keeps its privileges, but it runs only
 * sanitizer code. */
#if defined(__SANITIZE_THREAD__)
#define ZT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ZT_TSAN 1
#endif
#endif

#ifdef ZT_TSAN
static bool sanitizer_thread(long tid)
{
	/* signals 1..30 but SIGKILL and SIGSTOP, which cannot be blocked (the
	 * clang 14 runtime leaves SIGSYS, 31, open: not required here) */
	const unsigned long long all = 0x3ffbfeffULL;
	unsigned long long blocked = 0;
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &blocked) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return found && (blocked & all) == all;
}
#else
#define sanitizer_thread(tid) false
#endif

/* Capabilities, user ids and no_new_privs are per thread: with a second
 * thread alive, that thread would keep everything. Counts the threads of
 * the process, the caller's included. */
static int count_own_threads(void)
{
	long self = (long)syscall(SYS_gettid);
	int n = 0, sanitizer = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		long tid = strtol(e->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		if (tid != self && !sanitizer && sanitizer_thread(tid))
			sanitizer = 1;
		else
			n++;
	}
	closedir(d);
	return n;
}

/* Which ids to run as: user, or by default (NULL) nobody when started as
 * root. *change false: keep the current ids (a root user asked for, or a
 * default start without root, which is unprivileged already). */
static int resolve_user(const char *user, uid_t *uid, gid_t *gid, bool *change, char *err,
			size_t errlen)
{
	*change = false;
	if (!user) {
		if (getuid() != 0 && geteuid() != 0)
			return 0;
		if (zt_passwd_lookup(ZT_PASSWD_FILE, ZT_SANDBOX_DEFAULT_USER, uid, gid)) {
			*uid = ZT_SANDBOX_DEFAULT_ID;
			*gid = ZT_SANDBOX_DEFAULT_ID;
		}
	} else if (zt_passwd_lookup(ZT_PASSWD_FILE, user, uid, gid)) {
		return fail(err, errlen, "unknown user %s (not in " ZT_PASSWD_FILE ")", user);
	}
	*change = *uid != 0;
	return 0;
}

static int switch_user(uid_t uid, gid_t gid, char *err, size_t errlen)
{
	uid_t r, e, s;

	/* Keep the permitted set across the uid change; effective is cleared
	 * by the kernel and restored by the capset that follows. */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return fail(err, errlen, "PR_SET_KEEPCAPS: %s", strerror(errno));
	if (setgroups(0, NULL))
		return fail(err, errlen, "setgroups: %s", strerror(errno));
	if (setresgid(gid, gid, gid))
		return fail(err, errlen, "setresgid(%u): %s", (unsigned)gid, strerror(errno));
	if (setresuid(uid, uid, uid))
		return fail(err, errlen, "setresuid(%u): %s", (unsigned)uid, strerror(errno));
	if (getresuid(&r, &e, &s) || r != uid || e != uid || s != uid)
		return fail(err, errlen, "uid change to %u did not take", (unsigned)uid);
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	return 0;
}

/* ---- seccomp filter ---- */

/* Plain allowlist: the calls a daemon of this shape makes once running
 * (strace -f of zinctun under the e2e tests), nothing that creates
 * processes, names a file (open, chmod, unlink, mkdir, rename, link,
 * symlink, chown, ...), connects, changes mounts, loads code or inspects
 * others. newfstatat stays: libc's fstat() is built on it, and the filter
 * cannot tell an empty path from another; looking at a path changes nothing. */
static const uint32_t allowed_syscalls[] = {
    /* the data path first: a kernel without the seccomp action cache
     * walks this list on every call */
    __NR_read, __NR_write, __NR_readv, __NR_writev, __NR_recvmmsg, __NR_sendmmsg, __NR_recvmsg,
    __NR_sendmsg, __NR_recvfrom, __NR_sendto, __NR_futex, __NR_ppoll, __NR_epoll_pwait,
#if defined(__x86_64__)
    __NR_poll, __NR_epoll_wait,
#endif
    /* other I/O on descriptors that exist */
    __NR_pread64, __NR_pwrite64, __NR_close, __NR_lseek, __NR_fstat,
#ifdef __NR_newfstatat /* (32-bit ARM: fstatat64, mmap2; no filter there) */
    __NR_newfstatat,
#endif
    __NR_fcntl, __NR_dup, __NR_dup3, __NR_fsync, __NR_fdatasync, __NR_pipe2, __NR_eventfd2,
    __NR_timerfd_create, __NR_timerfd_settime, __NR_timerfd_gettime, __NR_signalfd4,
    /* sockets (socket and clone are checked below; no connect: UDP is
     * answered with sendto, and the config socket is already listening) */
    __NR_bind, __NR_listen,
#ifdef __NR_accept /* not on s390x: accept4 only */
    __NR_accept,
#endif
    __NR_accept4, __NR_shutdown, __NR_setsockopt, __NR_getsockopt, __NR_getsockname,
    __NR_getpeername,
    /* waiting */
    __NR_pselect6, __NR_epoll_create1, __NR_epoll_ctl,
#ifdef __NR_epoll_pwait2
    __NR_epoll_pwait2,
#endif
    __NR_nanosleep, __NR_clock_nanosleep, __NR_sched_yield,
    /* time, randomness, identity */
    __NR_clock_gettime, __NR_clock_getres, __NR_gettimeofday, __NR_getrandom, __NR_getpid,
    __NR_gettid, __NR_getppid, __NR_getuid, __NR_geteuid, __NR_getgid, __NR_getegid, __NR_getresuid,
    __NR_getresgid, __NR_getgroups, __NR_uname, __NR_capget,
    /* memory */
    __NR_munmap,
#ifdef __NR_mmap
    __NR_mmap,
#endif
    __NR_mprotect, __NR_mremap, __NR_brk, __NR_madvise,
    /* signals (tgkill, what raise/abort use, is checked below) */
    __NR_rt_sigaction, __NR_rt_sigprocmask, __NR_rt_sigreturn, __NR_rt_sigtimedwait,
    __NR_sigaltstack, __NR_restart_syscall,
    /* threads */
    __NR_set_robust_list, __NR_get_robust_list, __NR_rseq, __NR_sched_getaffinity,
#if defined(__x86_64__) /* and x86-64's older forms */
    __NR_select, __NR_dup2, __NR_pipe, __NR_time, __NR_arch_prctl,
#endif
    __NR_membarrier, __NR_exit, __NR_exit_group};

/* The proxy's own: it connects host sockets to [TCPServerTunnel] targets. */
static const uint32_t proxy_syscalls[] = {__NR_connect};

/* Refused with EPERM even in kill mode: calls libc or our own exit path
 * makes and copes with their failure. glibc's malloc opens
 * /proc/sys/vm/overcommit_memory when it first trims a thread arena;
 * uapi_close() tries to remove the socket file at exit. */
static const uint32_t refused_syscalls[] = {
#if defined(__x86_64__)
    __NR_open, __NR_unlink,
#endif
    __NR_openat, __NR_unlinkat};

/* Socket families the daemon may still create after start-up: UDP for
 * listen port changes. No AF_UNIX: no path to bind or connect to. */
static const uint32_t allowed_families[] = {AF_INET, AF_INET6};
/* glibc's if_nametoindex() (link-local endpoint scopes) tries AF_UNIX
 * first and falls back to AF_INET: refused, never killed. */
static const uint32_t refused_families[] = {AF_UNIX};

/* ioctl requests the daemon makes once running (the TUN's name and
 * namespace, a link's MTU and index: linkmon, if_nametoindex for link-local
 * endpoints) and libc's isatty; nothing that changes an interface, a
 * terminal or a TUN. */
static const uint32_t allowed_ioctls[] = {TUNGETIFF, TUNGETDEVNETNS, SIOCGIFMTU, SIOCGIFINDEX,
					  TCGETS};

/* prctl options that only read state or name threads. */
static const uint32_t allowed_prctls[] = {
    PR_SET_NAME,     PR_GET_NAME,    PR_GET_DUMPABLE,	  PR_GET_KEEPCAPS,
    PR_CAPBSET_READ, PR_GET_SECCOMP, PR_GET_NO_NEW_PRIVS,
};

#define N_OF(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

enum { FILTER_MAX = 512 };

struct filter {
	struct sock_filter ins[FILTER_MAX];
	unsigned n;
	bool overflow;
};

static void emit(struct filter *f, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	if (f->n >= FILTER_MAX) {
		f->overflow = true;
		return;
	}
	f->ins[f->n++] = (struct sock_filter){code, jt, jf, k};
}

static void ret(struct filter *f, uint32_t action)
{
	emit(f, BPF_RET | BPF_K, action, 0, 0);
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) ((uint32_t)offsetof(struct seccomp_data, args[i]))
#else
#define ARG_LO(i) ((uint32_t)offsetof(struct seccomp_data, args[i]) + 4)
#endif

/* nr allowed only when the low 32 bits of argument arg are in allowed;
 * refused with EPERM (never killed) when in refused; else deny. Every
 * outcome returns, so A (the syscall number) need not be reloaded. */
static void allow_if_arg_in(struct filter *f, uint32_t nr, unsigned arg, const uint32_t *allowed,
			    unsigned n, const uint32_t *refused, unsigned m, uint32_t deny)
{
	const unsigned soft = m ? 1 : 0; /* the EPERM return exists */

	emit(f, BPF_JMP | BPF_JEQ | BPF_K, nr, 0, (uint8_t)(n + m + soft + 3));
	emit(f, BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg), 0, 0);
	for (unsigned i = 0; i < n; i++)
		emit(f, BPF_JMP | BPF_JEQ | BPF_K, allowed[i], (uint8_t)(n + m + soft - i), 0);
	for (unsigned j = 0; j < m; j++)
		emit(f, BPF_JMP | BPF_JEQ | BPF_K, refused[j], (uint8_t)(m - j), 0);
	ret(f, deny);
	if (soft)
		ret(f, SECCOMP_RET_ERRNO | EPERM);
	ret(f, SECCOMP_RET_ALLOW);
}

/* nr on one of the descriptors fds (argument 0) is denied when the low
 * 32 bits of argument arg are (deny_if_in) or are not (!deny_if_in) in
 * values; n_values 0 with deny_if_in false: always. Anything else falls
 * through to what follows, with A reloaded with the syscall number. */
static void deny_on_fds(struct filter *f, uint32_t nr, const int *fds, unsigned n_fds, unsigned arg,
			const uint32_t *values, unsigned n_values, bool deny_if_in, uint32_t deny)
{
	const unsigned chk = 2 + n_fds + 1; /* index of the check, from the JEQ nr */
	const unsigned deny_at = chk + (n_values ? 1 + n_values + 1 : 0), ok_at = deny_at + 1;
	const unsigned start = f->n;

	emit(f, BPF_JMP | BPF_JEQ | BPF_K, nr, 0, (uint8_t)(ok_at + 1 - 1));
	emit(f, BPF_LD | BPF_W | BPF_ABS, ARG_LO(0), 0, 0);
	for (unsigned i = 0; i < n_fds; i++)
		emit(f, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)fds[i], (uint8_t)(chk - (2 + i) - 1),
		     0);
	emit(f, BPF_JMP | BPF_JA | BPF_K, ok_at - (chk - 1) - 1, 0, 0);
	if (n_values) {
		emit(f, BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg), 0, 0);
		for (unsigned i = 0; i < n_values; i++) {
			unsigned at = chk + 1 + i, hit = deny_if_in ? deny_at : ok_at;

			emit(f, BPF_JMP | BPF_JEQ | BPF_K, values[i], (uint8_t)(hit - at - 1), 0);
		}
		emit(f, BPF_JMP | BPF_JA | BPF_K,
		     (deny_if_in ? ok_at : deny_at) - (chk + 1 + n_values) - 1, 0, 0);
	}
	ret(f, deny);
	emit(f, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	if (!f->overflow && f->n - start != ok_at + 1)
		f->overflow = true; /* a layout bug: refuse the filter */
}

/* The rtnetlink sockets were made without capabilities in their opener's
 * credentials (zt_sandbox_socket_unprivileged), so the kernel refuses every
 * change sent on them, unless the message names its destination: then only
 * the sender's CAP_NET_ADMIN is checked. So, on those descriptors: sendto
 * only without an address (its length argument 0), no sendmsg/sendmmsg
 * (the filter cannot read a msghdr), and no copy under another number. */
static void netlink_rules(struct filter *f, const struct zt_sandbox_config *cfg, uint32_t deny)
{
	static const uint32_t no_address[] = {0};
	static const uint32_t dup_cmds[] = {F_DUPFD, F_DUPFD_CLOEXEC};
	static const uint32_t every_nr[] = {
		__NR_sendmsg,
		__NR_sendmmsg,
		__NR_dup,
		__NR_dup3,
#if defined(__x86_64__)
		__NR_dup2,
#endif
	};
	const int *fds = cfg->netlink_fds;
	unsigned n = cfg->n_netlink_fds;

	if (!n)
		return;
	deny_on_fds(f, __NR_sendto, fds, n, 5, no_address, 1, false, deny);
	deny_on_fds(f, __NR_fcntl, fds, n, 1, dup_cmds, N_OF(dup_cmds), true, deny);
	for (unsigned i = 0; i < N_OF(every_nr); i++)
		deny_on_fds(f, every_nr[i], fds, n, 0, NULL, 0, false, deny);
}

static int build_filter(struct filter *f, const struct zt_sandbox_config *cfg, uint32_t deny)
{
#ifndef ZT_AUDIT_ARCH
	(void)f;
	(void)cfg;
	(void)deny;
	return -1;
#else
	const uint32_t self = (uint32_t)getpid();
	const uint32_t self_or_0[] = {0, self};

	f->n = 0;
	f->overflow = false;
	/* Syscall numbers mean something only for the expected ABI. */
	emit(f, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
	emit(f, BPF_JMP | BPF_JEQ | BPF_K, ZT_AUDIT_ARCH, 1, 0);
	ret(f, SECCOMP_RET_KILL_PROCESS);
	emit(f, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
#ifdef __x86_64__
	/* x32 syscalls share the arch value; refuse them all. */
	emit(f, BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1);
	ret(f, deny);
#endif
	netlink_rules(f, cfg, deny);
	for (unsigned i = 0; i < N_OF(allowed_syscalls); i++) {
		emit(f, BPF_JMP | BPF_JEQ | BPF_K, allowed_syscalls[i], 0, 1);
		ret(f, SECCOMP_RET_ALLOW);
	}
	for (unsigned i = 0; cfg->profile == ZT_SANDBOX_PROXY && i < N_OF(proxy_syscalls); i++) {
		emit(f, BPF_JMP | BPF_JEQ | BPF_K, proxy_syscalls[i], 0, 1);
		ret(f, SECCOMP_RET_ALLOW);
	}
	allow_if_arg_in(f, __NR_socket, 0, allowed_families, N_OF(allowed_families),
			refused_families, N_OF(refused_families), deny);
	allow_if_arg_in(f, __NR_prctl, 0, allowed_prctls, N_OF(allowed_prctls), NULL, 0, deny);
	/* the request is an unsigned int to the kernel: 32 bits are all of it */
	allow_if_arg_in(f, __NR_ioctl, 1, allowed_ioctls, N_OF(allowed_ioctls), NULL, 0, deny);
	/* signals and resource limits of this process only (raise, abort,
	 * getrlimit; no kill() at all): not of others running as nobody */
	allow_if_arg_in(f, __NR_tgkill, 0, &self, 1, NULL, 0, deny);
	allow_if_arg_in(f, __NR_prlimit64, 0, self_or_0, N_OF(self_or_0), NULL, 0, deny);
	/* clone: threads only (CLONE_THREAD in flags, the first argument on
	 * both supported ABIs), so no fork and no new namespaces. */
	emit(f, BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4);
	emit(f, BPF_LD | BPF_W | BPF_ABS, ARG_LO(0), 0, 0);
	emit(f, BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0);
	ret(f, deny);
	ret(f, SECCOMP_RET_ALLOW);
	/* clone3 passes its flags in memory the filter cannot read: ENOSYS
	 * makes libc fall back to clone. */
	emit(f, BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1);
	ret(f, SECCOMP_RET_ERRNO | ENOSYS);
	for (unsigned i = 0; i < N_OF(refused_syscalls); i++) {
		emit(f, BPF_JMP | BPF_JEQ | BPF_K, refused_syscalls[i], 0, 1);
		ret(f, SECCOMP_RET_ERRNO | EPERM);
	}
	ret(f, deny);
	return f->overflow ? -1 : 0;
#endif
}

/* On every thread of the process (TSYNC): the proxy installs it after
 * lwIP's thread started. */
static int install_filter(const struct zt_sandbox_config *cfg, char *err, size_t errlen)
{
	static struct filter f;
	uint32_t deny = cfg->seccomp_kill ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ERRNO | EPERM;
	struct sock_fprog prog;
	long r;

	if (build_filter(&f, cfg, deny))
		return fail(err, errlen, "seccomp filter not available on this architecture");
	prog.len = (unsigned short)f.n;
	prog.filter = f.ins;
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (r < 0)
		return fail(err, errlen, "seccomp: %s", strerror(errno));
	if (r > 0)
		return fail(err, errlen, "seccomp: thread %ld cannot take the filter", r);
	return 0;
}

/* ---- entry ---- */

int zt_sandbox_drop(const struct zt_sandbox_config *cfg, char *err, size_t errlen)
{
	uint64_t keep = cfg->profile == ZT_SANDBOX_DAEMON ? CAP_BIT(CAP_NET_ADMIN) : 0;
	struct caps have, now;
	int threads = count_own_threads();
	bool change_user;
	uid_t uid;
	gid_t gid;

#ifdef ZINCTUN_TEST_HOOKS
	/* qemu-user runs a thread of its own (test_e2e_cross_arm64) */
	threads -= zt_testhook_emulator_threads();
#endif
	if (threads != 1)
		return fail(err, errlen, "sandbox must be entered before any thread starts (%d)",
			    threads);
	if (resolve_user(cfg->user, &uid, &gid, &change_user, err, errlen))
		return -1;
	if (caps_get(&have))
		return fail(err, errlen, "capget: %s", strerror(errno));
	if (cfg->need_bind_service)
		keep |= CAP_BIT(CAP_NET_BIND_SERVICE);
	keep &= have.permitted;

	if (drop_bounding_set(keep, have.effective & CAP_BIT(CAP_SETPCAP), err, errlen))
		return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return fail(err, errlen, "clearing ambient capabilities: %s", strerror(errno));
	if (change_user && switch_user(uid, gid, err, errlen))
		return -1;

	now = (struct caps){.effective = keep, .permitted = keep, .inheritable = 0};
	if (caps_set(&now))
		return fail(err, errlen, "capset: %s", strerror(errno));
	if (caps_get(&now) || now.effective != keep || now.permitted != keep || now.inheritable)
		return fail(err, errlen, "capabilities were not reduced");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return fail(err, errlen, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	return 0;
}

int zt_sandbox_filter(const struct zt_sandbox_config *cfg, char *err, size_t errlen)
{
	/* libc reads the time zone file on first use: do it while open()
	 * still works, so log time stamps stay local. */
	tzset();
#ifdef ZINCTUN_TEST_HOOKS
	zt_testhook_arm();
#endif
	if (!prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0))
		return fail(err, errlen, "the filter comes after zt_sandbox_drop");
	return cfg->seccomp ? install_filter(cfg, err, errlen) : 0;
}

int zt_sandbox_enter(const struct zt_sandbox_config *cfg, char *err, size_t errlen)
{
	if (zt_sandbox_drop(cfg, err, errlen))
		return -1;
	return zt_sandbox_filter(cfg, err, errlen);
}

int zt_sandbox_socket_unprivileged(int domain, int type, int protocol, uint64_t keep)
{
	struct caps have, lowered;
	int fd, saved;

	if (caps_get(&have))
		return -1;
	lowered = have;
	lowered.effective &= keep;
	if (lowered.effective != have.effective && caps_set(&lowered))
		return -1;
	fd = socket(domain, type, protocol);
	saved = errno;
	if (lowered.effective != have.effective && caps_set(&have)) {
		if (fd >= 0)
			close(fd);
		return -1; /* cannot happen: effective back within permitted */
	}
	errno = saved;
	return fd;
}
