/* A hostile WireGuard peer of a zinctun-proxy, on the engine alone (no
 * daemon, no TUN): it makes the TCP segments inside the tunnel itself, so
 * it can open connections, answer SYNs and then send what no real stack
 * would (issue 24):
 *
 *   oos-connect IP:PORT CONNS SEGS  opens CONNS connections to IP:PORT (a
 *       [TCPServerTunnel] ListenPort) and sends on each SEGS one-byte
 *       segments two bytes apart, the first byte skipped: all out of order,
 *       inside the window the proxy announced.
 *   oos-accept IP:PORT CONNS SEGS   a "server" at IP:PORT in the tunnel:
 *       answers the proxy's SYNs, and once CONNS connections are
 *       established sends the same out-of-order segments on each.
 *   syn IP:PORT COUNT               COUNT SYNs to IP:PORT, each from
 *       another address/port of --src, never completed.
 *
 * tcpflood --key B64 --proxy-pub B64 --bind IP:PORT --proxy IP:PORT
 *          --src A.B.C.D/PREFIX [--rate PPS] [--hold S] [--seconds S] MODE...
 * --src is what the proxy's AllowedIPs give this peer; --rate paces what it
 * sends (packets/s, 0: unpaced; SIGSTOP/SIGCONT pause it); --hold keeps the connections (and what
 * the proxy queued for them) that many seconds after the flood before it resets them. Prints
 * "tcpflood: tunnel up", then its figures; exit 0 once the flood was sent. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wg/wg.h"

#include "../../daemon/base64.h"

#include "enginepeer.h"
#include "rfc1071.h"

enum {
	MAX_DATAGRAM = 2048,
	IP_HDR = 20,
	TCP_HDR = 20,
	MSS_OPT = 4, /* the only option sent: kind 2, length 4 */
	OUR_MSS = 1360,
	OUR_WND = 65535, /* no window scale offered: windows stay unscaled */
	KEEPALIVE_S = 25,
	HANDSHAKE_WAIT_S = 20,
	ESTABLISH_WAIT_S = 20,
	SYN_RETRY_MS = 1000,
	FIRST_PORT = 20000, /* oos-connect: connection i is from this port + i */
	SYN_FIRST_PORT = 1024,
	RECV_BURST = 256,
	SERVICE_EVERY = 32, /* packets sent between two looks at the socket */
	MAX_BEHIND_MS = 50,
	SOCKET_BUFFER = 8 << 20, /* the proxy's answers are counted: none lost here */
};

enum { TH_FIN = 1, TH_SYN = 2, TH_RST = 4, TH_PSH = 8, TH_ACK = 16 };
enum conn_state { C_FREE, C_SYN_SENT, C_SYN_RCVD, C_ESTABLISHED };
enum mode { M_OOS_CONNECT, M_OOS_ACCEPT, M_SYN };

struct conn {
	enum conn_state state;
	uint32_t local, remote; /* tunnel addresses, host order */
	uint16_t lport, rport;
	uint32_t snd_nxt, rcv_nxt; /* our next sequence number, theirs */
	uint32_t wnd;		   /* the window they announced */
};

struct segment { /* an incoming TCP segment, host order */
	uint32_t src, dst, seq, ack;
	uint16_t sport, dport, wnd;
	uint8_t flags;
};

static struct wg_device *dev;
static struct wg_peer *proxy;
static int sock = -1;
static enum mode mode;
static struct conn *conns;
static uint32_t nconns, established;
static uint32_t target_ip, src_net, src_hosts;
static uint16_t target_port;
static uint64_t rate, sent, t_start, rng = 0x9e3779b97f4a7c15ULL;
static uint64_t in_synack, in_rst, in_ack, in_syn;

static uint32_t rand32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) << 16 | get16(p + 2);
}

