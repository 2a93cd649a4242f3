// SPDX-License-Identifier: MIT
/* DNS queries and responses for the proxy's resolver (proxy/dns.c):
 * queries byte for byte, answers with compression and CNAME chains, and
 * hostile responses (pointer loops, forward pointers, bad lengths). */
#include "test.h"

#include "../../proxy/dns.c"

#include <arpa/inet.h>

struct msg {
	uint8_t b[1024];
	size_t n;
};

static void u8(struct msg *m, uint8_t v)
{
	m->b[m->n++] = v;
}

static void u16(struct msg *m, uint16_t v)
{
	u8(m, (uint8_t)(v >> 8));
	u8(m, (uint8_t)v);
}

static void u32(struct msg *m, uint32_t v)
{
	u16(m, (uint16_t)(v >> 16));
	u16(m, (uint16_t)v);
}

/* A name in wire form, uncompressed: "a.b" -> 1 a 1 b 0. */
static void name(struct msg *m, const char *s)
{
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);
		u8(m, (uint8_t)l);
		memcpy(m->b + m->n, s, l);
		m->n += l;
		s += l + (dot ? 1 : 0);
	}
	u8(m, 0);
}

static void ptr(struct msg *m, uint16_t off)
{
	u16(m, (uint16_t)(0xc000 | off));
}

/* Header and question: QR, RD, RA set plus extra flags. Leaves the
 * question name at offset 12. */
static void head(struct msg *m, uint16_t id, uint16_t flags, uint16_t an, const char *q,
		 uint16_t qtype)
{
	m->n = 0;
	u16(m, id);
	u16(m, (uint16_t)(0x8180 | flags));
	u16(m, 1);
	u16(m, an);
	u16(m, 0);
	u16(m, 0);
	name(m, q);
	u16(m, qtype);
	u16(m, DNS_CLASS_IN);
}

/* An answer's fixed part after its owner name. */
static void rr(struct msg *m, uint16_t type, uint32_t ttl, uint16_t rdlen)
{
	u16(m, type);
	u16(m, DNS_CLASS_IN);
	u32(m, ttl);
	u16(m, rdlen);
}

static void a_rr(struct msg *m, uint32_t ttl, uint8_t last)
{
	ptr(m, 12);
	rr(m, DNS_TYPE_A, ttl, 4);
	u8(m, 192);
	u8(m, 0);
	u8(m, 2);
	u8(m, last);
}

static bool addr4(const struct proxy_ip *a, const char *text)
{
	struct in_addr x;
	return a->family == AF_INET && inet_pton(AF_INET, text, &x) == 1 &&
	       x.s_addr == a->in4.s_addr;
}

