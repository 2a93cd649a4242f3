/* fuzz-sources: */
/* fuzz-options: -max_len=1200 */
/* Allowed IPs against the naive model: the input is a list of operations,
 * each checked as it runs; every owner's list is compared at the end.
 *   byte 0: op   bit 0 family (1 = IPv6), bits 1-2 kind (insert, remove,
 *                lookup, remove_by_owner if bit 6 else lookup), bits 3-4
 *                owner, bit 5 reuse the previous address (no address bytes)
 *   byte 1: cidr (taken modulo bits + 1; 0xff stays invalid)
 *   then 4 or 16 address bytes unless reused (short input is zero-padded). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "allowedips_model.h"
#include "fuzz.h"

#define NOWNERS 4

static struct wg_allowedips_owner owners[NOWNERS];

static int idx(const struct wg_allowedips_owner *o)
{
	return o ? (int)(o - owners) : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_allowedips *t = wg_allowedips_new();
	struct model m = {0};
	struct model_entry *scratch;
	uint8_t addr[16] = {0};
	size_t pos = 0;
	int ops = 0;

	check(t, "wg_allowedips_new failed");
	memset(owners, 0, sizeof(owners));
	while (pos + 2 <= size && ops++ < 2048) {
		uint8_t op = data[pos], raw = data[pos + 1];
		int family = op & 1 ? AF_INET6 : AF_INET, o = (op >> 3) & 3;
		unsigned int bits = family == AF_INET ? 32 : 128, kind = (op >> 1) & 3;
		unsigned int cidr = raw == 0xff ? 0xff : raw % (bits + 1);
		int got, want;

		pos += 2;
		if (!(op & 0x20)) {
			size_t n = size - pos < bits / 8 ? size - pos : bits / 8;
			memset(addr, 0, sizeof(addr));
			memcpy(addr, data + pos, n);
			pos += n;
		}
		if (kind == 0) {
			got = wg_allowedips_insert(t, family, addr, (uint8_t)cidr, &owners[o]);
			if (cidr > bits) {
				check(got == -EINVAL, "insert of a bad cidr");
				continue;
			}
			check(got == 0, "insert failed");
			model_insert(&m, family, addr, cidr, o);
		} else if (kind == 1) {
			got = wg_allowedips_remove(t, family, addr, (uint8_t)cidr, &owners[o]);
			want = cidr > bits || model_remove(&m, family, addr, cidr, o) ? -ENOENT : 0;
			check(got == want, "remove differs from the model");
		} else if (kind == 3 && (op & 0x40)) {
			wg_allowedips_remove_by_owner(t, &owners[o]);
			model_remove_owner(&m, o);
		} else {
			check(idx(wg_allowedips_lookup(t, family, addr)) ==
				  model_lookup(&m, family, addr),
			      "lookup differs from the model");
		}
	}
	scratch = malloc((m.n + 1) * sizeof(*scratch));
	check(scratch, "out of memory");
	for (int i = 0; i < NOWNERS; i++)
		check(model_check_owner(&m, i, &owners[i], scratch),
		      "owner's list differs from the model");
	check(trie_nodes(t) >= m.n && trie_nodes(t) <= 2 * m.n, "node count");
	/* Half the time tear down owner by owner, which must empty the trie. */
	if (size & 1) {
		for (int i = 0; i < NOWNERS; i++)
			wg_allowedips_remove_by_owner(t, &owners[i]);
		check(trie_nodes(t) == 0, "nodes left after removing every owner");
	}
	free(scratch);
	model_free(&m);
	wg_allowedips_free(t);
	return 0;
}
