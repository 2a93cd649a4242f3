/* The grown receive window (rcvwnd.h). Under the core lock. */
#include "rcvwnd.h"

#include "lwip/priv/tcp_priv.h"

/* the most this pcb's header can carry, up to RCVWND_LIMIT */
static tcpwnd_size_t rcvwnd_max(const struct tcp_pcb *pcb)
{
	return (pcb->flags & TF_WND_SCALE) ? RCVWND_MAX_AT(pcb->rcv_scale) : TCP_WND_MAX(pcb);
}

void rcvwnd_connected(struct tcp_pcb *pcb)
{
	if (pcb->flags & TF_WND_SCALE)
		pcb->rcv_scale = RCVWND_SCALE;
}

/* As tcp_recved ends: announce, and send a window update when it grew
 * enough to be worth one. */
static void rcvwnd_announce(struct tcp_pcb *pcb)
{
	if (tcp_update_rcv_ann_wnd(pcb) >= TCP_WND_UPDATE_THRESHOLD) {
		tcp_ack_now(pcb);
		tcp_output(pcb);
	}
}

void rcvwnd_grow(struct tcp_pcb *pcb)
{
	tcpwnd_size_t max = rcvwnd_max(pcb), extra = max - TCP_WND_MAX(pcb);

	pcb->rcv_wnd = pcb->rcv_wnd + extra > max ? max : pcb->rcv_wnd + extra;
}

void rcvwnd_recved(struct tcp_pcb *pcb, size_t n)
{
	tcpwnd_size_t max = rcvwnd_max(pcb);

	pcb->rcv_wnd =
	    n >= max || pcb->rcv_wnd + n >= max ? max : (tcpwnd_size_t)(pcb->rcv_wnd + n);
	rcvwnd_announce(pcb);
}

void rcvwnd_settle(struct tcp_pcb *pcb, bool unread)
{
	if (!(pcb->flags & TF_WND_SCALE))
		return; /* never grown: lwIP's own count */
	pcb->rcv_wnd = unread ? TCP_WND_MAX(pcb) - 1 : TCP_WND_MAX(pcb);
}
