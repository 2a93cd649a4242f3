/* IPv4 (RFC 791) and IPv6 (RFC 8200) header fields, for a packet that
 * starts with its IP header. The accessors do not check lengths: callers
 * check that the header is there first (IP4_HDR_MIN, IP6_HDR_LEN). */
#ifndef ZT_IP_H
#define ZT_IP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "be.h"

enum {
	IP4_HDR_MIN = 20,
	IP4_OFF_TOT_LEN = 2,
	IP4_OFF_ID = 4,
	IP4_OFF_FRAG = 6, /* flags and fragment offset */
	IP4_OFF_TTL = 8,
	IP4_OFF_PROTO = 9,
	IP4_OFF_CSUM = 10,
	IP4_OFF_SRC = 12,
	IP4_OFF_DST = 16,
	IP4_FRAG_MF = 0x2000,
	IP4_FRAG_OFFSET = 0x1fff,

	IP6_HDR_LEN = 40,
	IP6_OFF_PAYLOAD_LEN = 4,
	IP6_OFF_NEXT = 6,
	IP6_OFF_HOP_LIMIT = 7,
	IP6_OFF_SRC = 8,
	IP6_OFF_DST = 24,

	IP_PROTO_ICMP = 1,
	IP_PROTO_TCP = 6,
	IP_PROTO_UDP = 17,
	IP_PROTO_ICMP6 = 58,
};

/* 4 or 6 for the packets the daemon handles (anything else: drop). */
static inline int ip_version(const uint8_t *p)
{
	return p[0] >> 4;
}

/* The IPv4 header's length with its options (IHL). */
static inline size_t ip4_hdr_len(const uint8_t *p)
{
	return (size_t)(p[0] & 0x0f) * 4;
}

/* Any fragment, the first one too: its ports are not in every piece. */
static inline bool ip4_is_fragment(const uint8_t *p)
{
	return (get_be16(p + IP4_OFF_FRAG) & (IP4_FRAG_MF | IP4_FRAG_OFFSET)) != 0;
}

/* A fragment but the first: it holds no L4 header. */
static inline bool ip4_is_later_fragment(const uint8_t *p)
{
	return (get_be16(p + IP4_OFF_FRAG) & IP4_FRAG_OFFSET) != 0;
}

#endif
