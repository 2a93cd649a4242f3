/* fuzz-sources: */
/* fuzz-options: -max_len=600 */
/* The engine's receive path. Device A has one peer B (a second engine, in
 * process) with an established session, so fuzzed bytes reach past the MAC
 * and AEAD checks too. The input is a list of operations:
 *   op % 8 == 0: raw datagram to A (2-byte length, then bytes), from B's
 *                address or (op bit 3) another one
 *   1: B encrypts an arbitrary inner packet (1-byte length, bytes) to A
 *   2: B's last datagram with one byte changed (position, xor) to A
 *   3: advance the fake clock (1 byte, units of 2 s), timers fire, pump
 *   4: A sends an arbitrary IP packet (1-byte length, bytes)
 *   5: A's handshake queue reported long (load) or RNG toggled (op bit 3)
 *   6: deliver everything in flight
 *   7: B starts a new handshake (initiation to A)
 *
 * Speed: the two devices live across inputs (creating them and shaking
 * hands costs ~20 X25519 operations, ~100 inputs/s). Each input starts
 * from a normalised state: RNG ready, no load, nothing in flight or
 * staged, and a valid session between A and B (a new handshake only when
 * the last input broke or aged it). The state stays bounded: the clock
 * moves at most MAX_ADVANCE per input, at most MAX_HANDSHAKES initiations
 * run per input, and the devices are rebuilt every REBUILD_EVERY inputs or
 * once the clock passes CLOCK_LIMIT. Set FUZZ_RECEIVE_FRESH=1 to rebuild
 * them for every input (slow, fully deterministic: for replaying a crash).
 *
 * X25519 is replaced by Diffie-Hellman in the multiplicative group modulo
 * 2^61 - 1 (defined here, so the linker never pulls zinc/curve25519.o from
 * the archive): it commutes like X25519, so handshakes complete, and costs
 * ~1 us instead of ~50 us. Only the engine's logic is under test here;
 * X25519 has its own vector and differential tests. Build with
 * -DFUZZ_REAL_X25519 to use the real one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../wg/device.h"
#include "../wg/peer.h"
#include "../wg/send.h"
#include "unit/engine_harness.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_REAL_X25519
#include <zinc/curve25519.h>

#define FAKE_P ((1ULL << 61) - 1)

static uint64_t mulmod(uint64_t a, uint64_t b)
{
	unsigned __int128 x = (unsigned __int128)a * b;
	uint64_t r = (uint64_t)(x & FAKE_P) + (uint64_t)(x >> 61);

	r = (r & FAKE_P) + (r >> 61); /* <= 2^61 */
	return r >= FAKE_P ? r - FAKE_P : r;
}

static uint64_t load64(const uint8_t b[32])
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

/* Also replaces the generic X25519 that zinc/cpu.c names in its dispatch
 * table, which would otherwise pull curve25519.o in. */
void zinc_x25519_generic(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32]);

void zinc_x25519_generic(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32])
{
	uint64_t e = load64(scalar), b = load64(point) % FAKE_P, r = 1;

	for (; e; e >>= 1) {
		if (e & 1)
			r = mulmod(r, b);
		b = mulmod(b, b);
	}
	memset(out, 0, 32);
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(r >> (8 * i));
}

/* The fixed-base entry cpu.c names too: the same stand-in. */
void zinc_x25519_base_generic(uint8_t out[32], const uint8_t scalar[32]);

void zinc_x25519_base_generic(uint8_t out[32], const uint8_t scalar[32])
{
	static const uint8_t g[32] = {3};

	zinc_x25519_generic(out, scalar, g);
}

/* out = base^secret; all-zero output (a zero base) plays the low-order point. */
bool zinc_curve25519(uint8_t out[32], const uint8_t secret[32], const uint8_t basepoint[32])
{
	zinc_x25519_generic(out, secret, basepoint);
	return load64(out) != 0;
}

bool zinc_curve25519_generate_public(uint8_t pub[32], const uint8_t secret[32])
{
	static const uint8_t g[32] = {3};

	return zinc_curve25519(pub, secret, g);
}

/* The handshake's batches (wg/dhbatch.c), one by one. */
size_t zinc_curve25519_batch(size_t n, uint8_t *const out[], const uint8_t *const secret[],
			     const uint8_t *const point[], bool ok[])
{
	size_t good = 0;

	for (size_t i = 0; i < n; i++) {
		bool k = zinc_curve25519(out[i], secret[i], point[i]);

		if (ok)
			ok[i] = k;
		good += k;
	}
	return good;
}

void zinc_curve25519_clamp_secret(uint8_t secret[32])
{
	secret[0] |= 1; /* never the zero exponent */
}

void zinc_curve25519_generate_secret(uint8_t secret[32])
{
	static uint64_t state = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 32; i++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		secret[i] = (uint8_t)(state >> 56);
	}
	zinc_curve25519_clamp_secret(secret);
}
#endif

enum {
	MAX_HANDSHAKES = 8,
	REBUILD_EVERY = 200000,
};
#define MAX_ADVANCE (300 * SEC)
#define CLOCK_LIMIT (1000000 * SEC)

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