/* An IPv4/TCP segment of conn c into p (an MSS option on SYNs); its length. */
static size_t build(uint8_t *p, const struct conn *c, uint32_t seq, uint8_t flags,
		    const uint8_t *data, size_t n)
{
	size_t thl = TCP_HDR + (flags & TH_SYN ? MSS_OPT : 0), len = IP_HDR + thl + n;
	uint8_t *t = p + IP_HDR;

	memset(p, 0, IP_HDR + thl);
	p[0] = 0x45;
	put16(p + 2, (uint32_t)len);
	p[8] = 64;
	p[9] = 6;
	put32(p + 12, c->local);
	put32(p + 16, c->remote);
	peer_put_csum(p + 10, p, IP_HDR);
	put16(t, c->lport);
	put16(t + 2, c->rport);
	put32(t + 4, seq);
	put32(t + 8, flags & TH_ACK ? c->rcv_nxt : 0);
	t[12] = (uint8_t)(thl / 4 << 4);
	t[13] = flags;
	put16(t + 14, OUR_WND);
	if (flags & TH_SYN) {
		t[20] = 2, t[21] = MSS_OPT;
		put16(t + 22, OUR_MSS);
	}
	if (n) /* data is NULL when there is none */
		memcpy(t + thl, data, n);
	put16(t + 16, (uint16_t)~rfc1071_l4_sum(p, len, IP_HDR, 6));
	return len;
}

static void io_send(void *ctx, const struct wg_endpoint *to, const uint8_t *pkt, size_t len,
		    uint8_t ds)
{
	(void)ds;
	(void)ctx;
	(void)sendto(sock, pkt, len, 0, &to->addr.sa, sizeof(to->addr.in4));
}

static void tcp_send(const struct conn *c, uint32_t seq, uint8_t flags, const uint8_t *data,
		     size_t n)
{
	uint8_t p[IP_HDR + TCP_HDR + MSS_OPT + 1];

	if (wg_device_send(dev, p, build(p, c, seq, flags, data, n)) >= 0)
		sent++;
}

static struct conn *find(const struct segment *s)
{
	for (uint32_t i = 0; i < nconns; i++) {
		struct conn *c = &conns[i];

		if (c->state != C_FREE && c->lport == s->dport && c->rport == s->sport &&
		    c->remote == s->src)
			return c;
	}
	return NULL;
}

/* oos-accept: a SYN from the proxy to our server address gets a SYN-ACK. */
static void accept_syn(const struct segment *s)
{
	struct conn *c = find(s);

	for (uint32_t i = 0; !c && i < nconns; i++)
		if (conns[i].state == C_FREE) {
			c = &conns[i];
			*c = (struct conn){.state = C_SYN_RCVD,
					   .local = s->dst,
					   .remote = s->src,
					   .lport = s->dport,
					   .rport = s->sport,
					   .snd_nxt = rand32(),
					   .rcv_nxt = s->seq + 1,
					   .wnd = s->wnd};
		}
	if (!c)
		return; /* more than CONNS: not ours to answer */
	if (c->state == C_SYN_RCVD)
		tcp_send(c, c->snd_nxt, TH_SYN | TH_ACK, NULL, 0);
}

static void on_segment(const struct segment *s)
{
	struct conn *c;

	in_synack += (s->flags & (TH_SYN | TH_ACK)) == (TH_SYN | TH_ACK);
	in_syn += (s->flags & (TH_SYN | TH_ACK)) == TH_SYN;
	in_rst += !!(s->flags & TH_RST);
	in_ack += (s->flags & (TH_SYN | TH_ACK)) == TH_ACK;
	if (mode == M_SYN)
		return; /* never completed: the proxy keeps them half open */
	if (mode == M_OOS_ACCEPT && (s->flags & (TH_SYN | TH_ACK)) == TH_SYN &&
	    s->dst == target_ip && s->dport == target_port) {
		accept_syn(s);
		return;
	}
	c = find(s);
	if (!c || s->flags & TH_RST)
		return;
	if (c->state == C_SYN_SENT && (s->flags & (TH_SYN | TH_ACK)) == (TH_SYN | TH_ACK) &&
	    s->ack == c->snd_nxt + 1) {
		c->snd_nxt++;
		c->rcv_nxt = s->seq + 1;
		c->wnd = s->wnd;
		c->state = C_ESTABLISHED;
		established++;
		tcp_send(c, c->snd_nxt, TH_ACK, NULL, 0);
	} else if (c->state == C_SYN_RCVD && s->flags & TH_ACK && s->ack == c->snd_nxt + 1) {
		c->snd_nxt++;
		c->wnd = s->wnd;
		c->state = C_ESTABLISHED;
		established++;
	}
}

