/* Engine: the outer DS field of every datagram (handshakes AF41, data the
 * inner ECN bits as the Linux module's ip_tunnel_ecn_encap), ECN marking of
 * received packets (INET_ECN_decapsulate, its drop verdict ignored), the
 * refusal of routing loops (a datagram to the routed peer's own endpoint)
 * and the outer TTL of WireGuard inside WireGuard. */
#include "../../wg/device.h"
#include "../../wg/ecn.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "../rfc1071.h"
#include "engine_harness.h"

enum { NOT_ECT = 0, ECT_1 = 1, ECT_0 = 2, CE = 3, EF = 0xb8 };

static struct h_clock clk = {9000 * SEC, 1760000000ULL * SEC};
static struct h_side A, B;
static struct wg_peer *pA, *pB;

static void ip4_sum(uint8_t *buf)
{
	uint16_t sum;

	buf[10] = buf[11] = 0;
	sum = (uint16_t)~rfc1071_fold(rfc1071_add(0, buf, 20));
	buf[10] = (uint8_t)(sum >> 8);
	buf[11] = (uint8_t)sum;
}

/* A's packet to B's tunnel address with TOS tos and a valid header sum. */
static size_t ip4_tos(uint8_t *buf, size_t len, uint8_t tos)
{
	h_ip4(buf, len, A.tun_ip, B.tun_ip, 0x11);
	buf[1] = tos;
	buf[6] = buf[7] = 0;
	ip4_sum(buf);
	return len;
}

static void ip6_tclass(uint8_t *buf, uint8_t tclass)
{
	memset(buf, 0x22, 60);
	buf[0] = (uint8_t)(0x60 | tclass >> 4);
	buf[1] = (uint8_t)(tclass << 4 | 0x0a); /* flow label bits kept */
	buf[4] = 0;
	buf[5] = 20;
	buf[6] = 17;
}

static uint8_t tclass_of(const uint8_t *p)
{
	return (uint8_t)((p[0] & 0x0f) << 4 | p[1] >> 4);
}

/* Records the DS field of each message type in flight. */
static bool note_ds(struct h_side *from, struct h_side *to, struct h_pkt *p, void *ctx)
{
	int *ds = ctx;

	(void)from, (void)to;
	ds[p->data[0] & 7] = p->ds;
	return true;
}

