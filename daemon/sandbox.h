/* Least privilege after start-up: capabilities, user and a seccomp filter.
 *
 * Call once, after the TUN device, the UDP sockets, the netlink link monitor
 * and the config socket exist, and BEFORE starting any thread: capabilities,
 * user ids and no_new_privs are per thread on Linux, so a thread created
 * earlier would keep its privileges. zt_sandbox_enter() refuses (returns -1)
 * when the process already has more than one thread. Threads created
 * afterwards inherit everything.
 *
 * What remains: CAP_NET_ADMIN (SO_MARK for fwmark, interface ioctls) and,
 * when asked, CAP_NET_BIND_SERVICE (listen ports < 1024), permitted and
 * effective; every other capability is dropped from all sets, including the
 * bounding set; no_new_privs is set; then a syscall allowlist is installed:
 * anything else fails with EPERM, or kills the process (SIGSYS) with
 * seccomp_kill. Sockets can still be made for AF_UNIX, AF_INET, AF_INET6 and
 * AF_NETLINK (listen port changes, config socket re-creation); execve,
 * fork, ptrace, mount, module loading, raw packet sockets and file opening
 * are gone. clone3 fails with ENOSYS so that libc falls back to clone,
 * whose flags the filter can check (threads only); open/openat fail with
 * EPERM even in kill mode (glibc's malloc tries one /proc file at run time).
 */
#ifndef ZT_SANDBOX_H
#define ZT_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

struct zt_sandbox_config {
	const char *user;       /* NULL: stay root (uid 0, capabilities reduced) */
	bool need_bind_service; /* keep CAP_NET_BIND_SERVICE */
	bool seccomp;           /* install the syscall filter */
	bool seccomp_kill;      /* forbidden syscall kills instead of EPERM */
};

/* 0 on success; -1 with a message in err on failure, in which case the
 * caller should exit: the process may be half-restricted. */
int zt_sandbox_enter(const struct zt_sandbox_config *cfg, char *err, size_t errlen);

#endif
