/* One memory budget for lwIP: every byte of its heap (the packets it
 * holds: received, out of order, queued to send) comes from malloc through
 * lwipmem_malloc (lwipopts.h: mem_clib_malloc), which refuses what would
 * take the total past the budget. lwIP then drops the packet (the peer's
 * TCP retransmits it) or tcp_write says ERR_MEM; the process never runs
 * out. lwIP's fixed pools (pcbs, segments, timers) are outside it. */
#ifndef ZTP_LWIPMEM_H
#define ZTP_LWIPMEM_H

#include <stddef.h>

enum { LWIPMEM_DEFAULT_MIB = 32 };

/* Before lwIP starts; 0 keeps the default. */
void lwipmem_set_budget(size_t bytes);
/* What lwIP holds now, in bytes (malloc's usable sizes). */
size_t lwipmem_used(void);

#endif
