/* An lwIP stack in the test's own thread, as zinctun-proxy builds it
 * (proxy/lwipopts.h): one point-to-point netif whose packets out are
 * caught, and IPv4 TCP segments from a peer put in (valid checksums,
 * rfc1071.h). lwip_init without the tcpip thread: no timer runs, so each
 * check sees exactly what its segments did. */
#ifndef ZT_TESTS_LWIP_HARNESS_H
#define ZT_TESTS_LWIP_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lwip/init.h"
#include "lwip/ip.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/tcp.h"

#include "rfc1071.h"

enum {
	H_IP4 = 20,
	H_TCP = 20,
	H_SYN_OPTS = 12, /* MSS, NOP, window scale 7, NOP, NOP, SACK permitted */
	H_OUT_MAX = 2048,
	H_FIN = 0x01,
	H_SYN = 0x02,
	H_RST = 0x04,
	H_ACK = 0x10,
	H_PEER_WND = 0xffff,
};

static struct netif h_netif;
static uint8_t h_out[H_OUT_MAX]; /* the last packet lwIP sent */
static size_t h_out_len;
static unsigned h_outs;	 /* packets lwIP sent */
static unsigned h_drops; /* segments whose pbuf could not be had */

static const uint8_t H_PEER[4] = {10, 98, 0, 1}, H_SELF[4] = {10, 98, 0, 2};

static inline err_t h_output(struct netif *n, struct pbuf *p, const ip4_addr_t *dst)
{
	(void)n;
	(void)dst;
	h_out_len = pbuf_copy_partial(p, h_out, sizeof(h_out), 0);
	h_outs++;
	return ERR_OK;
}

static inline err_t h_netif_init(struct netif *n)
{
	n->mtu = 1420;
	n->output = h_output;
	n->flags = 0;
	return ERR_OK;
}

static inline void h_start(void)
{
	ip4_addr_t a, mask, gw;

	lwip_init();
	IP4_ADDR(&a, H_SELF[0], H_SELF[1], H_SELF[2], H_SELF[3]);
	IP4_ADDR(&mask, 255, 255, 255, 255);
	ip4_addr_set_any(&gw);
	netif_add(&h_netif, &a, &mask, &gw, NULL, h_netif_init, ip_input);
	netif_set_default(&h_netif);
	netif_set_link_up(&h_netif);
	netif_set_up(&h_netif);
}

static inline void h_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint32_t h_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A segment from the peer's sport to our dport into lwIP; a SYN carries
 * MSS, window scale and SACK-permitted options, as Linux's does. False if no pbuf could be had for
 * it (counted in h_drops). */
static inline bool h_send(uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags,
			  const void *data, size_t len)
{
	uint8_t pkt[H_IP4 + H_TCP + H_SYN_OPTS + 1500];
	size_t opts = (flags & H_SYN) ? H_SYN_OPTS : 0, tot = H_IP4 + H_TCP + opts + len;
	uint8_t *t = pkt + H_IP4;
	struct pbuf *p;
	uint16_t c;

	memset(pkt, 0, H_IP4 + H_TCP + opts);
	pkt[0] = 0x45;
	pkt[2] = (uint8_t)(tot >> 8);
	pkt[3] = (uint8_t)tot;
	pkt[8] = 64;
	pkt[9] = 6;
	memcpy(pkt + 12, H_PEER, 4);
	memcpy(pkt + 16, H_SELF, 4);
	c = (uint16_t)~rfc1071_fold(rfc1071_add(0, pkt, H_IP4));
	pkt[10] = (uint8_t)(c >> 8);
	pkt[11] = (uint8_t)c;
	t[0] = (uint8_t)(sport >> 8);
	t[1] = (uint8_t)sport;
	t[2] = (uint8_t)(dport >> 8);
	t[3] = (uint8_t)dport;
	h_put32(t + 4, seq);
	h_put32(t + 8, ack);
	t[12] = (uint8_t)(((H_TCP + opts) / 4) << 4);
	t[13] = flags;
	t[14] = H_PEER_WND >> 8;
	t[15] = H_PEER_WND & 0xff;
	if (opts)
		memcpy(t + H_TCP,
		       (const uint8_t[H_SYN_OPTS]){2, 4, 0x05, 0x8c, 1, 3, 3, 7, 1, 1, 4, 2}, opts);
	if (len)
		memcpy(t + H_TCP + opts, data, len);
	c = (uint16_t)~rfc1071_l4_sum(pkt, tot, H_IP4, 6);
	t[16] = (uint8_t)(c >> 8);
	t[17] = (uint8_t)c;
	p = pbuf_alloc(PBUF_RAW, (u16_t)tot, PBUF_RAM);
	if (!p) {
		h_drops++;
		return false;
	}
	memcpy(p->payload, pkt, tot);
	if (h_netif.input(p, &h_netif) != ERR_OK)
		pbuf_free(p);
	return true;
}

/* The TCP flags, sequence and acknowledgement numbers of the last packet
 * lwIP sent (flags 0 if none or not TCP). */
static inline uint8_t h_out_flags(uint32_t *seq, uint32_t *ack)
{
	const uint8_t *t = h_out + H_IP4;

	if (h_out_len < H_IP4 + H_TCP || h_out[9] != 6)
		return 0;
	*seq = h_get32(t + 4);
	*ack = h_get32(t + 8);
	return t[13];
}

/* Handshake from the peer's sport with initial sequence isn: true once
 * lwIP answered the SYN; *ours is lwIP's next sequence number. */
static inline bool h_connect(uint16_t sport, uint16_t dport, uint32_t isn, uint32_t *ours)
{
	uint32_t seq, ack;

	h_out_len = 0;
	h_send(sport, dport, isn, 0, H_SYN, NULL, 0);
	if (h_out_flags(&seq, &ack) != (H_SYN | H_ACK) || ack != isn + 1)
		return false;
	*ours = seq + 1;
	h_send(sport, dport, isn + 1, *ours, H_ACK, NULL, 0);
	return true;
}

/* A receive callback that takes every byte in (counted in h_received). */
static size_t h_received;

static inline err_t h_on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	(void)arg;
	(void)err;
	if (!p)
		return ERR_OK;
	h_received += p->tot_len;
	tcp_recved(pcb, p->tot_len);
	pbuf_free(p);
	return ERR_OK;
}

/* The pcbs in state st on list (tcp_active_pcbs, tcp_tw_pcbs) for port. */
static inline unsigned h_count(struct tcp_pcb *list, enum tcp_state st, uint16_t port)
{
	unsigned n = 0;

	for (struct tcp_pcb *p = list; p; p = p->next)
		n += p->state == st && p->local_port == port;
	return n;
}

#endif
