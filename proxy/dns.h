/* A DNS stub client's A and AAAA messages (RFC 1035, 3596), no I/O.
 * Responses may be hostile: every length, count and pointer is checked. */
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

enum dns_error {
	DNS_E_MALFORMED = -1, /* not a well-formed DNS response */
	DNS_E_MISMATCH = -2,  /* not the answer to our query (id, question): ignore, keep waiting */
	DNS_E_RCODE = -3,     /* server error or NXDOMAIN (RCODE != 0) */
	DNS_E_TRUNCATED = -4, /* TC set and no usable answer */
};

/* Writes a recursive query (DNS_QUERY_MAX bytes at most) for a host name
 * and DNS_TYPE_A or _AAAA; returns its length, 0 if either is bad. */
size_t dns_build_query(uint8_t *out, size_t cap, uint16_t id, const char *name, uint16_t qtype);

/* Takes the response to the query (id, name, qtype): the addresses of
 * name, or of where its CNAMEs lead (at most DNS_MAX_CNAME_HOPS). Returns
 * how many it wrote to out (at most max), or a negative enum dns_error. */
int dns_parse_response(const uint8_t *pkt, size_t len, uint16_t id, const char *name,
		       uint16_t qtype, struct proxy_ip *out, size_t max);

#endif