static void test_handshake_ds(void)
{
	int ds[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
	uint8_t buf[100];

	h_pair_setup(&A, &B, &clk, 0xec1, 0xec2, &pA, &pB);
	CHECK(wg_device_send(A.dev, buf, ip4_tos(buf, sizeof(buf), EF | ECT_0)) == WG_STAGED);
	CHECK(A.nout == 1 && A.out[0].data[0] == WG_MESSAGE_HANDSHAKE_INITIATION);
	CHECK(A.out[0].ds == WG_HANDSHAKE_DS);
	h_pump(&A, &B, note_ds, ds);
	/* B answered with AF41; A then sent the staged packet with ECT(0) */
	CHECK(B.sent_by_type[WG_MESSAGE_HANDSHAKE_RESPONSE] == 1);
	CHECK(ds[WG_MESSAGE_HANDSHAKE_INITIATION] == WG_HANDSHAKE_DS);
	CHECK(ds[WG_MESSAGE_HANDSHAKE_RESPONSE] == WG_HANDSHAKE_DS);
	CHECK(ds[WG_MESSAGE_DATA] == ECT_0);
	CHECK(B.ndelivered == 1 && B.delivered[0].data[1] == (EF | ECT_0));
	CHECK(pA->keypairs.current != NULL);
}

/* Under load a cookie reply answers, with DS 0 (the module sends it with
 * wg_socket_send_buffer_as_reply_to_skb, no DSCP). */
static void test_cookie_ds(void)
{
	struct h_side C;
	struct h_pkt init;

	h_side_init(&C, &clk, 0xec3, "10.0.0.3", 1003, 3);
	h_connect(&C, &A, NULL, true);
	h_connect(&A, &C, NULL, true);
	init = h_grab_initiation(&C, wg_device_peer_lookup(C.dev, A.pub));
	CHECK(init.ds == WG_HANDSHAKE_DS);
	wg_device_set_handshake_queue_len(A.dev, WG_MAX_QUEUED_INCOMING_HANDSHAKES);
	A.nout = 0;
	CHECK(wg_device_receive(A.dev, &C.addr, init.data, init.len) == WG_ERR_DROPPED);
	CHECK(A.nout == 1 && A.out[0].data[0] == WG_MESSAGE_HANDSHAKE_COOKIE && A.out[0].ds == 0);
	wg_device_set_handshake_queue_len(A.dev, 0);
	clk.mono += 2 * SEC; /* load is sticky for 1 s */
	A.nout = 0;
	wg_device_peer_remove(A.dev, wg_device_peer_lookup(A.dev, C.pub));
	wg_device_free(C.dev);
}

/* A data datagram's DS field for an inner TOS: DSCP never leaks, CE goes
 * out as ECT(0). */
static void test_encap(void)
{
	static const uint8_t in[] = {NOT_ECT, ECT_1, ECT_0, CE, EF | ECT_1, EF | CE, EF};
	static const uint8_t out[] = {0, ECT_1, ECT_0, ECT_0, ECT_1, ECT_0, 0};
	uint8_t buf[100];

	for (size_t i = 0; i < sizeof(in); i++) {
		A.nout = 0;
		CHECK(wg_device_send(A.dev, buf, ip4_tos(buf, sizeof(buf), in[i])) == WG_OK);
		CHECK(A.nout == 1 && A.out[0].data[0] == WG_MESSAGE_DATA);
		CHECK(A.out[0].ds == out[i]);
		ip6_tclass(buf, in[i]);
		CHECK(wg_ecn_encap(buf, 60) == out[i]);
	}
	/* a keepalive carries no inner header */
	A.nout = 0;
	wg_device_clock(A.dev);
	wg_send_keepalive(A.dev, pA);
	CHECK(A.nout == 1 && A.out[0].ds == 0);
	A.nout = 0;
	h_pump(&A, &B, NULL, NULL);
}

/* The module's table (RFC 6040, Figure 4, less its drops): inner rows
 * Not-ECT, ECT(1), ECT(0), CE; outer columns the same. */
static const uint8_t decap_table[4][4] = {
    [NOT_ECT] = {NOT_ECT, NOT_ECT, NOT_ECT, NOT_ECT},
    [ECT_1] = {ECT_1, ECT_1, ECT_1, CE},
    [ECT_0] = {ECT_0, ECT_1, ECT_0, CE},
    [CE] = {CE, CE, CE, CE},
};

static void test_decap_direct(void)
{
	uint8_t buf[100], v6[60];

	for (int inner = 0; inner < 4; inner++)
		for (int outer = 0; outer < 4; outer++) {
			ip4_tos(buf, sizeof(buf), (uint8_t)(EF | inner));
			wg_ecn_decap(buf, sizeof(buf), (uint8_t)(0x88 | outer));
			CHECK(buf[1] == (EF | decap_table[inner][outer]));
			CHECK(rfc1071_ipv4_hdr_ok(buf));
			ip6_tclass(v6, (uint8_t)(EF | inner));
			wg_ecn_decap(v6, sizeof(v6), (uint8_t)outer);
			CHECK(tclass_of(v6) == (EF | decap_table[inner][outer]));
			CHECK(v6[0] >> 4 == 6 && (v6[1] & 0x0f) == 0x0a);
		}
	/* every checksum value, the edges (0x0000, 0xffff) among them */
	for (int k = 0; k < 65536; k++) {
		ip4_tos(buf, sizeof(buf), (uint8_t)(k & 1 ? ECT_0 : ECT_1));
		buf[4] = (uint8_t)(k >> 8);
		buf[5] = (uint8_t)k;
		ip4_sum(buf);
		wg_ecn_decap(buf, sizeof(buf), CE);
		CHECK(buf[1] == CE && rfc1071_ipv4_hdr_ok(buf));
	}
}

/* Through the split receive path: the caller's outer DS marks the packet
 * complete hands out. */
static void test_decap_engine(void)
{
	struct wg_rx_job job;
	const uint8_t *out = NULL;
	size_t out_len = 0;
	uint8_t buf[100];
	struct h_pkt p;

	A.nout = 0;
	CHECK(wg_device_send(A.dev, buf, ip4_tos(buf, sizeof(buf), ECT_0)) == WG_OK);
	CHECK(A.nout == 1 && A.out[0].ds == ECT_0);
	p = A.out[0];
	A.nout = 0;
	CHECK(wg_device_prepare_rx(B.dev, &A.addr, p.data, p.len, &job) == WG_OK);
	CHECK(job.ds == 0);
	job.ds = CE; /* a router on the way marked the outer header */
	CHECK(wg_rx_open(&job, p.data, p.len));
	CHECK(wg_device_complete_rx(B.dev, &job, &out, &out_len) == WG_OK);
	CHECK(out_len == sizeof(buf) && out[1] == CE && rfc1071_ipv4_hdr_ok(out));
}

static size_t udp4_to(uint8_t *buf, const struct wg_endpoint *ep, uint16_t frag)
{
	h_ip4(buf, 100, A.tun_ip, (const uint8_t *)&ep->addr.in4.sin_addr, 0);
	buf[6] = (uint8_t)(frag >> 8);
	buf[7] = (uint8_t)frag;
	memcpy(buf + 22, &ep->addr.in4.sin_port, 2);
	return 100;
}

static uint64_t loop_drops(void)
{
	struct wg_device_stats st;

	wg_device_get_stats(A.dev, &st);
	return st.dropped_routing_loop;
}

static size_t loop_events(uint32_t *last)
{
	size_t n = 0;

	for (size_t i = 0; i < A.nevents; i++)
		if (A.events[i].kind == WG_EVENT_ROUTING_LOOP) {
			n++;
			*last = A.events[i].attempt;
			CHECK(A.events[i].peer == pA);
		}
	return n;
}

/* The full-tunnel mistake: B's allowed IPs cover B's own endpoint. */
static void test_loop_v4(void)
{
	struct wg_endpoint other = B.addr;
	uint32_t count = 0;
	uint8_t buf[100];

	wg_peer_allowed_ip_add(pA, AF_INET, (const uint8_t[]){10, 0, 0, 0}, 8);
	A.nevents = 0;
	for (int i = 0; i < 5; i++)
		CHECK(wg_device_send(A.dev, buf, udp4_to(buf, &B.addr, 0)) == WG_ERR_LOOP);
	/* a first fragment (MF) carries the ports: refused too */
	CHECK(wg_device_send(A.dev, buf, udp4_to(buf, &B.addr, 0x2000)) == WG_ERR_LOOP);
	CHECK(loop_drops() == 6);
	CHECK(loop_events(&count) == 1 && count == 1);
	/* another port of that host, and a later fragment: sent */
	other.addr.in4.sin_port = htons(53);
	A.nout = 0;
	CHECK(wg_device_send(A.dev, buf, udp4_to(buf, &other, 0)) == WG_OK);
	CHECK(wg_device_send(A.dev, buf, udp4_to(buf, &B.addr, 0x2010)) == WG_OK);
	CHECK(A.nout == 2 && loop_drops() == 6);
	/* once a minute per peer, with the count since */
	clk.mono += 59 * SEC;
	CHECK(wg_device_send(A.dev, buf, udp4_to(buf, &B.addr, 0)) == WG_ERR_LOOP);
	CHECK(loop_events(&count) == 1);
	clk.mono += 2 * SEC;
	CHECK(wg_device_send(A.dev, buf, udp4_to(buf, &B.addr, 0)) == WG_ERR_LOOP);
	CHECK(loop_events(&count) == 2 && count == 7);
	CHECK(loop_drops() == 8);
}

/* A second peer C reached through B (onion routing): C's endpoint routed
 * into B is no loop. */
static void test_onion(void)
{
	uint8_t privc[WG_PUBLIC_KEY_LEN] = {9}, pubc[WG_PUBLIC_KEY_LEN], buf[100];
	struct wg_endpoint ec;
	struct wg_peer *pc;

	zinc_curve25519_clamp_secret(privc);
	zinc_curve25519_generate_public(pubc, privc);
	pc = wg_device_peer_add(A.dev, pubc);
	h_endpoint4(&ec, "10.9.9.9", 4444);
	wg_peer_set_endpoint(pc, &ec);
	A.nout = 0;
	CHECK(wg_device_send(A.dev, buf, udp4_to(buf, &ec, 0)) == WG_OK);
	CHECK(A.nout == 1 && loop_drops() == 8);
	wg_device_peer_remove(A.dev, pc);
}

static void test_loop_v6(void)
{
	struct wg_endpoint ep = {0};
	uint8_t buf[100];

	ep.addr.in6.sin6_family = AF_INET6;
	ep.addr.in6.sin6_port = htons(51820);
	inet_pton(AF_INET6, "fd00::2", &ep.addr.in6.sin6_addr);
	wg_peer_set_endpoint(pA, &ep);
	wg_peer_allowed_ip_add(pA, AF_INET6, &ep.addr.in6.sin6_addr, 128);
	memset(buf, 0, sizeof(buf));
	buf[0] = 0x60;
	buf[5] = 60;
	buf[6] = 17;
	buf[7] = 64;
	memcpy(buf + 24, &ep.addr.in6.sin6_addr, 16);
	memcpy(buf + 42, &ep.addr.in6.sin6_port, 2);
	CHECK(wg_device_send(A.dev, buf, sizeof(buf)) == WG_ERR_LOOP);
	/* the kernel's fragment of our datagram: fragment header, offset 0 */
	memmove(buf + 48, buf + 40, 8);
	buf[6] = 44;
	buf[40] = 17;
	buf[42] = 0;
	buf[43] = 1; /* M flag */
	CHECK(wg_device_send(A.dev, buf, sizeof(buf)) == WG_ERR_LOOP);
	buf[42] = 0x05; /* a later fragment: no ports */
	A.nout = 0;
	CHECK(wg_device_send(A.dev, buf, sizeof(buf)) == WG_OK && A.nout == 1);
	CHECK(loop_drops() == 10);
}

static int prepare(const uint8_t *pkt, size_t len, uint8_t *ttl)
{
	struct wg_tx_job job;
	int r = wg_device_prepare_tx(A.dev, pkt, len, &job);

	*ttl = job.ttl;
	wg_device_complete_tx(A.dev, &job, false);
	return r;
}

/* WireGuard inside WireGuard (a message's type and size, or any UDP
 * fragment) goes out with the inner TTL less WG_NEST_TTL_STEP, and is
 * refused when none is left: a loop through two interfaces ends. */
static void test_nested(void)
{
	uint64_t drops = loop_drops();
	uint8_t buf[100], ttl;
	size_t len = h_ip4(buf, sizeof(buf), A.tun_ip, B.tun_ip, 0);

	CHECK(prepare(buf, len, &ttl) == WG_OK && ttl == 0);
	buf[25] = 80; /* UDP length: a 72-byte transport data message */
	buf[28] = WG_MESSAGE_DATA;
	CHECK(prepare(buf, len, &ttl) == WG_OK && ttl == 64 - WG_NEST_TTL_STEP);
	buf[29] = 1; /* no message type's header */
	CHECK(prepare(buf, len, &ttl) == WG_OK && ttl == 0);
	buf[7] = 0x10; /* a later fragment of any UDP datagram */
	buf[8] = WG_NEST_TTL_STEP + 1;
	CHECK(prepare(buf, len, &ttl) == WG_OK && ttl == 1);
	buf[8] = WG_NEST_TTL_STEP;
	CHECK(prepare(buf, len, &ttl) == WG_ERR_LOOP);
	buf[9] = 6; /* TCP is never nested */
	CHECK(prepare(buf, len, &ttl) == WG_OK && ttl == 0);
	/* IPv6: a fragment (fragment header, offset 0) with hop limit 20 */
	memset(buf, 0, sizeof(buf));
	buf[0] = 0x60;
	buf[5] = 60;
	buf[6] = 44;
	buf[7] = 20;
	inet_pton(AF_INET6, "fd00::2", buf + 24); /* routed to B by test_loop_v6 */
	buf[40] = 17;
	buf[43] = 1;
	CHECK(prepare(buf, sizeof(buf), &ttl) == WG_OK && ttl == 20 - WG_NEST_TTL_STEP);
	CHECK(loop_drops() == drops + 1);
}

int main(void)
{
	test_handshake_ds();
	test_cookie_ds();
	test_encap();
	test_decap_direct();
	test_decap_engine();
	test_loop_v4();
	test_onion();
	test_loop_v6();
	test_nested();
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	return test_finish("test_engine_ecn");
}
