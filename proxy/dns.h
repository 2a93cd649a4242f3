/* A minimal DNS stub client's messages (RFC 1035, AAAA from RFC 3596):
 * build one A or AAAA query, read its response. No I/O: the caller sends
 * the query over UDP through the tunnel to an [Interface] DNS server and
 * feeds back what arrives. Hostile responses are expected: every length,
 * count and compression pointer is bounded and checked.
 */
#ifndef ZT_DNS_H
#define ZT_DNS_H

#include <stddef.h>
#include <stdint.h>

#include "proxy_conf.h"

enum {
	DNS_TYPE_A = 1,
	DNS_TYPE_CNAME = 5,
	DNS_TYPE_AAAA = 28,
	DNS_CLASS_IN = 1,
};

/* Negative results of dns_parse_response(). */
enum dns_error {
	DNS_E_MALFORMED = -1, /* not a well-formed DNS response */
	DNS_E_MISMATCH = -2,  /* not the answer to our query (id, question): ignore, keep waiting */
	DNS_E_RCODE = -3,     /* server error or NXDOMAIN (RCODE != 0) */
	DNS_E_TRUNCATED = -4, /* TC set and no usable answer */
};

/* Writes a query for name (dotted, a final '.' allowed; labels 1..63
 * bytes, wire form <= 255) of qtype (DNS_TYPE_A or DNS_TYPE_AAAA) with RD
 * set into out (cap >= DNS_QUERY_MAX suffices). id: random, from the
 * caller. Returns the length, or 0 if name or qtype is not acceptable. */
size_t dns_build_query(uint8_t *out, size_t cap, uint16_t id, const char *name, uint16_t qtype);

/* Reads a response to the query (id, name, qtype): checks the id, QR, that
 * the one question is ours (name compared case-insensitively) and RCODE;
 * then takes the answers of qtype, class IN for name or for the names it
 * leads to through CNAME records (at most DNS_MAX_CNAME_HOPS, in any
 * order). Returns how many addresses it wrote to out (at most max; 0: the
 * name has no such records), or a negative enum dns_error. *ttl (may be
 * NULL) gets the smallest TTL along the way. */
int dns_parse_response(const uint8_t *pkt, size_t len, uint16_t id, const char *name,
		       uint16_t qtype, struct proxy_ip *out, size_t max, uint32_t *ttl);

#endif
