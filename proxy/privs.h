/* zinctun-proxy's least privilege: the daemon's sandbox (daemon/sandbox.h)
 * with its proxy profile, in two steps around lwIP's thread. */
#ifndef ZTP_PRIVS_H
#define ZTP_PRIVS_H

#include "cli.h"
#include "proxy_conf.h"

/* Before any thread starts (lwIP's tcpip_init), after the configuration
 * socket exists: the user (nobody when root, or opt->user), no capability
 * (CAP_NET_BIND_SERVICE only while a host listener of conf binds a port
 * below 1024 and the process has it), no_new_privs. 0, or -1 said on
 * stderr. */
int privs_drop(const struct proxy_conf *conf, const struct zt_options *opt);

/* Once every listener is bound, before the data path starts: the seccomp
 * filter (ZINCTUN_SECCOMP), on every thread. 0, or -1 said on stderr. */
int privs_filter(void);

#endif
