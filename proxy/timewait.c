/* Bounding lwIP's TIME_WAIT list (timewait.h). */
#include "timewait.h"

#include "lwip/priv/tcp_priv.h"

unsigned timewait_trim(unsigned max)
{
	struct tcp_pcb *p = tcp_tw_pcbs;
	unsigned kept = 0, freed = 0;

	/* lwIP puts a connection entering TIME_WAIT at the head of the
	 * list: newest first, so the ones past the first max are the oldest */
	while (p && kept < max) {
		p = p->next;
		kept++;
	}
	while (p) {
		struct tcp_pcb *next = p->next;

		tcp_abort(p); /* in TIME_WAIT: unlinked and freed, no RST */
		freed++;
		p = next;
	}
	return freed;
}