static void test_query(void)
{
	uint8_t q[DNS_QUERY_MAX];
	static const uint8_t want[] = {0x12, 0x34, 0x01, 0x00, 0,   1,	 0,   0,   0,	0,
				       0,    0,	   7,	 'e',  'x', 'a', 'm', 'p', 'l', 'e',
				       3,    'c',  'o',	 'm',  0,   0,	 28,  0,   1};
	char name253[254], name255[256], label64[70];

	CHECK(dns_build_query(q, sizeof(q), 0x1234, "example.com", DNS_TYPE_AAAA) == sizeof(want) &&
	      !memcmp(q, want, sizeof(want)));
	CHECK(dns_build_query(q, sizeof(q), 0x1234, "example.com.", DNS_TYPE_AAAA) ==
		  sizeof(want) &&
	      !memcmp(q, want, sizeof(want)));
	CHECK(dns_build_query(q, sizeof(q), 1, "a", DNS_TYPE_A) == 12 + 3 + 4 && q[16] == 1);
	CHECK(dns_build_query(q, sizeof(want) - 1, 1, "example.com", DNS_TYPE_A) == 0);
	CHECK(dns_build_query(q, sizeof(q), 1, "example.com", DNS_TYPE_CNAME) == 0);
	CHECK(dns_build_query(q, sizeof(q), 1, "", DNS_TYPE_A) == 0);
	CHECK(dns_build_query(q, sizeof(q), 1, ".", DNS_TYPE_A) == 0);
	CHECK(dns_build_query(q, sizeof(q), 1, "a..b", DNS_TYPE_A) == 0);
	CHECK(dns_build_query(q, sizeof(q), 1, ".a", DNS_TYPE_A) == 0);
	CHECK(dns_build_query(q, sizeof(q), 1, "a..", DNS_TYPE_A) == 0);
	CHECK(dns_build_query(q, sizeof(q), 1, "a b", DNS_TYPE_A) == 0);
	CHECK(dns_build_query(q, sizeof(q), 1, "a\\.b", DNS_TYPE_A) == 0);
	memset(label64, 'x', 64);
	label64[64] = '\0';
	CHECK(dns_build_query(q, sizeof(q), 1, label64, DNS_TYPE_A) == 0);
	label64[63] = '\0';
	CHECK(dns_build_query(q, sizeof(q), 1, label64, DNS_TYPE_A) == 12 + 65 + 4);
	/* 253 characters is the longest name (255 bytes on the wire) */
	for (int i = 0; i < 253; i++)
		name253[i] = i % 2 ? '.' : 'a';
	name253[253] = '\0';
	CHECK(dns_build_query(q, sizeof(q), 1, name253, DNS_TYPE_A) == 12 + 255 + 4);
	CHECK(12 + 255 + 4 == DNS_QUERY_MAX);
	memcpy(name255, "b.", 2);
	memcpy(name255 + 2, name253, 254);
	CHECK(strlen(name255) == 255);
	CHECK(dns_build_query(q, sizeof(q), 1, name255, DNS_TYPE_A) == 0);
	name255[1] = 'b'; /* "ba.a.a...": 254 characters, one too many */
	CHECK(dns_build_query(q, sizeof(q), 1, name255 + 1, DNS_TYPE_A) == 0);
}

