// SPDX-License-Identifier: MIT
/* DNS A/AAAA queries and responses for the proxy mode's resolver (see
 * dns.h). Everything read from a response is bounds-checked first. */
#include "dns.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "../daemon/be.h"

enum {
	HEADER_LEN = 12,
	FLAG_QR = 0x8000,
	FLAG_TC = 0x0200,
	FLAG_RD = 0x0100,
	OPCODE_MASK = 0x7800,
	RCODE_MASK = 0x000f,
	NAME_WIRE_MAX = 255,
	LABEL_MAX = 63,
	RR_FIXED = 10, /* TYPE CLASS TTL RDLENGTH */
};

static bool label_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* Writes name in wire form to out (NAME_WIRE_MAX bytes); returns its
 * length or 0 if name is not an acceptable host name. */
static size_t encode_name(const char *name, uint8_t *out)
{
	size_t len = strnlen(name, NAME_WIRE_MAX + 1), n = 0;

	if (len && name[len - 1] == '.')
		len--;
	if (!len || len > NAME_WIRE_MAX - 2 || name[len - 1] == '.')
		return 0;
	for (size_t i = 0; i < len;) {
		size_t l = 0;

		while (i + l < len && name[i + l] != '.') {
			if (!label_char(name[i + l]))
				return 0;
			l++;
		}
		if (!l || l > LABEL_MAX)
			return 0;
		out[n++] = (uint8_t)l;
		memcpy(out + n, name + i, l);
		n += l;
		i += l + 1;
	}
	out[n++] = 0;
	return n;
}

size_t dns_build_query(uint8_t *out, size_t cap, uint16_t id, const char *name, uint16_t qtype)
{
	uint8_t wire[NAME_WIRE_MAX];
	size_t n;

	if (qtype != DNS_TYPE_A && qtype != DNS_TYPE_AAAA)
		return 0;
	n = encode_name(name, wire);
	if (!n || cap < HEADER_LEN + n + 4)
		return 0;
	memset(out, 0, HEADER_LEN);
	put_be16(out, id);
	put_be16(out + 2, FLAG_RD);
	put_be16(out + 4, 1); /* QDCOUNT */
	memcpy(out + HEADER_LEN, wire, n);
	put_be16(out + HEADER_LEN + n, qtype);
	put_be16(out + HEADER_LEN + n + 2, DNS_CLASS_IN);
	return HEADER_LEN + n + 4;
}

/* The name at off as lower-case dotted text; *end: the offset after it.
 * Pointers must point backwards, so every name ends; host-name characters
 * only, so the text stands for one name only. */
static bool read_name(const uint8_t *pkt, size_t len, size_t off, char *text, size_t *end)
{
	size_t n = 0, wire = 0;
	int hops = 0;
	bool jumped = false;

	while (true) {
		if (off >= len)
			return false;
		uint8_t c = pkt[off];

		if ((c & 0xc0) == 0xc0) {
			size_t ptr;

			if (off + 1 >= len || ++hops > DNS_MAX_POINTER_HOPS)
				return false;
			ptr = (size_t)(c & 0x3f) << 8 | pkt[off + 1];
			if (ptr >= off)
				return false;
			if (!jumped)
				*end = off + 2;
			jumped = true;
			off = ptr;
			continue;
		}
		if (c & 0xc0) /* the reserved label types */
			return false;
		wire += 1 + (size_t)c;
		if (wire > NAME_WIRE_MAX)
			return false;
		if (!c)
			break;
		if (off + 1 + c > len)
			return false;
		if (n)
			text[n++] = '.';
		for (size_t i = 0; i < c; i++) {
			char ch = (char)pkt[off + 1 + i];

			if (!label_char(ch))
				return false;
			text[n++] = (char)tolower((unsigned char)ch);
		}
		off += 1 + (size_t)c;
	}
	if (!jumped)
		*end = off + 1;
	text[n] = '\0';
	return true;
}

struct rr {
	char owner[NAME_WIRE_MAX + 1];
	uint16_t type, class;
	size_t rdata, rdlen;
};

/* Reads the resource record at *off; advances *off past it. */
static bool read_rr(const uint8_t *pkt, size_t len, size_t *off, struct rr *rr)
{
	size_t p;

	if (!read_name(pkt, len, *off, rr->owner, &p) || len - p < RR_FIXED)
		return false;
	rr->type = get_be16(pkt + p);
	rr->class = get_be16(pkt + p + 2);
	rr->rdlen = get_be16(pkt + p + 8);
	rr->rdata = p + RR_FIXED;
	if (len - rr->rdata < rr->rdlen)
		return false;
	*off = rr->rdata + rr->rdlen;
	return true;
}

int dns_parse_response(const uint8_t *pkt, size_t len, uint16_t id, const char *name,
		       uint16_t qtype, struct proxy_ip *out, size_t max)
{
	char want[NAME_WIRE_MAX + 1], qname[NAME_WIRE_MAX + 1];
	uint8_t wire[NAME_WIRE_MAX];
	size_t off, answers, found = 0, n;
	uint16_t flags, ancount;
	struct rr rr;

	if (len < HEADER_LEN)
		return DNS_E_MALFORMED;
	flags = get_be16(pkt + 2);
	if (get_be16(pkt) != id || !(flags & FLAG_QR) || (flags & OPCODE_MASK) ||
	    get_be16(pkt + 4) != 1)
		return DNS_E_MISMATCH;
	ancount = get_be16(pkt + 6);
	if (!read_name(pkt, len, HEADER_LEN, qname, &off) || len - off < 4)
		return DNS_E_MALFORMED;
	/* our name as read_name() gives it back: lower case, no final dot */
	n = encode_name(name, wire);
	if (!n || !read_name(wire, n, 0, want, &n) || strcmp(qname, want) ||
	    get_be16(pkt + off) != qtype || get_be16(pkt + off + 2) != DNS_CLASS_IN)
		return DNS_E_MISMATCH;
	if (flags & RCODE_MASK)
		return DNS_E_RCODE;
	answers = off + 4;

	/* one pass per name along the CNAME chain: addresses of the name
	 * end it, else its CNAME leads to the next name */
	for (int hop = 0; hop <= DNS_MAX_CNAME_HOPS; hop++) {
		char next[NAME_WIRE_MAX + 1] = "";
		bool got = false;

		off = answers;
		for (unsigned i = 0; i < ancount; i++) {
			if (!read_rr(pkt, len, &off, &rr))
				return DNS_E_MALFORMED;
			if (rr.class != DNS_CLASS_IN || strcmp(rr.owner, want))
				continue;
			if (rr.type == DNS_TYPE_CNAME && !next[0]) {
				size_t end;

				if (!read_name(pkt, len, rr.rdata, next, &end) ||
				    end > rr.rdata + rr.rdlen)
					return DNS_E_MALFORMED;
			} else if (rr.type == qtype) {
				size_t alen = qtype == DNS_TYPE_A ? 4 : 16;

				if (rr.rdlen != alen)
					return DNS_E_MALFORMED;
				got = true;
				if (found < max) { /* in4 and in6 share their place */
					memset(&out[found], 0, sizeof(out[found]));
					out[found].family = alen == 4 ? AF_INET : AF_INET6;
					memcpy(&out[found++].in4, pkt + rr.rdata, alen);
				}
			}
		}
		if (got || !next[0])
			break;
		/* a loop ends with the hops */
		memcpy(want, next, sizeof(want));
	}
	if (!found && (flags & FLAG_TC))
		return DNS_E_TRUNCATED;
	return (int)found;
}
