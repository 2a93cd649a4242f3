/* zinctun-proxy's lwIP build (proxy/lwipopts.h, proxy/lwip_hooks.c) holds
 * what a hostile peer in the tunnel could otherwise take:
 *  - out of order: 10,000 one-byte segments two bytes apart on one
 *    connection leave at most TCP_OOSEQ_MAX_PBUFS of them queued and a
 *    few KiB of heap, and past that cap a segment is dropped before lwIP
 *    acknowledges it (no ACK sent per segment of the flood); the connection
 *    delivers once the gap is filled;
 *  - SYN flood: a listener with backlog 4 given 200 SYNs holds at most 4
 *    half-open pcbs, and the newest SYN's handshake still completes;
 *  - TIME_WAIT: 5,000 connections that the proxy closed first leave at
 *    most MEMP_NUM_TCP_PCB pcbs in TIME_WAIT (lwIP recycles the oldest
 *    when its pool is full), and every one of them was accepted. */
#include <malloc.h>

#include "lwip_harness.h"
#include "test.h"

enum {
	PORT_OOS = 7001,
	PORT_SYN = 7002,
	PORT_TW = 7003,
	OOS_SEGS = 10000,
	OOS_HEAP_MAX = 64 * 1024, /* bytes the whole flood may leave on the heap */
	SYN_BACKLOG = 4,
	SYNS = 200,
	TW_CONNS = 5000,
	TW_MAX = 4096, /* MEMP_NUM_TCP_PCB */
	PEER_PORT0 = 20000,
	ISN = 1000,
};

static struct tcp_pcb *accepted;
static unsigned n_accepted;
static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	accepted = pcb;
	n_accepted++;
	tcp_recv(pcb, h_on_recv);
	return ERR_OK;
}

static struct tcp_pcb *listen_on(uint16_t port, u8_t backlog)
{
	struct tcp_pcb *pcb = tcp_new_ip_type(IPADDR_TYPE_V4), *l;

	if (!pcb || tcp_bind(pcb, IP4_ADDR_ANY, port) != ERR_OK)
		return NULL;
	l = tcp_listen_with_backlog(pcb, backlog);
	if (l)
		tcp_accept(l, on_accept);
	return l;
}

static unsigned ooseq_len(const struct tcp_pcb *pcb)
{
	unsigned n = 0;

	for (const struct tcp_seg *s = pcb->ooseq; s; s = s->next)
		n++;
	return n;
}

static void test_out_of_order(void)
{
	uint32_t ours = 0;
	unsigned outs0;
	size_t heap0;
	uint8_t byte = 'x';

	CHECK(listen_on(PORT_OOS, SYN_BACKLOG) != NULL);
	CHECK(h_connect(PEER_PORT0, PORT_OOS, ISN, &ours));
	CHECK(accepted != NULL);
	if (!accepted)
		return;
	heap0 = mallinfo2().uordblks;
	outs0 = h_outs;
	/* the first byte never comes: everything waits out of order */
	for (uint32_t i = 1; i <= OOS_SEGS; i++)
		h_send(PEER_PORT0, PORT_OOS, ISN + 1 + 2 * i, ours, H_ACK, &byte, 1);
	CHECK(TCP_OOSEQ_MAX_PBUFS > 0 && ooseq_len(accepted) <= TCP_OOSEQ_MAX_PBUFS);
	CHECK(mallinfo2().uordblks < heap0 + OOS_HEAP_MAX);
	CHECK(h_outs - outs0 <= 2 * TCP_OOSEQ_MAX_PBUFS);
	/* the gap filled: the byte and what was kept of what follows arrive */
	h_send(PEER_PORT0, PORT_OOS, ISN + 1, ours, H_ACK, &byte, 1);
	CHECK(h_received >= 1);
}

static void test_syn_flood(void)
{
	uint32_t ours = 0, seq = 0, ack = 0;
	unsigned before = n_accepted;
	uint16_t last = PEER_PORT0 + SYNS;

	CHECK(listen_on(PORT_SYN, SYN_BACKLOG) != NULL);
	for (uint16_t i = 1; i < SYNS; i++)
		h_send(PEER_PORT0 + i, PORT_SYN, ISN, 0, H_SYN, NULL, 0);
	CHECK(h_count(tcp_active_pcbs, SYN_RCVD, PORT_SYN) <= SYN_BACKLOG);
	/* a real client's SYN, among the flood's: answered, and accepted */
	h_out_len = 0;
	h_send(last, PORT_SYN, ISN, 0, H_SYN, NULL, 0);
	CHECK(h_out_flags(&seq, &ack) == (H_SYN | H_ACK) && ack == ISN + 1);
	ours = seq + 1;
	h_send(last, PORT_SYN, ISN + 1, ours, H_ACK, NULL, 0);
	CHECK(n_accepted == before + 1);
	CHECK(accepted && accepted->remote_port == last && accepted->state == ESTABLISHED);
	CHECK(h_count(tcp_active_pcbs, SYN_RCVD, PORT_SYN) <= SYN_BACKLOG);
}

static void test_time_wait(void)
{
	unsigned before = n_accepted, closed = 0;

	CHECK(listen_on(PORT_TW, SYN_BACKLOG) != NULL);
	for (unsigned i = 0; i < TW_CONNS; i++) {
		uint16_t sport = (uint16_t)(PEER_PORT0 + i);
		uint32_t ours = 0, seq = 0, ack = 0;

		accepted = NULL;
		if (!h_connect(sport, PORT_TW, ISN, &ours) || !accepted)
			continue;
		/* the proxy closes first: FIN; the peer's ACK and FIN put the
		 * pcb in TIME_WAIT */
		tcp_close(accepted);
		if (h_out_flags(&seq, &ack) & H_FIN) {
			h_send(sport, PORT_TW, ISN + 1, seq + 1, H_FIN | H_ACK, NULL, 0);
			closed++;
		}
	}
	CHECK(n_accepted == before + TW_CONNS);
	CHECK(closed == TW_CONNS);
	CHECK(h_count(tcp_tw_pcbs, TIME_WAIT, PORT_TW) > 0);
	CHECK(h_count(tcp_tw_pcbs, TIME_WAIT, PORT_TW) <= TW_MAX);
}

int main(void)
{
	h_start();
	test_out_of_order();
	test_syn_flood();
	test_time_wait();
	return test_finish("test_lwip_bounds");
}
