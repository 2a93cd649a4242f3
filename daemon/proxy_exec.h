/* zinctun --proxy FILE: hands over to the rootless proxy, zinctun-proxy,
 * installed in the same directory as the zinctun binary. */
#ifndef ZT_PROXY_EXEC_H
#define ZT_PROXY_EXEC_H

#define ZT_PROXY_BINARY "zinctun-proxy"

/* Execs ZT_PROXY_BINARY beside /proc/self/exe with file as its argument
 * (and --user user, unless NULL) and this process's environment. Returns only on failure, 1, after
 * one line on stderr saying what is missing. */
int proxy_exec(const char *file, const char *user);

#endif