/* A TCP segment to one of our addresses; anything else is not ours. */
static void io_deliver(void *ctx, struct wg_peer *from, const uint8_t *pkt, size_t len)
{
	struct segment s;
	size_t ihl;
	const uint8_t *t;

	(void)ctx, (void)from;
	if (len < IP_HDR + TCP_HDR || pkt[0] >> 4 != 4 || pkt[9] != 6)
		return;
	ihl = (size_t)(pkt[0] & 15) * 4;
	if (ihl < IP_HDR || len < ihl + TCP_HDR)
		return;
	t = pkt + ihl;
	s = (struct segment){get32(pkt + 12),
			     get32(pkt + 16),
			     get32(t + 4),
			     get32(t + 8),
			     (uint16_t)get16(t),
			     (uint16_t)get16(t + 2),
			     (uint16_t)get16(t + 14),
			     t[13]};
	if ((s.dst & ~(src_hosts - 1)) == src_net)
		on_segment(&s);
}

/* Reads what arrived (at most a burst), ticks the engine when due. */
static void service(int timeout_ms)
{
	struct pollfd pfd = {sock, POLLIN, 0};

	if (poll(&pfd, 1, timeout_ms) > 0) {
		for (int i = 0; i < RECV_BURST; i++) {
			uint8_t buf[MAX_DATAGRAM];
			struct wg_endpoint from = {0};
			socklen_t fl = sizeof(from.addr.in4);
			ssize_t n =
			    recvfrom(sock, buf, sizeof(buf), MSG_DONTWAIT, &from.addr.sa, &fl);

			if (n <= 0)
				break;
			wg_device_receive(dev, &from, buf, (size_t)n);
		}
	}
	if (wg_device_next_deadline(dev) <= peer_now_ns(NULL))
		wg_device_tick(dev);
}

/* Sends one segment at the pace --rate asks for, reading between sends.
 * Time it was not running (stopped, or not scheduled) is not made up in a
 * burst: the schedule restarts when it is more than MAX_BEHIND_MS late. */
static void paced_send(const struct conn *c, uint32_t seq, uint8_t flags, const uint8_t *data,
		       size_t n)
{
	uint64_t now = peer_now_ns(NULL);

	if (rate && (now - t_start) * rate / 1000000000ULL > sent + rate * MAX_BEHIND_MS / 1000)
		t_start = now - sent * 1000000000ULL / rate;
	while (rate && sent >= (peer_now_ns(NULL) - t_start) * rate / 1000000000ULL)
		service(1);
	tcp_send(c, seq, flags, data, n);
	if (sent % SERVICE_EVERY == 0)
		service(0);
}

static uint64_t elapsed_ms(uint64_t since)
{
	return (peer_now_ns(NULL) - since) / 1000000ULL;
}

static bool tunnel_up(void)
{
	uint64_t t0 = peer_now_ns(NULL);

	wg_peer_set_persistent_keepalive(proxy, KEEPALIVE_S); /* initiates now */
	while (elapsed_ms(t0) < HANDSHAKE_WAIT_S * 1000ULL) {
		struct wg_peer_info info;

		wg_peer_get_info(proxy, &info);
		if (info.last_handshake_wall_ns) {
			printf("tcpflood: tunnel up\n");
			fflush(stdout);
			return true;
		}
		service(100);
	}
	fprintf(stderr, "tcpflood: no handshake with the proxy\n");
	return false;
}

/* oos-connect: CONNS SYNs (again every SYN_RETRY_MS to those unanswered). */
static void connect_all(void)
{
	uint64_t t0 = peer_now_ns(NULL), last = 0;

	for (uint32_t i = 0; i < nconns; i++)
		conns[i] = (struct conn){.state = C_SYN_SENT,
					 .local = src_net + 1,
					 .remote = target_ip,
					 .lport = (uint16_t)(FIRST_PORT + i),
					 .rport = target_port,
					 .snd_nxt = rand32()};
	while (established < nconns && elapsed_ms(t0) < ESTABLISH_WAIT_S * 1000ULL) {
		if (elapsed_ms(t0) >= last) {
			for (uint32_t i = 0; i < nconns; i++)
				if (conns[i].state == C_SYN_SENT)
					tcp_send(&conns[i], conns[i].snd_nxt, TH_SYN, NULL, 0);
			last += SYN_RETRY_MS;
		}
		service(10);
	}
}

