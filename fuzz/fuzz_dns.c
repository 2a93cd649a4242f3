/* fuzz-sources: proxy/dns.c */
/* DNS responses (proxy/dns.c), hostile ones above all.
 *
 * Input: a byte of flags (bit 0: AAAA rather than A; bit 1: the rest is a
 * whole response; else it is appended, as the answer section with the
 * ANCOUNT of the next byte, to a valid header and question for
 * "www.example.com", which takes the fuzzer past the id and question
 * checks at once). Checks: the count is within max, addresses have the
 * family asked for, and a query built from the same bytes as a name is
 * within DNS_QUERY_MAX. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proxy/dns.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t q[DNS_QUERY_MAX];
	struct proxy_ip out[4];
	uint16_t qtype;
	uint8_t *pkt;
	size_t len, qlen;
	int n;

	if (size < 2)
		return 0;
	qtype = data[0] & 1 ? DNS_TYPE_AAAA : DNS_TYPE_A;
	qlen = dns_build_query(q, sizeof(q), 0x4242, "www.example.com", qtype);
	check(qlen > 0, "query for a good name refused");
	if (data[0] & 2) {
		len = size - 1;
		pkt = malloc(len ? len : 1);
		if (!pkt)
			return 0;
		memcpy(pkt, data + 1, len);
	} else {
		len = qlen + size - 2;
		pkt = malloc(len);
		if (!pkt)
			return 0;
		memcpy(pkt, q, qlen);
		pkt[2] |= 0x80; /* QR */
		pkt[7] = data[1];
		memcpy(pkt + qlen, data + 2, size - 2);
	}
	n = dns_parse_response(pkt, len, 0x4242, "www.example.com", qtype, out,
			       (size_t)(data[0] >> 2) % 5);
	check(n >= DNS_E_TRUNCATED && n <= 4 && n <= (data[0] >> 2) % 5, "count");
	for (int i = 0; i < n; i++)
		check(out[i].family == (qtype == DNS_TYPE_A ? AF_INET : AF_INET6), "family");
	free(pkt);

	/* the bytes as a name */
	char name[300];
	size_t nl = size - 1 < sizeof(name) - 1 ? size - 1 : sizeof(name) - 1;

	memcpy(name, data + 1, nl);
	name[nl] = '\0';
	qlen = dns_build_query(q, sizeof(q), 1, name, qtype);
	check(qlen <= DNS_QUERY_MAX, "query too long");
	return 0;
}
