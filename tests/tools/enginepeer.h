/* What the tools that are a WireGuard peer on the engine alone (no daemon,
 * no TUN: engine_echo, manypeers) share: the engine's clocks, base64 keys
 * and answering ICMP echo requests that arrive through the tunnel. */
#ifndef ENGINEPEER_H
#define ENGINEPEER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

enum { ICMP_ECHO_REPLY = 0, ICMP_ECHO_REQUEST = 8 };

static inline uint64_t peer_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The engine's env.now_ns (the daemon's clock) and env.wall_ns. */
static inline uint64_t peer_now_ns(void *ctx)
{
	(void)ctx;
	return peer_clock_ns(CLOCK_BOOTTIME);
}

static inline uint64_t peer_wall_ns(void *ctx)
{
	(void)ctx;
	return peer_clock_ns(CLOCK_REALTIME);
}

/* Stores the Internet checksum of p[0, n) at "at" (zeroed first if it lies
 * inside). */
static inline void peer_put_csum(uint8_t *at, const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	at[0] = at[1] = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	at[0] = (uint8_t)(~s >> 8);
	at[1] = (uint8_t)~s;
}

/* The ICMP type of an IPv4 ICMP packet to "to" (its ICMP header at
 * *icmp_off), or -1 for anything else. */
static inline int peer_icmp_type(const uint8_t *pkt, size_t len, const uint8_t to[4],
				 size_t *icmp_off)
{
	size_t ihl;

	if (len < 28 || pkt[0] >> 4 != 4 || pkt[9] != 1)
		return -1;
	ihl = (size_t)(pkt[0] & 15) * 4;
	if (ihl < 20 || len < ihl + 8 || memcmp(pkt + 16, to, 4))
		return -1;
	*icmp_off = ihl;
	return pkt[ihl];
}

/* The reply to the echo request pkt (len bytes, ICMP at ihl) into r. */
static inline void peer_echo_reply(uint8_t *r, const uint8_t *pkt, size_t len, size_t ihl)
{
	memcpy(r, pkt, len);
	memcpy(r + 12, pkt + 16, 4);
	memcpy(r + 16, pkt + 12, 4);
	r[8] = 64;
	r[ihl] = ICMP_ECHO_REPLY;
	peer_put_csum(r + ihl + 2, r + ihl, len - ihl);
	peer_put_csum(r + 10, r, ihl);
}

#endif
