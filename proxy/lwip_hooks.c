/* lwIP's hooks (lwip_hooks.h). Under the core lock, inside tcp_input. */
#include "lwip_hooks.h"

#include "lwip/priv/tcp_priv.h"
#include "lwip/prot/tcp.h"

err_t lwip_hook_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen, u16_t opt1len,
			     u8_t *opt2, struct pbuf *p)
{
	struct tcp_pcb_listen *lpcb = (struct tcp_pcb_listen *)pcb;
	struct tcp_pcb *oldest = NULL;

	(void)optlen;
	(void)opt1len;
	(void)opt2;
	(void)p;
	if (pcb->state != LISTEN || (TCPH_FLAGS(hdr) & (TCP_SYN | TCP_ACK | TCP_RST)) != TCP_SYN ||
	    lpcb->accepts_pending < lpcb->backlog)
		return ERR_OK;
	/* new pcbs go to the head, and one that gets a segment moves there:
	 * the last one in the list is the least recently active */
	for (struct tcp_pcb *a = tcp_active_pcbs; a; a = a->next)
		if (a->state == SYN_RCVD && a->listener == lpcb)
			oldest = a;
	if (oldest)
		tcp_abandon(oldest, 0); /* tells the listener's backlog */
	return ERR_OK;
}
