/* The outer DS field and TTL on the wire (daemon/udp.c): runs of same-size
 * datagrams for one endpoint are split where the DS field or the TTL
 * changes (one GSO send carries one IP_TOS and IP_TTL), each datagram
 * leaves with the TOS / traffic class and TTL / hop limit the engine chose
 * (0: the system's), and the receiving batch reports the DS field per
 * buffer (IP_RECVTOS / IPV6_RECVTCLASS). Over loopback, with UDP GSO and
 * GRO. */
// qemu-s390x: skip (qemu-user 7.2 passes int-sized IP_TOS/IPV6_TCLASS ancillary data to the
// little-endian host unconverted: EINVAL; a big-endian kernel takes it)
#include <arpa/inet.h>

#include "test.h"
#include "../../daemon/clock.c"
#include "../../daemon/enginelock.c"
#include "../../daemon/gso_path.c"
#include "../../daemon/log.c"
#include "../../daemon/pages.c"
#include "../../daemon/udp.c"

enum { N = 8, LEN = 100 };

static const uint8_t ds[N] = {0x02, 0x02, 0x02, 0x00, 0x00, 0x01, 0x01, 0x88};
static const uint8_t ttl[N] = {0, 0, 9, 9, 9, 9, 9, 9};

static struct wg_endpoint loopback(bool v6, uint16_t port)
{
	struct wg_endpoint e;

	memset(&e, 0, sizeof(e));
	if (v6) {
		e.addr.in6.sin6_family = AF_INET6;
		e.addr.in6.sin6_port = htons(port);
		e.addr.in6.sin6_addr = in6addr_loopback;
	} else {
		e.addr.in4.sin_family = AF_INET;
		e.addr.in4.sin_port = htons(port);
		e.addr.in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	return e;
}

/* The TTL / hop limit of batch buffer i, -1 if not given. */
static int hops(struct udp_batch *b, int i)
{
	struct msghdr *m = &b->msgs[i].msg_hdr;
	int v = -1;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c))
		if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) ||
		    (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT))
			memcpy(&v, CMSG_DATA(c), sizeof(v));
	return v;
}

/* Receives the N datagrams; got[i], got_ttl[i]: the DS field and TTL
 * datagram i came with. */
static int receive(int fd, int got[N], int got_ttl[N])
{
	static struct udp_batch b;
	int seen = 0;

	CHECK(udp_batch_init(&b) == 0);
	for (int tries = 0; tries < 100 && seen < N; tries++) {
		int n = udp_recv_batch(fd, &b);

		if (n <= 0)
			usleep(10000);
		for (int i = 0; i < n; i++) {
			size_t seg = b.seg[i] ? b.seg[i] : b.len[i];

			for (size_t off = 0; off < b.len[i]; off += seg, seen++)
				if (b.bufs[i][off] < N) {
					got[b.bufs[i][off]] = b.ds[i];
					got_ttl[b.bufs[i][off]] = hops(&b, i);
				}
		}
	}
	udp_batch_free(&b);
	return seen;
}

static void test_family(struct udp *tx, struct udp *rx, bool v6)
{
	static uint8_t buf[N * LEN];
	struct udp_run runs[N];
	struct wg_endpoint to = loopback(v6, rx->port);
	int n = 0, got[N], got_ttl[N], fd = v6 ? rx->cur->fd6 : rx->cur->fd4, on = 1;

	for (int i = 0; i < N; i++) {
		memset(buf + i * LEN, 0, LEN);
		buf[i * LEN] = (uint8_t)i;
		n = udp_runs_add(runs, n, true, &to, ds[i], ttl[i], buf + i * LEN, LEN);
		got[i] = -1;
	}
	CHECK(n == 5); /* 02 02 | 02 00 00 | 01 01 | 88: TTL 0 0 | 9 ... */
	CHECK(setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_RECVHOPLIMIT : IP_RECVTTL,
			 &on, sizeof(on)) == 0);
	CHECK(udp_send_runs(tx, tx->cur, runs, n) == N);
	CHECK(receive(fd, got, got_ttl) == N);
	for (int i = 0; i < N; i++)
		CHECK(got[i] == ds[i] && (ttl[i] ? got_ttl[i] == ttl[i] : got_ttl[i] > ttl[2]));
	/* a single send (the engine's, a handshake's answer) */
	buf[0] = 0;
	CHECK(udp_send(tx, &to, buf, LEN, WG_HANDSHAKE_DS) == 0);
	got[0] = -1;
	receive(fd, got, got_ttl);
	CHECK(got[0] == WG_HANDSHAKE_DS);
}

int main(void)
{
	static struct udp tx, rx;

	CHECK(udp_init(&tx, true, true) == 0 && udp_bind(&tx, 0) == 0);
	CHECK(udp_init(&rx, true, true) == 0 && udp_bind(&rx, 0) == 0);
	test_family(&tx, &rx, false);
	if (tx.cur->fd6 >= 0 && rx.cur->fd6 >= 0)
		test_family(&tx, &rx, true);
	else
		printf("test_udp_ds: no IPv6 here, IPv4 only\n");
	udp_destroy(&tx);
	udp_destroy(&rx);
	return test_finish("test_udp_ds");
}
