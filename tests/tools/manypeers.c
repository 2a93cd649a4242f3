/* Many WireGuard peers in one process, for scale tests: N engine devices,
 * each with its own key (derived from a seed) and UDP port, whose only
 * peer is one server. All N start a handshake at once (a keepalive each,
 * from persistent keepalive), it prints when they all completed, then
 * answers ICMP echo requests to each device's tunnel address until
 * --seconds pass.
 *
 * manypeers --pubs --count N --seed S
 *     prints the N public keys (base64), one a line: device i is line i+1.
 * manypeers --count N --seed S --bind IP --base-port P --server IP:PORT
 *           --server-pub B64 --tun-base A.B.C.D [--seconds T]
 *     device i binds IP:P+i and has tunnel address tun-base + i. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <zinc/blake2s.h>
#include <zinc/curve25519.h>

#include "wg/wg.h"

#include "../../daemon/base64.h"

#include "enginepeer.h"

enum {
	MAX_DATAGRAM = 2048,
	KEEPALIVE_SECONDS = 25, /* turning it on sends the first keepalive now */
	EPOLL_BATCH = 64,
	FD_SPARE = 64,
	MESSAGE_COOKIE_REPLY = 3, /* the wire type, counted to show the server under load */
};

static const char seed_label[] = "zinctun-manypeers";

struct member {
	struct wg_device *dev;
	struct wg_peer *server;
	int sock;
	uint8_t tun_ip[4];
	bool done;
};

static struct member *members;
static unsigned answered;
static unsigned cookie_replies;

/* priv_i = BLAKE2s(label || seed || i), clamped: the script and the tool
 * agree on the keys without passing N of them around. */
static void member_key(uint8_t priv[32], uint64_t seed, uint32_t i)
{
	uint8_t in[sizeof(seed_label) + 12];

	memcpy(in, seed_label, sizeof(seed_label));
	memcpy(in + sizeof(seed_label), &seed, 8);
	memcpy(in + sizeof(seed_label) + 8, &i, 4);
	zinc_blake2s(priv, in, NULL, 32, sizeof(in), 0);
	zinc_curve25519_clamp_secret(priv);
}

static void io_send(void *ctx, const struct wg_endpoint *to, const uint8_t *pkt, size_t len,
		    uint8_t ds)
{
	(void)ds;
	struct member *m = ctx;

	(void)sendto(m->sock, pkt, len, 0, &to->addr.sa, sizeof(to->addr.in4));
}

/* An ICMP echo request to our tunnel address: the reply goes back through
 * the engine. */
static void io_deliver(void *ctx, struct wg_peer *from, const uint8_t *pkt, size_t len)
{
	struct member *m = ctx;
	uint8_t r[MAX_DATAGRAM];
	size_t ihl;

	(void)from;
	if (peer_icmp_type(pkt, len, m->tun_ip, &ihl) != ICMP_ECHO_REQUEST || len > sizeof(r))
		return;
	peer_echo_reply(r, pkt, len, ihl);
	if (wg_device_send(m->dev, r, len) >= 0)
		answered++;
}

static int parse_ep(struct wg_endpoint *ep, const char *s)
{
	char host[64];
	const char *colon = strrchr(s, ':');

	memset(ep, 0, sizeof(*ep));
	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	ep->addr.in4.sin_family = AF_INET;
	ep->addr.in4.sin_port = htons((uint16_t)atoi(colon + 1));
	return inet_pton(AF_INET, host, &ep->addr.in4.sin_addr) == 1 ? 0 : -1;
}

static int member_start(struct member *m, uint32_t i, uint64_t seed, struct in_addr bind_ip,
			int port, const struct wg_endpoint *server, const uint8_t server_pub[32],
			uint32_t tun_base, int ep)
{
	struct wg_env env = {peer_now_ns, peer_wall_ns, NULL, NULL, NULL};
	struct wg_io io = {io_send, io_deliver, m, NULL, NULL};
	struct sockaddr_in sin = {0};
	struct epoll_event ev = {0};
	uint8_t priv[32], any[4] = {0};
	uint32_t ip = tun_base + i;

	m->sock = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)(port + (int)i));
	sin.sin_addr = bind_ip;
	if (m->sock < 0 || bind(m->sock, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("manypeers: bind");
		return -1;
	}
	ev.events = EPOLLIN;
	ev.data.u32 = i;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, m->sock, &ev))
		return -1;
	m->tun_ip[0] = (uint8_t)(ip >> 24);
	m->tun_ip[1] = (uint8_t)(ip >> 16);
	m->tun_ip[2] = (uint8_t)(ip >> 8);
	m->tun_ip[3] = (uint8_t)ip;
	m->dev = wg_device_new(&env, &io);
	if (!m->dev)
		return -1;
	member_key(priv, seed, i);
	wg_device_set_private_key(m->dev, priv);
	memset(priv, 0, sizeof(priv));
	m->server = wg_device_peer_add(m->dev, server_pub);
	if (!m->server)
		return -1;
	wg_peer_set_endpoint(m->server, server);
	wg_peer_allowed_ip_add(m->server, AF_INET, any, 0);
	return 0;
}

static void member_receive(struct member *m)
{
	uint8_t buf[MAX_DATAGRAM];

	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		struct wg_endpoint fe = {0};
		ssize_t n = recvfrom(m->sock, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);

		if (n <= 0)
			return;
		fe.addr.in4 = from;
		if (buf[0] == MESSAGE_COOKIE_REPLY)
			cookie_replies++;
		wg_device_receive(m->dev, &fe, buf, (size_t)n);
	}
}

