/* lwIP's hooks (lwip_hooks.h). Under the core lock, inside tcp_input. */
#include "lwip_hooks.h"

#include <stdbool.h>

#include "lwip/priv/tcp_priv.h"
#include "lwip/prot/tcp.h"

/* New pcbs go to the head of the list, and one that gets a segment moves
 * there: the least recently active is the last one. */
static void listener_make_room(struct tcp_pcb_listen *lpcb)
{
	struct tcp_pcb *oldest = NULL;

	for (struct tcp_pcb *a = tcp_active_pcbs; a; a = a->next)
		if (a->state == SYN_RCVD && a->listener == lpcb)
			oldest = a;
	if (oldest)
		tcp_abandon(oldest, 0); /* tells the listener's backlog */
}

static bool ooseq_full(const struct tcp_pcb *pcb)
{
	unsigned n = 0;

	for (const struct tcp_seg *s = pcb->ooseq; s; s = s->next)
		if (++n >= TCP_OOSEQ_MAX_PBUFS)
			return true;
	return false;
}

err_t lwip_hook_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen, u16_t opt1len,
			     u8_t *opt2, struct pbuf *p)
{
	struct tcp_pcb_listen *lpcb = (struct tcp_pcb_listen *)pcb;

	(void)optlen;
	(void)opt1len;
	(void)opt2;
	if (pcb->state == LISTEN) {
		if ((TCPH_FLAGS(hdr) & (TCP_SYN | TCP_ACK | TCP_RST)) == TCP_SYN &&
		    lpcb->accepts_pending >= lpcb->backlog)
			listener_make_room(lpcb);
		return ERR_OK;
	}
	/* tcp_input has put hdr's numbers in host order */
	if (p->tot_len && pcb->state != TIME_WAIT && pcb->ooseq &&
	    TCP_SEQ_GT(hdr->seqno, pcb->rcv_nxt) && ooseq_full(pcb))
		return ERR_BUF;
	return ERR_OK;
}
