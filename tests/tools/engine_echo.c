/* A minimal WireGuard peer built directly on the engine (no daemon): one
 * UDP socket on 127.0.0.1, answers ICMP echo requests that arrive through
 * the tunnel, and optionally pings the other side first. For checking the
 * engine against wireguard-go on the wire.
 *
 * engine_echo PORT PRIVKEY_B64 PEER_PUB_B64 PEER_PORT OUR_TUN_IP PEER_TUN_IP
 *             [--ping] [--answer N] [--timeout SECONDS]
 * Exits 0 once it got an echo reply (with --ping) and answered N requests. */
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wg/wg.h"

static int sock = -1;
static struct wg_device *dev;
static uint8_t our_ip[4], peer_ip[4];
static int got_reply, answered;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void *ctx)
{
	(void)ctx;
	return clock_ns(CLOCK_MONOTONIC);
}

static uint64_t wall_ns(void *ctx)
{
	(void)ctx;
	return clock_ns(CLOCK_REALTIME);
}

static void io_send(void *ctx, const struct wg_endpoint *to, const uint8_t *pkt, size_t len)
{
	(void)ctx;
	sendto(sock, pkt, len, 0, &to->addr.sa, sizeof(to->addr.in4));
}

static uint16_t csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void ip_checksum(uint8_t *ip)
{
	ip[10] = ip[11] = 0;
	uint16_t c = csum(ip, 20);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
}

static void icmp_checksum(uint8_t *icmp, size_t n)
{
	icmp[2] = icmp[3] = 0;
	uint16_t c = csum(icmp, n);
	icmp[2] = (uint8_t)(c >> 8);
	icmp[3] = (uint8_t)c;
}

static void io_deliver(void *ctx, struct wg_peer *from, const uint8_t *pkt, size_t len)
{
	uint8_t r[2048];
	size_t ihl;

	(void)ctx, (void)from;
	if (len < 28 || len > sizeof(r) || pkt[0] >> 4 != 4 || pkt[9] != 1)
		return;
	ihl = (size_t)(pkt[0] & 15) * 4;
	if (ihl < 20 || len < ihl + 8 || memcmp(pkt + 16, our_ip, 4))
		return;
	if (pkt[ihl] == 0) { /* echo reply */
		got_reply++;
		return;
	}
	if (pkt[ihl] != 8)
		return;
	memcpy(r, pkt, len);
	memcpy(r + 12, pkt + 16, 4);
	memcpy(r + 16, pkt + 12, 4);
	r[8] = 64;
	r[ihl] = 0;
	icmp_checksum(r + ihl, len - ihl);
	ip_checksum(r);
	if (wg_device_send(dev, r, len) >= 0)
		answered++;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static int key_b64(uint8_t out[32], const char *s)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t n = 0;
	for (; *s && *s != '='; s++) {
		int v = b64val(*s);
		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n == 32)
				return -1;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	return n == 32 ? 0 : -1;
}

static void send_ping(void)
{
	uint8_t p[84] = {0};
	p[0] = 0x45;
	p[3] = sizeof(p);
	p[8] = 64;
	p[9] = 1;
	memcpy(p + 12, our_ip, 4);
	memcpy(p + 16, peer_ip, 4);
	p[20] = 8;
	p[25] = 1;
	icmp_checksum(p + 20, sizeof(p) - 20);
	ip_checksum(p);
	wg_device_send(dev, p, sizeof(p));
}

int main(int argc, char **argv)
{
	struct wg_env env = {now_ns, wall_ns, NULL, NULL, NULL};
	struct wg_io io = {io_send, io_deliver, NULL, NULL};
	struct sockaddr_in sin = {0};
	struct wg_endpoint ep = {0};
	uint8_t priv[32], pub[32];
	int ping = 0, want_answers = 0, timeout = 20;
	struct wg_peer *peer;
	uint64_t end;

	if (argc < 7)
		return 2;
	for (int i = 7; i < argc; i++) {
		if (!strcmp(argv[i], "--ping"))
			ping = 1;
		else if (!strcmp(argv[i], "--answer") && i + 1 < argc)
			want_answers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			timeout = atoi(argv[++i]);
	}
	if (key_b64(priv, argv[2]) || key_b64(pub, argv[3]) ||
	    inet_pton(AF_INET, argv[5], our_ip) != 1 || inet_pton(AF_INET, argv[6], peer_ip) != 1)
		return 2;
	sock = socket(AF_INET, SOCK_DGRAM, 0);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(argv[1]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("bind");
		return 1;
	}
	dev = wg_device_new(&env, &io);
	wg_device_set_private_key(dev, priv);
	peer = wg_device_peer_add(dev, pub);
	ep.addr.in4.sin_family = AF_INET;
	ep.addr.in4.sin_port = htons((uint16_t)atoi(argv[4]));
	ep.addr.in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	wg_peer_set_endpoint(peer, &ep);
	wg_peer_allowed_ip_add(peer, AF_INET, peer_ip, 32);
	if (ping)
		send_ping();
	end = now_ns(NULL) + (uint64_t)timeout * 1000000000ULL;
	while (now_ns(NULL) < end) {
		uint8_t buf[2048];
		struct pollfd pfd = {sock, POLLIN, 0};
		uint64_t next = wg_device_tick(dev);
		int ms = next > 100000000ULL ? 100 : (int)(next / 1000000ULL) + 1;
		if ((!ping || got_reply) && answered >= want_answers)
			break;
		if (poll(&pfd, 1, ms) > 0) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t n =
			    recvfrom(sock, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
			struct wg_endpoint fe = {0};
			if (n <= 0)
				continue;
			fe.addr.in4 = from;
			wg_device_receive(dev, &fe, buf, (size_t)n);
		}
		if (ping && !got_reply && answered == 0) {
			static uint64_t last;
			if (now_ns(NULL) - last > 1000000000ULL) {
				last = now_ns(NULL);
				send_ping();
			}
		}
	}
	printf("engine_echo: got_reply=%d answered=%d\n", got_reply, answered);
	wg_device_free(dev);
	close(sock);
	return ((!ping || got_reply) && answered >= want_answers) ? 0 : 1;
}
