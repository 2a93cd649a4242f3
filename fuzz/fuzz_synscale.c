/* fuzz-sources: proxy/synscale.c */
/* fuzz-options: -max_len=200 */
/* Raising the window scale of lwIP's SYNs (proxy/synscale.c), on any
 * packet.
 *
 * Input: the shift to look for, the shift to put, then the packet. Checks:
 * nothing is read or written outside the packet (ASan); a packet left
 * alone is unchanged; a rewritten one differs only in one option byte,
 * now the new shift, and in the TCP checksum field, and the sum over its
 * TCP bytes is what it was (the checksum still verifies if it did). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proxy/synscale.h"
#include "../tests/rfc1071.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* one's complement: 0 and 0xffff are the same number */
static bool same_sum(uint16_t a, uint16_t b)
{
	return a == b || (a == 0 && b == 0xffff) || (a == 0xffff && b == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t from, to, *pkt;
	size_t len, l4, others = 0;

	if (size < 2)
		return 0;
	from = data[0];
	to = data[1];
	len = size - 2;
	/* exactly the packet's bytes: ASan sees any access past them */
	pkt = malloc(len ? len : 1);
	if (!pkt)
		return 0;
	memcpy(pkt, data + 2, len);
	if (!syn_scale_rewrite(pkt, len, from, to)) {
		check(!memcmp(pkt, data + 2, len), "a packet left alone changed");
		free(pkt);
		return 0;
	}
	l4 = (pkt[0] >> 4) == 4 ? (size_t)(pkt[0] & 15) * 4 : 40;
	check(l4 + 20 <= len, "rewritten without a whole TCP header");
	for (size_t i = 0; i < len; i++) {
		if (pkt[i] == data[2 + i] || i == l4 + 16 || i == l4 + 17)
			continue;
		check(pkt[i] == to, "a byte became something else than the new shift");
		others++;
	}
	check(others <= 1, "more than the shift and the checksum changed");
	check(same_sum(rfc1071_fold(rfc1071_add(0, pkt + l4, len - l4)),
		       rfc1071_fold(rfc1071_add(0, data + 2 + l4, len - l4))),
	      "the TCP bytes' sum changed");
	free(pkt);
	return 0;
}
