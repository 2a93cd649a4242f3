/* zinctun-proxy's memory budget for lwIP (proxy/lwipmem.c): with a budget
 * of 256 KiB, a connection whose reader takes nothing is sent 1 MiB in
 * order (its window allows it): lwIP's heap never passes the budget, the
 * segments past it are dropped on input (no pbuf: the peer retransmits)
 * and tcp_write says ERR_MEM; once the reader takes what it held, the
 * memory is back and the next segment is delivered. */
#include "lwip_harness.h"
#include "lwipmem.h"
#include "test.h"

enum {
	PORT = 7010,
	PEER_PORT = 21000,
	ISN = 5000,
	BUDGET = 256 * 1024,
	SEG = 1000,
	SEGS = 1024,
};

static struct tcp_pcb *conn;
static struct pbuf *held[SEGS]; /* what the reader has not taken */
static unsigned n_held;
static size_t n_received;

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	(void)arg;
	(void)pcb;
	(void)err;
	if (!p)
		return ERR_OK;
	if (n_held == SEGS)
		return ERR_MEM; /* lwIP keeps it and offers it again */
	n_received += p->tot_len;
	held[n_held++] = p;
	return ERR_OK;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	conn = pcb;
	tcp_recv(pcb, on_recv);
	return ERR_OK;
}

int main(void)
{
	static uint8_t data[SEG];
	struct tcp_pcb *l;
	uint32_t ours = 0, next = ISN + 1;
	size_t peak = 0, before;

	lwipmem_set_budget(BUDGET);
	h_start();
	l = tcp_new_ip_type(IPADDR_TYPE_V4);
	CHECK(l && tcp_bind(l, IP4_ADDR_ANY, PORT) == ERR_OK);
	l = l ? tcp_listen(l) : NULL;
	if (l)
		tcp_accept(l, on_accept);
	CHECK(h_connect(PEER_PORT, PORT, ISN, &ours) && conn);
	if (!conn)
		return test_finish("test_lwip_budget");
	for (unsigned i = 0; i < SEGS; i++) {
		if (h_send(PEER_PORT, PORT, next, ours, H_ACK, data, SEG))
			next += SEG;
		if (lwipmem_used() > peak)
			peak = lwipmem_used();
	}
	CHECK(peak <= BUDGET);
	CHECK(h_drops > 0);
	CHECK(n_received >= BUDGET / 2 && n_received < (size_t)SEG * SEGS);
	CHECK(tcp_write(conn, data, SEG, TCP_WRITE_FLAG_COPY) == ERR_MEM);

	/* the reader takes it all: the budget is free again */
	before = n_received;
	for (unsigned i = 0; i < n_held; i++) {
		tcp_recved(conn, held[i]->tot_len);
		pbuf_free(held[i]);
	}
	n_held = 0;
	CHECK(lwipmem_used() < BUDGET / 4);
	CHECK(h_send(PEER_PORT, PORT, next, ours, H_ACK, data, SEG));
	CHECK(n_received == before + SEG);
	CHECK(tcp_write(conn, data, SEG, TCP_WRITE_FLAG_COPY) == ERR_OK);
	return test_finish("test_lwip_budget");
}