static void test_answers(void)
{
	struct msg m;
	struct proxy_ip out[4];

	/* two A records through a compression pointer, one for another name */
	head(&m, 0x1234, 0, 3, "example.com", DNS_TYPE_A);
	a_rr(&m, 300, 1);
	name(&m, "other.example");
	rr(&m, DNS_TYPE_A, 5, 4);
	u32(&m, 0x01020304);
	a_rr(&m, 60, 2);
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "Example.COM.", DNS_TYPE_A, out, 4) == 2);
	CHECK(addr4(&out[0], "192.0.2.1") && addr4(&out[1], "192.0.2.2"));
	/* more answers than room */
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_A, out, 1) == 1);

	/* AAAA; the server's case differs from ours */
	head(&m, 9, 0, 1, "V6.Example.com", DNS_TYPE_AAAA);
	ptr(&m, 12);
	rr(&m, DNS_TYPE_AAAA, 10, 16);
	u32(&m, 0x20010db8);
	u32(&m, 0);
	u32(&m, 0);
	u32(&m, 1);
	CHECK(dns_parse_response(m.b, m.n, 9, "v6.example.com", DNS_TYPE_AAAA, out, 4) == 1);
	CHECK(out[0].family == AF_INET6 && out[0].in6.s6_addr[0] == 0x20 &&
	      out[0].in6.s6_addr[15] == 1);

	/* a CNAME chain, the records in reverse order, a name pointer into
	 * another record's data */
	head(&m, 1, 0, 3, "www.example.com", DNS_TYPE_A);
	size_t cdn_at = m.n;
	name(&m, "edge.cdn.net");
	rr(&m, DNS_TYPE_A, 20, 4);
	u32(&m, 0x0a000001);
	ptr(&m, 12);
	rr(&m, DNS_TYPE_CNAME, 100, 2);
	size_t alias_rdata = m.n;
	ptr(&m, 0); /* patched below: www -> alias.example.com */
	size_t alias_at = m.n;
	u8(&m, 5);
	memcpy(m.b + m.n, "alias", 5);
	m.n += 5;
	ptr(&m, 16); /* "example.com" inside the question */
	rr(&m, DNS_TYPE_CNAME, 50, 2);
	ptr(&m, (uint16_t)cdn_at);
	m.b[alias_rdata] = (uint8_t)(0xc0 | alias_at >> 8);
	m.b[alias_rdata + 1] = (uint8_t)alias_at;
	/* the CNAME at alias_rdata points forward: refused, as loops could */
	CHECK(dns_parse_response(m.b, m.n, 1, "www.example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_MALFORMED);

	/* the same chain written the usual way: CNAME, CNAME, A */
	head(&m, 1, 0, 3, "www.example.com", DNS_TYPE_A);
	ptr(&m, 12);
	rr(&m, DNS_TYPE_CNAME, 100, 8);
	size_t alias = m.n;
	u8(&m, 5);
	memcpy(m.b + m.n, "alias", 5);
	m.n += 5;
	ptr(&m, 16);
	ptr(&m, (uint16_t)alias);
	rr(&m, DNS_TYPE_CNAME, 50, 14);
	size_t edge = m.n;
	name(&m, "edge.cdn.net");
	ptr(&m, (uint16_t)edge);
	rr(&m, DNS_TYPE_A, 20, 4);
	u32(&m, 0x0a000001);
	CHECK(dns_parse_response(m.b, m.n, 1, "www.example.com", DNS_TYPE_A, out, 4) == 1);
	CHECK(addr4(&out[0], "10.0.0.1"));
	/* the address record first, the CNAME after it: found on the second pass */
	head(&m, 6, 0, 2, "www.example.com", DNS_TYPE_A);
	edge = m.n;
	name(&m, "edge.cdn.net");
	rr(&m, DNS_TYPE_A, 20, 4);
	u32(&m, 0x0a000002);
	ptr(&m, 12);
	rr(&m, DNS_TYPE_CNAME, 5, 2);
	ptr(&m, (uint16_t)edge);
	CHECK(dns_parse_response(m.b, m.n, 6, "www.example.com", DNS_TYPE_A, out, 4) == 1);
	CHECK(addr4(&out[0], "10.0.0.2"));

	/* a CNAME loop: no address, and it ends */
	head(&m, 2, 0, 2, "a.test", DNS_TYPE_A);
	ptr(&m, 12);
	rr(&m, DNS_TYPE_CNAME, 1, 4);
	size_t b_at = m.n;
	u8(&m, 1);
	u8(&m, 'b');
	ptr(&m, 14); /* "test" */
	ptr(&m, (uint16_t)b_at);
	rr(&m, DNS_TYPE_CNAME, 1, 2);
	ptr(&m, 12);
	CHECK(dns_parse_response(m.b, m.n, 2, "a.test", DNS_TYPE_A, out, 4) == 0);

	/* a chain longer than DNS_MAX_CNAME_HOPS: no address */
	head(&m, 3, 0, DNS_MAX_CNAME_HOPS + 2, "c0.t", DNS_TYPE_A);
	size_t prev = 12;
	for (int i = 1; i <= DNS_MAX_CNAME_HOPS + 1; i++) {
		ptr(&m, (uint16_t)prev);
		rr(&m, DNS_TYPE_CNAME, 1, 5);
		size_t at = m.n;
		u8(&m, 2);
		u8(&m, 'c');
		u8(&m, (uint8_t)('0' + i));
		ptr(&m, 15); /* "t" */
		prev = at;
	}
	ptr(&m, (uint16_t)prev);
	rr(&m, DNS_TYPE_A, 1, 4);
	u32(&m, 0x01010101);
	CHECK(dns_parse_response(m.b, m.n, 3, "c0.t", DNS_TYPE_A, out, 4) == 0);
	/* DNS_MAX_CNAME_HOPS CNAMEs are followed */
	head(&m, 4, 0, DNS_MAX_CNAME_HOPS + 1, "c0.t", DNS_TYPE_A);
	prev = 12;
	for (int i = 1; i <= DNS_MAX_CNAME_HOPS; i++) {
		ptr(&m, (uint16_t)prev);
		rr(&m, DNS_TYPE_CNAME, 1, 5);
		size_t at = m.n;
		u8(&m, 2);
		u8(&m, 'c');
		u8(&m, (uint8_t)('0' + i));
		ptr(&m, 15);
		prev = at;
	}
	ptr(&m, (uint16_t)prev);
	rr(&m, DNS_TYPE_A, 1, 4);
	u32(&m, 0x01010101);
	CHECK(dns_parse_response(m.b, m.n, 4, "c0.t", DNS_TYPE_A, out, 4) == 1);

	/* NODATA: no answers, RCODE 0 */
	head(&m, 5, 0, 0, "example.com", DNS_TYPE_AAAA);
	CHECK(dns_parse_response(m.b, m.n, 5, "example.com", DNS_TYPE_AAAA, out, 4) == 0);
	/* records of another class are not ours */
	head(&m, 5, 0, 1, "example.com", DNS_TYPE_A);
	ptr(&m, 12);
	u16(&m, DNS_TYPE_A);
	u16(&m, 3); /* CH */
	u32(&m, 1);
	u16(&m, 4);
	u32(&m, 0x01020304);
	CHECK(dns_parse_response(m.b, m.n, 5, "example.com", DNS_TYPE_A, out, 4) == 0);
}

static void test_rejected(void)
{
	struct msg m;
	struct proxy_ip out[4];

	head(&m, 0x1234, 0, 1, "example.com", DNS_TYPE_A);
	a_rr(&m, 1, 1);
	struct msg good = m;

	CHECK(dns_parse_response(m.b, m.n, 0x1235, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_MISMATCH);
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.org", DNS_TYPE_A, out, 4) ==
	      DNS_E_MISMATCH);
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_AAAA, out, 4) ==
	      DNS_E_MISMATCH);
	m.b[2] &= 0x7f; /* a query, not a response */
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_MISMATCH);
	m = good;
	m.b[5] = 2; /* two questions */
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_MISMATCH);
	m = good;
	m.b[3] |= 3; /* NXDOMAIN */
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_RCODE);
	m = good;
	m.b[3] |= 2; /* SERVFAIL */
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_RCODE);
	head(&m, 1, 0x0200, 0, "example.com", DNS_TYPE_A); /* TC, nothing usable */
	CHECK(dns_parse_response(m.b, m.n, 1, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_TRUNCATED);
	head(&m, 1, 0x0200, 1, "example.com", DNS_TYPE_A); /* TC, but an answer */
	a_rr(&m, 1, 9);
	CHECK(dns_parse_response(m.b, m.n, 1, "example.com", DNS_TYPE_A, out, 4) == 1);

	/* every truncation of a good response is refused, never read past */
	m = good;
	for (size_t n = 0; n < m.n; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, m.b, n);
		int rc = dns_parse_response(copy, n, 0x1234, "example.com", DNS_TYPE_A, out, 4);
		CHECK(rc == DNS_E_MALFORMED);
		free(copy);
	}
	/* an A record of 5 bytes */
	m = good;
	m.b[m.n - 5] = 5;
	u8(&m, 0);
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_MALFORMED);
	/* a pointer to itself, and one forward */
	m = good;
	m.b[m.n - 16] = 0xc0;
	m.b[m.n - 15] = (uint8_t)(m.n - 16);
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_MALFORMED);
	m.b[m.n - 15] = (uint8_t)(m.n - 2);
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_MALFORMED);
	/* a reserved label type (0x40) */
	m = good;
	m.b[m.n - 16] = 0x40;
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_MALFORMED);
	/* a label with a dot in it would read as two labels: refused */
	head(&m, 1, 0, 0, "a", DNS_TYPE_A);
	m.n = 12;
	u8(&m, 3);
	u8(&m, 'a');
	u8(&m, '.');
	u8(&m, 'b');
	u8(&m, 0);
	u16(&m, DNS_TYPE_A);
	u16(&m, 1);
	CHECK(dns_parse_response(m.b, m.n, 1, "a.b", DNS_TYPE_A, out, 4) == DNS_E_MALFORMED);
	/* more answers announced than present */
	m = good;
	m.b[7] = 2;
	CHECK(dns_parse_response(m.b, m.n, 0x1234, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_MALFORMED);
	CHECK(dns_parse_response(m.b, 11, 0x1234, "example.com", DNS_TYPE_A, out, 4) ==
	      DNS_E_MALFORMED);
}

int main(void)
{
	test_query();
	test_answers();
	test_rejected();
	return test_finish("test_dns");
}