static struct h_clock clk;
static struct h_side A, B;
static struct wg_peer *pA, *pB; /* B as A's peer, A as B's peer */
static struct wg_endpoint other;
static unsigned long inputs;
static int fresh = -1;

static void teardown(void)
{
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	A.dev = B.dev = NULL;
	pA = pB = NULL;
}

static void build(void)
{
	teardown();
	clk.mono = 100 * SEC;
	clk.wall = 1700000000ULL * SEC;
	h_side_init(&A, &clk, 1, "10.0.0.1", 1001, 1);
	h_side_init(&B, &clk, 2, "10.0.0.2", 1002, 2);
	pA = h_connect(&A, &B, NULL, true);
	pB = h_connect(&B, &A, NULL, true);
	h_endpoint4(&other, "10.0.0.3", 1003);
	check(A.dev && B.dev && pA && pB, "two engines and their peers set up");
	inputs = 0;
}

/* Both sides hold matching current keypairs that may still send. */
static bool established(void)
{
	const struct wg_keypair *a = pA->keypairs.current, *b = pB->keypairs.current;

	return a && b && a->valid && b->valid && a->remote_index == b->entry.index &&
	       b->remote_index == a->entry.index && wg_keypair_can_send(a, clk.mono) &&
	       wg_keypair_can_send(b, clk.mono) && clk.mono - a->birth_ns < WG_REKEY_AFTER_TIME / 2;
}

static void handshake(void)
{
	/* past the initiation rate limit of the last attempt */
	clk.mono += SEC;
	clk.wall += SEC;
	pB->has_sent_handshake = false;
	wg_device_clock(B.dev);
	wg_send_handshake_initiation(B.dev, pB, false);
	h_pump(&A, &B, NULL, NULL);
	/* A confirms the session on B's first data packet */
	h_send_ip(&B, &A, 60, 1);
	h_pump(&A, &B, NULL, NULL);
}

/* Normalises the state between inputs; false if no session comes up. */
static bool restore(void)
{
	A.rng_ready = B.rng_ready = true;
	wg_device_set_handshake_queue_len(A.dev, 0);
	wg_device_set_handshake_queue_len(B.dev, 0);
	wg_staged_purge(pA);
	wg_staged_purge(pB);
	A.nout = B.nout = 0;
	A.ndelivered = B.ndelivered = 0;
	for (int i = 0; i < 2 && !established(); i++)
		handshake();
	A.nout = B.nout = 0;
	A.ndelivered = B.ndelivered = 0;
	return established();
}

static void prepare(void)
{
	if (fresh < 0) {
		const char *v = getenv("FUZZ_RECEIVE_FRESH");

		fresh = v && v[0] == '1';
	}
	if (fresh || !A.dev || ++inputs >= REBUILD_EVERY || clk.mono > CLOCK_LIMIT)
		build();
	if (!restore()) {
		build();
		check(restore(), "two fresh engines shake hands");
	}
}

/* B seals any inner bytes under its current session and sends them to A,
 * which takes them on the split path with the last inner byte as the outer
 * DS field (ECN marking, wg/ecn.c). */
static void send_sealed(const uint8_t *inner, size_t len)
{
	static uint8_t sealed[H_PKT + 64];
	struct wg_tx_job job;
	struct wg_rx_job rx;
	uint8_t ip[20];
	size_t n;

	B.nout = 0;
	if (wg_staged_count(pB) || !pB->keypairs.current ||
	    !wg_keypair_can_send(pB->keypairs.current, clk.mono))
		return;
	/* Route a dummy packet, then seal the raw bytes instead. */
	h_ip4(ip, sizeof(ip), B.tun_ip, A.tun_ip, 0);
	if (wg_device_prepare_tx(B.dev, ip, sizeof(ip), &job) != WG_OK)
		return;
	job.len = len;
	n = wg_tx_seal(B.dev, &job, inner, sealed);
	wg_device_complete_tx(B.dev, &job, true);
	if (wg_device_prepare_rx(A.dev, &B.addr, sealed, n, &rx) != WG_OK)
		return;
	rx.ds = len ? inner[len - 1] : 0;
	wg_rx_open(&rx, sealed, n);
	wg_device_complete_rx(A.dev, &rx, NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[H_PKT + 64];
	struct reader r = {data, size};
	uint64_t advanced = 0;
	int op, handshakes = 0;

	prepare();
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
			send_sealed(buf, len);
			break;
		case 2:
			a = take(&r);
			b = take(&r);
			if (b < 0 || !B.nout)
				break;
			{
				struct h_pkt *last = &B.out[B.nout - 1];

				memcpy(buf, last->data, last->len);
				buf[(size_t)a % last->len] ^= (uint8_t)(b ? b : 1);
				wg_device_receive(A.dev, &B.addr, buf, last->len);
			}
			break;
		case 3:
			a = take(&r);
			if (a < 0 || advanced + (uint64_t)a * 2 * SEC > MAX_ADVANCE)
				break;
			advanced += (uint64_t)a * 2 * SEC;
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
			if (++handshakes > MAX_HANDSHAKES)
				break;
			pB->has_sent_handshake = false;
			wg_device_clock(B.dev);
			wg_send_handshake_initiation(B.dev, pB, false);
			break;
		}
	}
	if (fresh)
		teardown();
	return 0;
}