static void wait_accepted(uint64_t deadline)
{
	while (established < nconns && peer_now_ns(NULL) < deadline)
		service(10);
}

/* SEGS one-byte segments on every connection, round robin: segment k at
 * offset 1 + 2k past what they expect (wrapped inside their window), so
 * the byte at offset 0 never comes and nothing is ever in order. */
static void flood_oos(uint32_t segs)
{
	static const uint8_t byte = 'x';

	for (uint32_t k = 0; k < segs; k++)
		for (uint32_t i = 0; i < nconns; i++) {
			struct conn *c = &conns[i];
			uint32_t span = c->wnd > 2 ? (c->wnd - 1) & ~1u : 2;

			if (c->state == C_ESTABLISHED)
				paced_send(c, c->snd_nxt + 1 + 2 * k % span, TH_ACK | TH_PSH, &byte,
					   1);
		}
}

/* COUNT SYNs, each from its own address/port of --src. */
static void flood_syn(uint32_t count)
{
	uint32_t hosts = src_hosts > 4 ? src_hosts - 3 : 1; /* not .0, .1, broadcast */

	for (uint32_t k = 0; k < count; k++) {
		struct conn c = {.state = C_SYN_SENT,
				 .local = src_net + 2 + k % hosts,
				 .remote = target_ip,
				 .lport = (uint16_t)(SYN_FIRST_PORT + k / hosts),
				 .rport = target_port};

		paced_send(&c, rand32(), TH_SYN, NULL, 0);
	}
}

static void hold_then_reset(unsigned hold_s)
{
	uint64_t t0 = peer_now_ns(NULL);

	while (elapsed_ms(t0) < hold_s * 1000ULL)
		service(100);
	for (uint32_t i = 0; i < nconns; i++)
		if (conns[i].state == C_ESTABLISHED)
			tcp_send(&conns[i], conns[i].snd_nxt, TH_RST | TH_ACK, NULL, 0);
	service(100);
}

static int parse_ep(const char *s, uint32_t *ip, uint16_t *port)
{
	char host[INET_ADDRSTRLEN];
	const char *colon = strrchr(s, ':');
	struct in_addr a;

	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	if (inet_pton(AF_INET, host, &a) != 1)
		return -1;
	*ip = ntohl(a.s_addr);
	*port = (uint16_t)atoi(colon + 1);
	return *port ? 0 : -1;
}

static int parse_net(const char *s)
{
	char buf[INET_ADDRSTRLEN + 4];
	char *slash;
	struct in_addr a;
	int prefix;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (!slash)
		return -1;
	*slash = 0;
	prefix = atoi(slash + 1);
	if (inet_pton(AF_INET, buf, &a) != 1 || prefix < 8 || prefix > 30)
		return -1;
	src_hosts = 1u << (32 - prefix);
	src_net = ntohl(a.s_addr) & ~(src_hosts - 1);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tcpflood --key B64 --proxy-pub B64 --bind IP:PORT --proxy IP:PORT\n"
			"                --src NET/PREFIX [--rate PPS] [--hold S] [--seconds S]\n"
			"                oos-connect IP:PORT CONNS SEGS | oos-accept IP:PORT CONNS "
			"SEGS | syn IP:PORT COUNT\n");
	return 2;
}

