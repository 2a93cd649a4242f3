/* fuzz-sources: */
/* The engine's receive path. Each input runs against a fresh device A that
 * has one peer B (a second engine, in process) with an established session,
 * so fuzzed bytes reach past the MAC and AEAD checks too. The input is a
 * list of operations:
 *   op % 8 == 0: raw datagram to A (2-byte length, then bytes), from B's
 *                address or (op bit 3) another one
 *   1: B encrypts an arbitrary inner packet (1-byte length, bytes) to A
 *   2: B's last datagram with one byte changed (position, xor) to A
 *   3: advance the fake clock (1 byte, units of 2 s), timers fire, pump
 *   4: A sends an arbitrary IP packet (1-byte length, bytes)
 *   5: A's handshake queue reported long (load) or RNG toggled (op bit 3)
 *   6: deliver everything in flight
 *   7: B starts a new handshake (initiation to A) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../wg/device.h"
#include "../wg/peer.h"
#include "unit/engine_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct reader {
	const uint8_t *p;
	size_t n;
};

static int take(struct reader *r)
{
	if (!r->n)
		return -1;
	r->n--;
	return *r->p++;
}

static size_t take_bytes(struct reader *r, uint8_t *out, size_t want)
{
	size_t k = want < r->n ? want : r->n;
	memcpy(out, r->p, k);
	r->p += k;
	r->n -= k;
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct h_clock clk;
	static struct h_side A, B;
	static uint8_t buf[H_PKT + 64];
	struct reader r = {data, size};
	struct wg_endpoint other;
	struct wg_peer *pB;
	int op;

	clk.mono = 100 * SEC;
	clk.wall = 1700000000ULL * SEC;
	h_side_init(&A, &clk, 1, "10.0.0.1", 1001, 1);
	h_side_init(&B, &clk, 2, "10.0.0.2", 1002, 2);
	h_connect(&A, &B, NULL, true);
	pB = h_connect(&B, &A, NULL, true);
	h_endpoint4(&other, "10.0.0.3", 1003);
	h_send_ip(&B, &A, 60, 1);
	h_pump(&A, &B, NULL, NULL);

	while ((op = take(&r)) >= 0) {
		int a, b;
		size_t len;
		switch (op % 8) {
		case 0:
			a = take(&r);
			b = take(&r);
			if (b < 0)
				break;
			len = take_bytes(&r, buf, ((size_t)a << 8 | (size_t)b) % (H_PKT + 1));
			wg_device_receive(A.dev, op & 8 ? &other : &B.addr, buf, len);
			break;
		case 1:
			a = take(&r);
			if (a < 0)
				break;
			len = take_bytes(&r, buf, (size_t)a);
			B.nout = 0;
			if (wg_peer_staged_count(pB) == 0 && pB->keypairs.current &&
			    wg_keypair_can_send(pB->keypairs.current, clk.mono)) {
				/* Route a dummy packet, then seal the raw bytes instead:
				 * any inner content, correctly encrypted. */
				static uint8_t sealed[H_PKT + 64];
				struct wg_tx_job job;
				uint8_t ip[20];
				h_ip4(ip, sizeof(ip), B.tun_ip, A.tun_ip, 0);
				if (wg_device_prepare_tx(B.dev, ip, sizeof(ip), &job) == WG_OK) {
					size_t n;
					job.len = len;
					n = wg_tx_seal(B.dev, &job, buf, sealed);
					wg_device_complete_tx(B.dev, &job, true);
					wg_device_receive(A.dev, &B.addr, sealed, n);
				}
			}
			break;
		case 2:
			a = take(&r);
			b = take(&r);
			if (b < 0 || !B.sent_total)
				break;
			if (B.nout) {
				struct h_pkt *last = &B.out[B.nout - 1];
				memcpy(buf, last->data, last->len);
				buf[(size_t)a % last->len] ^= (uint8_t)(b ? b : 1);
				wg_device_receive(A.dev, &B.addr, buf, last->len);
			}
			break;
		case 3:
			a = take(&r);
			if (a < 0)
				break;
			h_advance(&A, &B, (uint64_t)a * 2 * SEC, NULL, NULL);
			break;
		case 4:
			a = take(&r);
			if (a < 0)
				break;
			len = take_bytes(&r, buf, (size_t)a);
			wg_device_send(A.dev, buf, len);
			break;
		case 5:
			if (op & 8)
				A.rng_ready = !A.rng_ready;
			else
				wg_device_set_handshake_queue_len(A.dev, 4096);
			break;
		case 6:
			h_pump(&A, &B, NULL, NULL);
			break;
		case 7:
			pB->has_sent_handshake = false;
			wg_device_clock(B.dev);
			wg_send_handshake_initiation(B.dev, pB, false);
			break;
		}
	}
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	A.dev = B.dev = NULL;
	return 0;
}