/* Ticks the due devices; the earliest deadline left. */
static uint64_t tick_all(uint32_t count)
{
	uint64_t now = peer_now_ns(NULL), next = UINT64_MAX;

	for (uint32_t i = 0; i < count; i++) {
		uint64_t d = wg_device_next_deadline(members[i].dev);

		if (d <= now) {
			wg_device_tick(members[i].dev);
			d = wg_device_next_deadline(members[i].dev);
		}
		if (d < next)
			next = d;
	}
	return next;
}

static uint32_t count_done(uint32_t count)
{
	uint32_t done = 0;

	for (uint32_t i = 0; i < count; i++) {
		struct wg_peer_info info;

		if (!members[i].done) {
			wg_peer_get_info(members[i].server, &info);
			members[i].done = info.last_handshake_wall_ns != 0;
		}
		done += members[i].done;
	}
	return done;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: manypeers --pubs --count N --seed S\n"
		"       manypeers --count N --seed S --bind IP --base-port P --server IP:PORT\n"
		"                 --server-pub B64 --tun-base A.B.C.D [--seconds T]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *bind_s = NULL, *server_s = NULL, *spub_s = NULL, *tun_s = NULL;
	uint32_t count = 0, done = 0, tun_base;
	int pubs = 0, port = 0, seconds = 60, ep;
	uint64_t seed = 0, t0, end, done_at = 0;
	struct wg_endpoint server;
	struct in_addr bind_ip, tun;
	uint8_t server_pub[32];
	struct rlimit rl;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--pubs"))
			pubs = 1;
		else if (!v)
			return usage();
		else if (!strcmp(argv[i], "--count"))
			count = (uint32_t)strtoul(v, NULL, 10), i++;
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(v, NULL, 10), i++;
		else if (!strcmp(argv[i], "--bind"))
			bind_s = v, i++;
		else if (!strcmp(argv[i], "--base-port"))
			port = atoi(v), i++;
		else if (!strcmp(argv[i], "--server"))
			server_s = v, i++;
		else if (!strcmp(argv[i], "--server-pub"))
			spub_s = v, i++;
		else if (!strcmp(argv[i], "--tun-base"))
			tun_s = v, i++;
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atoi(v), i++;
		else
			return usage();
	}
	if (!count)
		return usage();
	if (pubs) {
		for (uint32_t i = 0; i < count; i++) {
			uint8_t priv[32], pub[32];
			char b64[BASE64_KEY_LEN + 1];

			member_key(priv, seed, i);
			zinc_curve25519_generate_public(pub, priv);
			base64_encode_key(b64, pub);
			printf("%s\n", b64);
		}
		return 0;
	}
	if (!bind_s || !server_s || !spub_s || !tun_s || port <= 0 ||
	    inet_pton(AF_INET, bind_s, &bind_ip) != 1 || inet_pton(AF_INET, tun_s, &tun) != 1 ||
	    parse_ep(&server, server_s) || !base64_decode_key(spub_s, strlen(spub_s), server_pub))
		return usage();
	tun_base = ntohl(tun.s_addr);
	rl.rlim_cur = rl.rlim_max = count + FD_SPARE;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		perror("manypeers: setrlimit");
	members = calloc(count, sizeof(*members));
	ep = epoll_create1(0);
	if (!members || ep < 0)
		return 1;
	for (uint32_t i = 0; i < count; i++)
		if (member_start(&members[i], i, seed, bind_ip, port, &server, server_pub, tun_base,
				 ep))
			return 1;
	printf("manypeers: %u devices ready\n", count);
	fflush(stdout);
	/* The burst: every device starts its handshake now. */
	t0 = peer_now_ns(NULL);
	for (uint32_t i = 0; i < count; i++)
		wg_peer_set_persistent_keepalive(members[i].server, KEEPALIVE_SECONDS);
	end = t0 + (uint64_t)seconds * 1000000000ULL;
	while (peer_now_ns(NULL) < end) {
		struct epoll_event evs[EPOLL_BATCH];
		uint64_t next = tick_all(count), now = peer_now_ns(NULL);
		int ms = next <= now		     ? 0
			 : next - now > 100000000ULL ? 100
						     : (int)((next - now) / 1000000ULL) + 1;
		int n = epoll_wait(ep, evs, EPOLL_BATCH, ms);

		for (int k = 0; k < n; k++)
			member_receive(&members[evs[k].data.u32]);
		if (done < count) {
			done = count_done(count);
			if (done == count) {
				done_at = peer_now_ns(NULL);
				printf("manypeers: handshakes %u/%u complete in %.2f s, %u cookie "
				       "replies\n",
				       done, count, (double)(done_at - t0) / 1e9, cookie_replies);
				fflush(stdout);
			}
		}
	}
	if (done < count)
		printf("manypeers: handshakes %u/%u complete after %d s\n", done, count, seconds);
	printf("manypeers: answered %u echo requests\n", answered);
	printf("manypeers: %u cookie replies received\n", cookie_replies);
	for (uint32_t i = 0; i < count; i++) {
		wg_device_free(members[i].dev);
		close(members[i].sock);
	}
	free(members);
	close(ep);
	return done == count ? 0 : 1;
}