/* The UDP socket and the engine device whose only peer is the proxy. */
static int open_device(const char *key, const char *pub, const char *bind_s, const char *proxy_s)
{
	static const struct wg_env env = {peer_now_ns, peer_wall_ns, NULL, NULL, NULL};
	static const struct wg_io io = {io_send, io_deliver, NULL, NULL, NULL};
	uint8_t priv[WG_PUBLIC_KEY_LEN], ppub[WG_PUBLIC_KEY_LEN], any[4] = {0};
	struct wg_endpoint ep = {0}, local = {0};
	uint32_t ip;
	uint16_t port;

	if (!base64_decode_key(key, strlen(key), priv) ||
	    !base64_decode_key(pub, strlen(pub), ppub))
		return -1;
	if (parse_ep(bind_s, &ip, &port))
		return -1;
	local.addr.in4 = (struct sockaddr_in){AF_INET, htons(port), {htonl(ip)}, {0}};
	if (parse_ep(proxy_s, &ip, &port))
		return -1;
	ep.addr.in4 = (struct sockaddr_in){AF_INET, htons(port), {htonl(ip)}, {0}};
	sock = socket(AF_INET, SOCK_DGRAM, 0);
	if (sock < 0 || bind(sock, &local.addr.sa, sizeof(local.addr.in4))) {
		perror("tcpflood: bind");
		return -1;
	}
	if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &(int){SOCKET_BUFFER}, sizeof(int)))
		perror("tcpflood: SO_RCVBUFFORCE");
	dev = wg_device_new(&env, &io);
	if (!dev)
		return -1;
	wg_device_set_private_key(dev, priv);
	memset(priv, 0, sizeof(priv));
	proxy = wg_device_peer_add(dev, ppub);
	if (!proxy)
		return -1;
	wg_peer_set_endpoint(proxy, &ep);
	return wg_peer_allowed_ip_add(proxy, AF_INET, any, 0) < 0 ? -1 : 0;
}

static void report(const char *what, uint64_t t0)
{
	printf("tcpflood: %s: %u/%u established, %llu packets sent in %.1f s; received %llu "
	       "SYN, %llu SYN-ACK, %llu ACK, %llu RST\n",
	       what, established, nconns, (unsigned long long)sent, (double)elapsed_ms(t0) / 1000.0,
	       (unsigned long long)in_syn, (unsigned long long)in_synack,
	       (unsigned long long)in_ack, (unsigned long long)in_rst);
	fflush(stdout);
}

/* Runs MODE (argv: its name and arguments). */
static int run(char **argv, int argc, unsigned hold_s, unsigned seconds)
{
	uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 0;
	uint32_t segs = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 0;
	uint64_t t0;

	if (argc < 3 || parse_ep(argv[1], &target_ip, &target_port) || !n)
		return usage();
	if (!strcmp(argv[0], "syn"))
		mode = M_SYN;
	else if (!strcmp(argv[0], "oos-connect") && segs)
		mode = M_OOS_CONNECT;
	else if (!strcmp(argv[0], "oos-accept") && segs)
		mode = M_OOS_ACCEPT;
	else
		return usage();
	nconns = mode == M_SYN ? 0 : n;
	conns = calloc(nconns ? nconns : 1, sizeof(*conns));
	if (!conns || !tunnel_up())
		return 1;
	t0 = peer_now_ns(NULL);
	if (mode == M_OOS_CONNECT)
		connect_all();
	else if (mode == M_OOS_ACCEPT)
		wait_accepted(t0 + (uint64_t)seconds * 1000000000ULL);
	if (mode != M_SYN) {
		report("connections", t0);
		if (established < nconns)
			return 1;
	}
	t0 = t_start = peer_now_ns(NULL);
	sent = 0;
	if (mode == M_SYN)
		flood_syn(n);
	else
		flood_oos(segs);
	report("flood sent", t0);
	hold_then_reset(hold_s);
	report("done", t0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *key = NULL, *pub = NULL, *bind_s = NULL, *proxy_s = NULL, *src = NULL;
	unsigned hold_s = 0, seconds = 60;
	int i, r;

	for (i = 1; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		const char *o = argv[i] + 2, *v = argv[i + 1];

		if (!strcmp(o, "key"))
			key = v;
		else if (!strcmp(o, "proxy-pub"))
			pub = v;
		else if (!strcmp(o, "bind"))
			bind_s = v;
		else if (!strcmp(o, "proxy"))
			proxy_s = v;
		else if (!strcmp(o, "src"))
			src = v;
		else if (!strcmp(o, "rate"))
			rate = strtoull(v, NULL, 10);
		else if (!strcmp(o, "hold"))
			hold_s = (unsigned)atoi(v);
		else if (!strcmp(o, "seconds"))
			seconds = (unsigned)atoi(v);
		else
			return usage();
	}
	if (!key || !pub || !bind_s || !proxy_s || !src || parse_net(src) ||
	    open_device(key, pub, bind_s, proxy_s))
		return usage();
	rng ^= peer_now_ns(NULL);
	r = run(argv + i, argc - i, hold_s, seconds);
	wg_device_free(dev);
	free(conns);
	close(sock);
	return r;
}
