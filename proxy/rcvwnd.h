/* A tunnel connection's receive window beyond lwIP's build-time TCP_WND.
 * Debian's lwIP has TCP_WND 0xFFFF with window scaling (TCP_RCV_SCALE 1),
 * so the header could announce up to 128 KiB, and tcp_recved caps the
 * window at TCP_WND: one connection then has at most 64 KiB in flight,
 * which bounds a download to 64 KiB per round trip through both
 * WireGuard ends. These calls keep the window in the pcb's own fields
 * (rcv_wnd, announced through tcp_update_rcv_ann_wnd as lwIP does) up to
 * what the pcb's scale can announce, at most RCVWND_LIMIT, once the peer
 * agreed to window scaling; without it, they are tcp_recved. The
 * connections lwIP opens announce the larger RCVWND_SCALE (synscale.h,
 * rcvwnd_connected), and so do those it accepts. A client that
 * does not read then holds at most one such window of the proxy's
 * memory. */
#ifndef ZTP_RCVWND_H
#define ZTP_RCVWND_H

#include <stdbool.h>
#include <stddef.h>

#include "lwip/tcp.h"

/* The shift lwIP's SYNs and SYN-ACKs announce instead of TCP_RCV_SCALE,
 * and the most a grown window opens to: a round trip's worth at several
 * Gbit/s, and what a client that does not read may hold of the proxy's
 * memory. */
#define RCVWND_SCALE 4
#define RCVWND_LIMIT ((tcpwnd_size_t)1 << 20)

/* the most a pcb announcing with shift scale can open to */
#define RCVWND_MAX_AT(scale)                                                                       \
	((tcpwnd_size_t)0xFFFFu << (scale) < RCVWND_LIMIT ? (tcpwnd_size_t)0xFFFFu << (scale)      \
							  : RCVWND_LIMIT)

/* A connection is grown once it has had a write to the host of at least
 * this much: a short exchange (a handshake, an echo) gets no extra window
 * update packet. */
#define RCVWND_BULK ((size_t)TCP_WND / 4)

/* In the callback where a connection becomes established (connected, for
 * one lwIP opened; accept, for one it accepted), its SYN or SYN-ACK having
 * gone out with RCVWND_SCALE: from now on its windows are announced with
 * that shift, if the peer agreed to window scaling. */
void rcvwnd_connected(struct tcp_pcb *pcb);
/* Opens the window from TCP_WND to its most; the next rcvwnd_recved
 * announces it (one window update for both). */
void rcvwnd_grow(struct tcp_pcb *pcb);
/* n bytes were taken by the application: tcp_recved, past TCP_WND. */
void rcvwnd_recved(struct tcp_pcb *pcb, size_t n);
/* Before tcp_close: lwIP sends an RST instead of a FIN when rcv_wnd is not
 * TCP_WND_MAX (its test for unread data), which a grown window never is:
 * rcv_wnd is set to say whether the application left bytes unread. */
void rcvwnd_settle(struct tcp_pcb *pcb, bool unread);

#endif
