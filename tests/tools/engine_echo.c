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
#include <unistd.h>

#include "wg/wg.h"

#include "../../daemon/base64.h"

#include "enginepeer.h"

static int sock = -1;
static struct wg_device *dev;
static uint8_t our_ip[4], peer_ip[4];
static int got_reply, answered;

static void io_send(void *ctx, const struct wg_endpoint *to, const uint8_t *pkt, size_t len,
		    uint8_t ds)
{
	(void)ds;
	(void)ctx;
	sendto(sock, pkt, len, 0, &to->addr.sa, sizeof(to->addr.in4));
}

static void io_deliver(void *ctx, struct wg_peer *from, const uint8_t *pkt, size_t len)
{
	uint8_t r[2048];
	size_t ihl;
	int type = peer_icmp_type(pkt, len, our_ip, &ihl);

	(void)ctx, (void)from;
	if (type == ICMP_ECHO_REPLY)
		got_reply++;
	if (type != ICMP_ECHO_REQUEST || len > sizeof(r))
		return;
	peer_echo_reply(r, pkt, len, ihl);
	if (wg_device_send(dev, r, len) >= 0)
		answered++;
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
	p[20] = ICMP_ECHO_REQUEST;
	p[25] = 1;
	peer_put_csum(p + 22, p + 20, sizeof(p) - 20);
	peer_put_csum(p + 10, p, 20);
	wg_device_send(dev, p, sizeof(p));
}

int main(int argc, char **argv)
{
	struct wg_env env = {peer_now_ns, peer_wall_ns, NULL, NULL, NULL};
	struct wg_io io = {io_send, io_deliver, NULL, NULL, NULL};
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
	if (!base64_decode_key(argv[2], strlen(argv[2]), priv) ||
	    !base64_decode_key(argv[3], strlen(argv[3]), pub) ||
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
	end = peer_now_ns(NULL) + (uint64_t)timeout * 1000000000ULL;
	while (peer_now_ns(NULL) < end) {
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
			if (peer_now_ns(NULL) - last > 1000000000ULL) {
				last = peer_now_ns(NULL);
				send_ping();
			}
		}
	}
	printf("engine_echo: got_reply=%d answered=%d\n", got_reply, answered);
	wg_device_free(dev);
	close(sock);
	return ((!ping || got_reply) && answered >= want_answers) ? 0 : 1;
}
