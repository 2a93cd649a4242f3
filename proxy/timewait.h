/* A bound on lwIP's TIME_WAIT connections. lwIP keeps a connection it
 * closed first in TIME_WAIT for 2 * TCP_MSL (2 minutes), with no limit
 * when its pools are malloc'd (Debian's build), and a new connection's
 * local port must differ from every one of theirs: past about 136
 * connections a second (16384 ephemeral ports in 120 s) every connect
 * failed, and each connect and each segment that finds no active
 * connection walked the whole list. Linux bounds them the same way
 * (tcp_max_tw_buckets). Dropping the oldest gives up little: lwIP hands
 * out local ports in turn, so a port comes back only after 16384 other
 * connections, long after the bound has dropped its TIME_WAIT anyway. */
#ifndef ZTP_TIMEWAIT_H
#define ZTP_TIMEWAIT_H

enum { TIMEWAIT_MAX = 1024 };

/* Under the core lock: frees the oldest TIME_WAIT connections beyond max
 * (no segment is sent for them). Returns how many it freed. */
unsigned timewait_trim(unsigned max);

#endif
