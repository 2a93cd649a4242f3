/* The proxy's sandbox steps (privs.h). */
#include "privs.h"

#include <stdio.h>
#include <unistd.h>

#include "log.h"
#include "sandbox.h"

enum { PRIVILEGED_PORT_END = 1024 }; /* ports below it need CAP_NET_BIND_SERVICE */

static struct zt_sandbox_config cfg;

/* A host-side listener that must bind a port below 1024. */
static bool low_port(const struct proxy_conf *conf)
{
	for (size_t i = 0; i < conf->n_listeners; i++)
		if (conf->listeners[i].kind != PROXY_TCP_SERVER &&
		    conf->listeners[i].kind != PROXY_STDIO &&
		    conf->listeners[i].bind.port < PRIVILEGED_PORT_END)
			return true;
	return false;
}

int privs_drop(const struct proxy_conf *conf, const struct zt_options *opt)
{
	char err[256];

	cfg = (struct zt_sandbox_config){
	    .profile = ZT_SANDBOX_PROXY,
	    .user = opt->user,
	    .need_bind_service = low_port(conf),
	    .seccomp = opt->seccomp,
	    .seccomp_kill = opt->seccomp_kill,
	};
	if (zt_sandbox_drop(&cfg, err, sizeof(err))) {
		fprintf(stderr, "zinctun-proxy: cannot drop privileges: %s\n", err);
		return -1;
	}
	return 0;
}

int privs_filter(void)
{
	char err[256];

	if (zt_sandbox_filter(&cfg, err, sizeof(err))) {
		fprintf(stderr, "zinctun-proxy: cannot install the seccomp filter: %s\n", err);
		return -1;
	}
	log_debug("Privileges dropped (uid %u, seccomp %s)", (unsigned)getuid(),
		  cfg.seccomp ? (cfg.seccomp_kill ? "kill" : "on") : "off");
	return 0;
}
