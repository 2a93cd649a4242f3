/* Least privilege after start-up: capabilities, user and a seccomp filter
 * (what stays and what goes: zinctun(8), --user and "Sandbox").
 *
 * Entered once the TUN device, the UDP sockets, the netlink link monitor
 * and the config socket exist, and BEFORE any thread starts: capabilities,
 * user ids and no_new_privs are per thread on Linux, so a thread created
 * earlier would keep its privileges (zt_sandbox_drop refuses then). Threads
 * created afterwards inherit everything. The proxy profile keeps no
 * capability but CAP_NET_BIND_SERVICE when asked, and may connect().
 */
#ifndef ZT_SANDBOX_H
#define ZT_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The user by default. nobody owns no files; the daemon, holding
 * capabilities that other nobody processes lack, cannot be traced by them
 * (and becomes non-dumpable when its ids change), and the filter keeps it
 * from signalling them. Where /etc/passwd has no nobody: the kernel's
 * overflow id, which is what nobody is everywhere. */
#define ZT_SANDBOX_DEFAULT_USER "nobody"
#define ZT_SANDBOX_DEFAULT_ID 65534

enum zt_sandbox_profile {
	ZT_SANDBOX_DAEMON, /* keeps CAP_NET_ADMIN; no connect */
	ZT_SANDBOX_PROXY,  /* zinctun-proxy: no capability; connect allowed */
};

enum { ZT_SANDBOX_NETLINK_MAX = 2 };

struct zt_sandbox_config {
	enum zt_sandbox_profile profile;
	const char *user;			 /* NULL: ZT_SANDBOX_DEFAULT_USER when root; a name
						  * or number; one with uid 0 stays root */
	bool need_bind_service;			 /* keep CAP_NET_BIND_SERVICE */
	bool seccomp;				 /* install the syscall filter */
	bool seccomp_kill;			 /* forbidden syscall kills instead of EPERM */
	int netlink_fds[ZT_SANDBOX_NETLINK_MAX]; /* rtnetlink sockets (linkmon) */
	unsigned n_netlink_fds;
};

/* 0 on success; -1 with a message in err on failure, in which case the
 * caller should exit: the process may be half-restricted. */
int zt_sandbox_enter(const struct zt_sandbox_config *cfg, char *err, size_t errlen);

/* zt_sandbox_enter in two steps, for a start-up whose threads begin before
 * it is done (the proxy: lwIP's thread): zt_sandbox_drop (user,
 * capabilities, no_new_privs) while there is one thread; later, once the
 * listeners and the config socket exist, zt_sandbox_filter, which installs
 * the filter on every thread (SECCOMP_FILTER_FLAG_TSYNC). */
int zt_sandbox_drop(const struct zt_sandbox_config *cfg, char *err, size_t errlen);
int zt_sandbox_filter(const struct zt_sandbox_config *cfg, char *err, size_t errlen);

/* socket() with only the capabilities in keep (a mask of 1 << CAP_*)
 * effective for the call: the kernel checks the opener's credentials,
 * besides the sender's, for rtnetlink changes (none on such a socket) and
 * for events of other namespaces (CAP_NET_BROADCAST). */
int zt_sandbox_socket_unprivileged(int domain, int type, int protocol, uint64_t keep);

#endif
