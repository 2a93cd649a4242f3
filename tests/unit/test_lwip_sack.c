/* zinctun-proxy's lwIP build (proxy/lwipopts.h) acknowledges selectively:
 *  - its SYN-ACK to a SYN that offers SACK says SACK-permitted;
 *  - a segment past a hole is answered at once with an ACK for the hole's
 *    start and a SACK block for exactly the bytes it holds; a second one
 *    beyond another hole is reported too;
 *  - once the hole is filled, everything held is acknowledged.
 * Without SACK a Linux sender that lost a segment in a full window resent
 * all of it (test_e2e_proxy_wggo: downloads at 7 Mbit/s, 25 RTO timeouts). */
#include "lwip_harness.h"
#include "test.h"

enum {
	PORT = 7101,
	PEER_PORT = 21000,
	ISN = 5000,
	SEG = 100,
	OPT_END = 0,
	OPT_NOP = 1,
	OPT_SACK_PERM = 4,
	OPT_SACK = 5,
	SACK_BLOCK = 8,
};

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	tcp_recv(pcb, h_on_recv);
	return ERR_OK;
}

/* The option kind in the last packet lwIP sent: its start (kind byte) or
 * NULL; *len its length byte. */
static const uint8_t *out_option(uint8_t kind, uint8_t *len)
{
	const uint8_t *t = h_out + H_IP4, *end;
	size_t hl;

	if (h_out_len < H_IP4 + H_TCP)
		return NULL;
	hl = (size_t)(t[12] >> 4) * 4;
	if (hl < H_TCP || H_IP4 + hl > h_out_len)
		return NULL;
	end = t + hl;
	for (const uint8_t *o = t + H_TCP; o < end && *o != OPT_END;) {
		if (*o == OPT_NOP) {
			o++;
			continue;
		}
		if (o + 1 >= end || o[1] < 2 || o + o[1] > end)
			return NULL;
		if (*o == kind) {
			*len = o[1];
			return o;
		}
		o += o[1];
	}
	return NULL;
}

/* The last packet acknowledges ack and SACKs exactly the blocks given
 * (left, right pairs, in the order lwIP lists them: newest first). */
static bool out_sacks(uint32_t ack, const uint32_t *blocks, unsigned n)
{
	uint32_t seq, got_ack;
	uint8_t len = 0;
	const uint8_t *o;

	if (!(h_out_flags(&seq, &got_ack) & H_ACK) || got_ack != ack)
		return false;
	o = out_option(OPT_SACK, &len);
	if (!n)
		return o == NULL;
	if (!o || len != 2 + n * SACK_BLOCK)
		return false;
	for (unsigned i = 0; i < 2 * n; i++)
		if (h_get32(o + 2 + 4 * i) != blocks[i])
			return false;
	return true;
}

int main(void)
{
	struct tcp_pcb *l;
	uint8_t data[SEG], len = 0;
	uint32_t ours = 0, base = ISN + 1;

	memset(data, 'x', sizeof(data));
	h_start();
	l = tcp_new_ip_type(IPADDR_TYPE_V4);
	CHECK(l && tcp_bind(l, IP4_ADDR_ANY, PORT) == ERR_OK);
	l = tcp_listen_with_backlog(l, 1);
	CHECK(l != NULL);
	if (!l)
		return test_finish("test_lwip_sack");
	tcp_accept(l, on_accept);

	h_out_len = 0;
	h_send(PEER_PORT, PORT, ISN, 0, H_SYN, NULL, 0);
	CHECK(out_option(OPT_SACK_PERM, &len) != NULL && len == 2);
	CHECK(h_out_flags(&ours, &(uint32_t){0}) == (H_SYN | H_ACK));
	ours++;
	h_send(PEER_PORT, PORT, base, ours, H_ACK, NULL, 0);

	/* bytes [base+SEG, base+2*SEG) arrive; [base, base+SEG) was lost */
	h_out_len = 0;
	h_send(PEER_PORT, PORT, base + SEG, ours, H_ACK, data, SEG);
	CHECK(out_sacks(base, (const uint32_t[]){base + SEG, base + 2 * SEG}, 1));
	/* and past a second hole, [base+3*SEG, base+4*SEG) */
	h_out_len = 0;
	h_send(PEER_PORT, PORT, base + 3 * SEG, ours, H_ACK, data, SEG);
	CHECK(out_sacks(
	    base, (const uint32_t[]){base + 3 * SEG, base + 4 * SEG, base + SEG, base + 2 * SEG},
	    2));
	CHECK(h_received == 0);

	/* the first hole filled: two segments delivered, the second hole
	 * remains and only its far side is still SACKed */
	h_out_len = 0;
	h_send(PEER_PORT, PORT, base, ours, H_ACK, data, SEG);
	CHECK(h_received == 2 * SEG);
	CHECK(out_sacks(base + 2 * SEG, (const uint32_t[]){base + 3 * SEG, base + 4 * SEG}, 1));
	return test_finish("test_lwip_sack");
}
