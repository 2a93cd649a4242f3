/* Test builds only (-DZINCTUN_TEST_HOOKS: build/zinctun-testhooks; the
 * shipped zinctun has none of this). With ZINCTUN_TEST_ESCAPE=DIR in the
 * environment, SIGUSR2 makes the running daemon try, on files in DIR, what
 * a compromised daemon would (open, chmod, chown, unlink, mkdir, rename,
 * link, symlink, connect to a unix socket, signal init or read its limits,
 * exec, ptrace ZINCTUN_TEST_TRACEE's pid, an AF_PACKET socket, SIOCSIFADDR
 * on lo, RTM_NEWROUTE / RTM_DELLINK on its rtnetlink sockets, dup of one)
 * and write one line per attempt to stderr: "zinctun-testhook: NAME
 * refused errno=N" or "zinctun-testhook: NAME ALLOWED", then
 * "zinctun-testhook: done uid=N".
 * tests/scripts/test_e2e_sandbox.sh (and test_e2e_proxy_sandbox.sh, with
 * zinctun-proxy-testhooks) lays DIR out and checks the results. */
#ifndef ZT_TESTHOOK_H
#define ZT_TESTHOOK_H

#ifdef ZINCTUN_TEST_HOOKS
/* From zt_sandbox_enter(), before the filter: the signal handler, the
 * paths, and an AF_UNIX socket made while that is still allowed, so that
 * connect() itself is tried later. */
void zt_testhook_arm(void);
/* 1 with ZINCTUN_TEST_QEMU_USER=1 (the daemon under qemu-user, which runs
 * a thread of its own: test_e2e_cross_arm64), else 0: the threads
 * zt_sandbox_drop() leaves out of its single-thread check. */
int zt_testhook_emulator_threads(void);
#endif

#endif
