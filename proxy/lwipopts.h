/* lwIP's build options for zinctun-proxy (Makefile: lwIP is compiled from
 * Debian's source package with this file): only what differs from lwIP's
 * defaults (lwip/opt.h), and why. Memory is bounded: fixed pools for pcbs
 * and segments, packet data from malloc through one budget (lwipmem.h).
 * lwIP's defaults keep loopback off: a packet to the tunnel's own address
 * goes to the tunnel, never back to lwIP's own listeners.
 * Plain numbers only: lwIP tests several of these with #if. */
#ifndef ZTP_LWIPOPTS_H
#define ZTP_LWIPOPTS_H

#include <stddef.h>

/* threads, and one core lock that every lwIP call holds (stack.h) */
#define LWIP_NETCONN 0
#define LWIP_SOCKET 0
void sys_check_core_locking(void);
#define LWIP_ASSERT_CORE_LOCKED() sys_check_core_locking()
void sys_mark_tcpip_thread(void);
#define LWIP_MARK_TCPIP_THREAD() sys_mark_tcpip_thread()
void sys_lock_tcpip_core(void);
#define LOCK_TCPIP_CORE() sys_lock_tcpip_core()
void sys_unlock_tcpip_core(void);
#define UNLOCK_TCPIP_CORE() sys_unlock_tcpip_core()

/* a point-to-point netif for IPv4 and IPv6 (stack.c): no ARP, Ethernet,
 * MLD or SLAAC; no statistics */
#define LWIP_IPV6 1
#define LWIP_RAW 1 /* CheckAlive's echoes (health.c) */
#define LWIP_ARP 0
#define LWIP_IPV6_MLD 0
#define LWIP_IPV6_AUTOCONFIG 0
#define LWIP_IPV6_DUP_DETECT_ATTEMPTS 0
#define LWIP_IPV6_SEND_ROUTER_SOLICIT 0
#define LWIP_STATS 0
#define LWIP_NETIF_TX_SINGLE_PBUF 1 /* stack_emit seals one buffer */
#define LWIP_CHECKSUM_ON_COPY 1

/* TCP: the window a connection into the tunnel opens to, ~1 MiB (a round
 * trip's worth at several Gbit/s, and the most a client that does not
 * read holds), which scale 4 can announce */
#define TCP_MSS 1460
#define LWIP_WND_SCALE 1
#define TCP_RCV_SCALE 4
#define TCP_WND (0xFFFFU << TCP_RCV_SCALE)
#define TCP_SND_BUF 0xFFFF
/* SACK: a loss in a full window costs the sender one round trip, not a
 * retransmitted window (no SACK: it resends everything after the hole) */
#define LWIP_TCP_SACK_OUT 1
#define LWIP_TCP_MAX_SACK_NUM 4
/* out of order, per connection: a loss in a full window keeps 256 KiB,
 * a flood of one-byte segments at most 64 of them (~10 KiB) */
#define TCP_OOSEQ_MAX_BYTES (256 * 1024)
#define TCP_OOSEQ_MAX_PBUFS 64
/* each listener's half-open and unaccepted connections, at most its
 * backlog (tcp_listen_with_backlog; a SYN flood: lwip_hooks.h) */
#define TCP_LISTEN_BACKLOG 1

/* memory: packet data through the budget (lwipmem.c), the rest in pools */
#define MEM_ALIGNMENT 8
#define MEM_LIBC_MALLOC 1
void *lwipmem_malloc(size_t size);
void *lwipmem_calloc(size_t n, size_t size);
void lwipmem_free(void *p);
#define mem_clib_malloc lwipmem_malloc
#define mem_clib_calloc lwipmem_calloc
#define mem_clib_free lwipmem_free
/* TCP connections in the tunnel at once, TIME_WAIT included (a full pool
 * makes lwIP recycle the oldest of those itself) */
#define MEMP_NUM_TCP_PCB 4096
#define MEMP_NUM_TCP_PCB_LISTEN 256 /* PROXY_CONF_MAX_LISTENERS */
/* queued segments of all connections: sent and unacknowledged, and out of
 * order; past it, tcp_write says ERR_MEM (conn.c retries) */
#define MEMP_NUM_TCP_SEG 16384
/* DNS lookups, UDP flows and SOCKS relays; each lookup also holds a timer,
 * so the timers cannot run out before the UDP pcbs do; one more for the
 * CheckAlive rounds */
#define MEMP_NUM_UDP_PCB 1024
#define MEMP_NUM_SYS_TIMEOUT (LWIP_NUM_SYS_TIMEOUT_INTERNAL + MEMP_NUM_UDP_PCB + 1)
#define MEMP_NUM_PBUF 64 /* PBUF_REF/ROM: fragments sent */
#define PBUF_POOL_SIZE 0 /* PBUF_POOL: unused, input pbufs are the sink's */

/* lwIP's udp_init, udp_bind and udp_send under other names: the daemon's
 * UDP layer (daemon/udp.h), linked into the same program, has its own */
#define udp_init lwip_udp_init
#define udp_bind lwip_udp_bind
#define udp_send lwip_udp_send

#define LWIP_HOOK_FILENAME "lwip_hooks.h"
#define LWIP_HOOK_TCP_INPACKET_PCB lwip_hook_tcp_inpacket

#endif
