/* The hooks lwIP calls (lwipopts.h names them), compiled into lwIP itself
 * through LWIP_HOOK_FILENAME. */
#ifndef ZTP_LWIP_HOOKS_H
#define ZTP_LWIP_HOOKS_H

#include "lwip/err.h"

struct pbuf;
struct tcp_hdr;
struct tcp_pcb;

/* LWIP_HOOK_TCP_INPACKET_PCB, for every segment that found a pcb, before
 * lwIP handles it:
 *  - a SYN for a listener whose backlog is full frees the least recently
 *    active of that listener's half-open connections (no RST: a flood's
 *    SYN-ACKs go unanswered anyway), so that a SYN flood holds at most a
 *    backlog of pcbs and a real client's handshake still gets one;
 *  - data past a gap, on a connection whose out-of-order queue is full
 *    (TCP_OOSEQ_MAX_PBUFS), is dropped at once (ERR_BUF): lwIP would drop
 *    it too, after two walks of the queue and a duplicate ACK, which an
 *    out-of-order flood would make it do for every segment.
 * Else ERR_OK: lwIP handles the segment. */
err_t lwip_hook_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen, u16_t opt1len,
			     u8_t *opt2, struct pbuf *p);

#endif
