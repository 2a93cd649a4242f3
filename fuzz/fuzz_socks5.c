/* fuzz-sources: proxy/socks_proto.c proxy/cred.c */
/* The SOCKS5 server state machine (proxy/socks_proto.c) and its UDP header
 * parser.
 *
 * Input: a byte of flags (bit 0: credentials "user"/"pass" configured),
 * then the client's bytes, fed in pieces whose sizes come from the flags
 * byte's upper bits. Checks: no step takes more than it was given or
 * writes more than SOCKS5_OUT_MAX, a request is only acted on after the
 * right authentication, and a parsed UDP header builds back to the same
 * length. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proxy/socks_proto.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct socks5 s;
	struct socks5_step st;
	bool auth;
	size_t piece, pos = 1;
	uint8_t *copy;

	if (!size)
		return 0;
	auth = data[0] & 1;
	piece = (size_t)(data[0] >> 1) + 1;
	socks5_init(&s, auth ? "user" : NULL, auth ? "pass" : NULL);
	while (pos < size) {
		size_t n = size - pos < piece ? size - pos : piece;

		copy = malloc(n);
		if (!copy)
			return 0;
		memcpy(copy, data + pos, n);
		socks5_feed(&s, copy, n, &st);
		free(copy);
		check(st.used <= n, "took more than given");
		check(st.out_len <= SOCKS5_OUT_MAX, "out overflow");
		if (st.action == SOCKS5_CONNECT || st.action == SOCKS5_UDP_ASSOCIATE) {
			check(st.dst.atyp == SOCKS5_ATYP_IPV4 || st.dst.atyp == SOCKS5_ATYP_IPV6 ||
				  (st.dst.atyp == SOCKS5_ATYP_DOMAIN && st.dst.domain[0]),
			      "bad destination");
			/* with credentials, user/pass must have been sent verbatim */
			if (auth)
				check(memmem(data + 1, size - 1, "\x04user\x04pass", 10) != NULL,
				      "request without authentication");
		}
		if (st.action != SOCKS5_MORE) {
			socks5_feed(&s, data, 0, &st);
			check(st.action == SOCKS5_CLOSE, "fed after the end");
			break;
		}
		pos += n;
	}
	socks5_wipe(&s);

	/* the same bytes as a UDP datagram */
	struct socks5_addr a;
	uint8_t hdr[SOCKS5_UDP_HEADER_MAX];

	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	int h = socks5_udp_parse(copy, size, &a);
	if (h >= 0) {
		check((size_t)h <= size, "header longer than the datagram");
		check(socks5_udp_header(hdr, &a) == (size_t)h, "header does not rebuild");
		check(!memcmp(hdr, copy, (size_t)h), "header rebuilds differently");
	}
	free(copy);
	return 0;
}
