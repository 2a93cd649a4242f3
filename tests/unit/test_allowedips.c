/* Allowed IPs: a fixed table (replacement, masking, remove, remove by owner,
 * foreach order), argument checks, a randomized comparison against the naive
 * model in tests/allowedips_model.h, and a 1M-prefix sanity run. */
#include <arpa/inet.h>
#include <errno.h>
#include <time.h>

#include "test.h"
#include "allowedips_model.h"

static struct wg_allowedips_owner owners[16];

static int owner_idx(const struct wg_allowedips_owner *o)
{
	return o ? (int)(o - owners) : -1;
}

static int ins(struct wg_allowedips *t, const char *ip, unsigned int cidr, int o)
{
	uint8_t a[16];
	int family = strchr(ip, ':') ? AF_INET6 : AF_INET;

	if (inet_pton(family, ip, a) != 1)
		abort();
	return wg_allowedips_insert(t, family, a, (uint8_t)cidr, &owners[o]);
}

static int rem(struct wg_allowedips *t, const char *ip, unsigned int cidr, int o)
{
	uint8_t a[16];
	int family = strchr(ip, ':') ? AF_INET6 : AF_INET;

	if (inet_pton(family, ip, a) != 1)
		abort();
	return wg_allowedips_remove(t, family, a, (uint8_t)cidr, &owners[o]);
}

static int look(struct wg_allowedips *t, const char *ip)
{
	uint8_t a[16];
	int family = strchr(ip, ':') ? AF_INET6 : AF_INET;

	if (inet_pton(family, ip, a) != 1)
		abort();
	return owner_idx(wg_allowedips_lookup(t, family, a));
}

/* Collects an owner's prefixes as "addr/cidr" strings joined by spaces. */
struct collect {
	char buf[1024];
	int stop_after;
};

static bool collect_fn(void *ctx, int family, const void *addr, uint8_t cidr)
{
	struct collect *c = ctx;
	char ip[INET6_ADDRSTRLEN];
	size_t len = strlen(c->buf);

	inet_ntop(family, addr, ip, sizeof(ip));
	snprintf(c->buf + len, sizeof(c->buf) - len, "%s%s/%u", len ? " " : "", ip, cidr);
	return --c->stop_after != 0;
}

static const char *list(int o)
{
	static struct collect c;

	memset(&c, 0, sizeof(c));
	c.stop_after = -1;
	wg_allowedips_foreach(&owners[o], collect_fn, &c);
	return c.buf;
}

static void test_fixed(void)
{
	struct wg_allowedips *t = wg_allowedips_new();
	struct collect c;
	uint8_t a[16] = {0};

	CHECK(t != NULL);
	memset(owners, 0, sizeof(owners));
	CHECK(look(t, "10.0.0.1") == -1);
	CHECK(look(t, "::1") == -1);

	CHECK(ins(t, "10.1.0.0", 16, 1) == 0);
	CHECK(ins(t, "10.1.2.0", 24, 2) == 0);
	CHECK(ins(t, "10.1.2.77", 32, 3) == 0);
	CHECK(ins(t, "10.1.2.200", 25, 4) == 0); /* masked to 10.1.2.128/25 */
	CHECK(ins(t, "172.16.9.9", 12, 5) == 0); /* masked to 172.16.0.0/12 */
	CHECK(ins(t, "10.128.0.0", 9, 6) == 0);
	CHECK(ins(t, "fd00:1:2:3::", 64, 1) == 0);
	CHECK(ins(t, "fd00:1:2:3::42", 128, 2) == 0);
	CHECK(ins(t, "fd00:1:2:3:8000::1", 65, 3) == 0); /* masked to fd00:1:2:3:8000::/65 */
	CHECK(ins(t, "fd00:1::ffff", 32, 4) == 0);	 /* masked to fd00:1::/32 */
	CHECK(ins(t, "2001:db8::", 32, 5) == 0);

	CHECK(look(t, "10.1.0.1") == 1);
	CHECK(look(t, "10.1.255.255") == 1);
	CHECK(look(t, "10.1.2.1") == 2);
	CHECK(look(t, "10.1.2.77") == 3);
	CHECK(look(t, "10.1.2.76") == 2);
	CHECK(look(t, "10.1.2.78") == 2);
	CHECK(look(t, "10.1.2.128") == 4);
	CHECK(look(t, "10.1.2.255") == 4);
	CHECK(look(t, "10.1.2.127") == 2);
	CHECK(look(t, "10.2.0.0") == -1);
	CHECK(look(t, "10.0.255.255") == -1);
	CHECK(look(t, "172.31.255.255") == 5);
	CHECK(look(t, "172.32.0.0") == -1);
	CHECK(look(t, "172.15.255.255") == -1);
	CHECK(look(t, "10.128.0.1") == 6);
	CHECK(look(t, "10.255.255.255") == 6);
	CHECK(look(t, "10.127.255.255") == -1);
	CHECK(look(t, "fd00:1:2:3::1") == 1);
	CHECK(look(t, "fd00:1:2:3::42") == 2);
	CHECK(look(t, "fd00:1:2:3::43") == 1);
	CHECK(look(t, "fd00:1:2:3:8000::") == 3);
	CHECK(look(t, "fd00:1:2:3:ffff:ffff:ffff:ffff") == 3);
	CHECK(look(t, "fd00:1:2:3:7fff:ffff:ffff:ffff") == 1);
	CHECK(look(t, "fd00:1:2:4::") == 4);
	CHECK(look(t, "fd00:1:ffff::") == 4);
	CHECK(look(t, "fd00:2::") == -1);
	CHECK(look(t, "2001:db8:ffff::1") == 5);
	CHECK(look(t, "2001:db9::") == -1);
	/* Families are separate: ::a01:200 has the bits of 10.1.2.0 at the end. */
	CHECK(look(t, "::a01:24d") == -1);
	CHECK(look(t, "::ffff:10.1.2.77") == -1);

	CHECK(owners[1].count == 2 && owners[2].count == 2 && owners[3].count == 2);
	CHECK(!strcmp(list(4), "10.1.2.128/25 fd00:1::/32"));
	CHECK(!strcmp(list(3), "10.1.2.77/32 fd00:1:2:3:8000::/65"));

	/* Replacement: the same prefix (different host bits) moves owner. */
	CHECK(ins(t, "10.1.2.1", 24, 7) == 0);
	CHECK(look(t, "10.1.2.1") == 7);
	CHECK(look(t, "10.1.2.77") == 3);
	CHECK(owners[2].count == 1 && owners[7].count == 1);
	CHECK(!strcmp(list(2), "fd00:1:2:3::42/128"));
	CHECK(!strcmp(list(7), "10.1.2.0/24"));
	/* Re-inserting for the same owner moves it to the end of the order,
	 * as the Linux module and wireguard-go print it. */
	CHECK(ins(t, "10.1.2.128", 25, 4) == 0);
	CHECK(!strcmp(list(4), "fd00:1::/32 10.1.2.128/25"));
	CHECK(owners[4].count == 2);
	CHECK(ins(t, "fd00:1::", 32, 4) == 0);
	CHECK(!strcmp(list(4), "10.1.2.128/25 fd00:1::/32"));
	CHECK(owners[4].count == 2);
	/* Moving to another owner appends there. */
	CHECK(ins(t, "fd00:1::", 32, 5) == 0);
	CHECK(!strcmp(list(5), "172.16.0.0/12 2001:db8::/32 fd00:1::/32"));
	CHECK(!strcmp(list(4), "10.1.2.128/25"));

	/* Default routes. */
	CHECK(ins(t, "0.0.0.0", 0, 8) == 0);
	CHECK(ins(t, "::", 0, 9) == 0);
	CHECK(look(t, "10.2.0.0") == 8);
	CHECK(look(t, "255.255.255.255") == 8);
	CHECK(look(t, "10.1.2.77") == 3);
	CHECK(look(t, "fd00:2::") == 9);
	CHECK(look(t, "fd00:1:2:3::42") == 2);
	CHECK(ins(t, "1.2.3.4", 0, 8) == 0); /* masked to 0.0.0.0/0 */
	CHECK(owners[8].count == 1);

	/* Remove one: only by its owner, host bits masked. */
	CHECK(rem(t, "10.1.2.0", 24, 2) == -ENOENT); /* owned by 7 now */
	CHECK(rem(t, "10.1.2.0", 23, 7) == -ENOENT); /* no such prefix */
	CHECK(rem(t, "10.1.2.0", 0, 7) == -ENOENT);
	CHECK(rem(t, "10.1.2.9", 24, 7) == 0);
	CHECK(rem(t, "10.1.2.0", 24, 7) == -ENOENT);
	CHECK(owners[7].count == 0 && owners[7].head == NULL);
	CHECK(look(t, "10.1.2.1") == 1);
	CHECK(look(t, "10.1.2.77") == 3);
	CHECK(look(t, "10.1.2.200") == 4);
	CHECK(rem(t, "10.1.0.0", 16, 1) == 0);
	CHECK(look(t, "10.1.2.1") == 8);
	CHECK(look(t, "10.1.2.200") == 4);
	CHECK(rem(t, "fd00:1:2:3::", 64, 1) == 0);
	CHECK(look(t, "fd00:1:2:3::1") == 5);
	CHECK(look(t, "fd00:1:2:3::42") == 2);
	CHECK(owners[1].count == 0);

	/* foreach stops when fn returns false. */
	memset(&c, 0, sizeof(c));
	c.stop_after = 2;
	wg_allowedips_foreach(&owners[5], collect_fn, &c);
	CHECK(!strcmp(c.buf, "172.16.0.0/12 2001:db8::/32"));
	wg_allowedips_foreach(&owners[1], collect_fn, &c); /* empty: no call */

	/* Remove by owner. */
	wg_allowedips_remove_by_owner(t, &owners[5]);
	CHECK(owners[5].count == 0 && owners[5].head == NULL);
	CHECK(look(t, "172.16.0.1") == 8);
	CHECK(look(t, "2001:db8::1") == 9);
	CHECK(look(t, "fd00:1::1") == 9);
	CHECK(look(t, "fd00:1:2:3:8000::1") == 3);
	wg_allowedips_remove_by_owner(t, &owners[5]); /* no-op */
	for (int i = 0; i < 16; i++)
		wg_allowedips_remove_by_owner(t, &owners[i]);
	CHECK(trie_nodes(t) == 0);
	CHECK(look(t, "10.1.2.77") == -1);
	CHECK(look(t, "fd00:1:2:3::42") == -1);

	/* Argument checks. */
	CHECK(wg_allowedips_insert(t, AF_INET, a, 33, &owners[0]) == -EINVAL);
	CHECK(wg_allowedips_insert(t, AF_INET6, a, 129, &owners[0]) == -EINVAL);
	CHECK(wg_allowedips_insert(t, AF_UNIX, a, 8, &owners[0]) == -EINVAL);
	CHECK(wg_allowedips_insert(t, AF_INET, a, 32, &owners[0]) == 0);
	CHECK(wg_allowedips_insert(t, AF_INET6, a, 128, &owners[0]) == 0);
	CHECK(wg_allowedips_lookup(t, AF_UNIX, a) == NULL);
	CHECK(wg_allowedips_lookup(t, AF_INET, a) == &owners[0]);
	CHECK(wg_allowedips_remove(t, AF_INET, a, 33, &owners[0]) == -ENOENT);
	CHECK(trie_nodes(t) == 2);

	/* Free resets owners still in the table. */
	CHECK(ins(t, "192.0.2.0", 24, 3) == 0);
	wg_allowedips_free(t);
	CHECK(owners[0].count == 0 && owners[0].head == NULL);
	CHECK(owners[3].count == 0 && owners[3].head == NULL);
	wg_allowedips_free(NULL);
	CHECK(sizeof(struct wg_allowedips_node) <= 64);
}

/* Addresses drawn near a few bases so prefixes nest, collide and split. */
static void rand_addr(uint64_t *s, int family, uint8_t out[16])
{
	static uint8_t bases[2][8][16];
	static bool init;
	unsigned int bits = family == AF_INET ? 32 : 128, flip;

	if (!init) {
		uint64_t bs = 42;
		test_randbytes(&bs, &bases[0][0][0], sizeof(bases));
		init = true;
	}
	memset(out, 0, 16);
	memcpy(out, bases[family == AF_INET6][test_rand64(s) % 8], bits / 8);
	/* Randomize every bit from a random position on, some of the time. */
	flip = (unsigned int)(test_rand64(s) % (bits + 1));
	if (test_rand64(s) % 4 == 0)
		flip = bits - (unsigned int)(test_rand64(s) % 9);
	for (unsigned int i = flip; i < bits; i++)
		if (test_rand64(s) & 1)
			out[i / 8] ^= (uint8_t)(0x80 >> (i % 8));
}

static unsigned int rand_cidr(uint64_t *s, int family)
{
	unsigned int bits = family == AF_INET ? 32 : 128, r = (unsigned int)test_rand64(s) % 16;

	if (r == 0)
		return (unsigned int)(test_rand64(s) % 4); /* very short, incl. /0 */
	if (r < 4)
		return bits - (unsigned int)(test_rand64(s) % 3); /* host routes */
	return (unsigned int)(test_rand64(s) % (bits + 1));
}

static void test_random(void)
{
	struct wg_allowedips *t = wg_allowedips_new();
	struct model m = {0};
	struct model_entry *scratch = NULL;
	size_t scratch_cap = 0;
	uint64_t s = 0x1234567887654321ULL;
	int bad_ret = 0, bad_lookup = 0, bad_list = 0, bad_nodes = 0, lookups_hit = 0;
	const int nops = 150000;

	memset(owners, 0, sizeof(owners));
	for (int op = 0; op < nops; op++) {
		uint64_t r = test_rand64(&s) % 100;
		int family = test_rand64(&s) & 1 ? AF_INET6 : AF_INET;
		int o = (int)(test_rand64(&s) % 8);
		uint8_t a[16];
		unsigned int cidr;
		int got, want;

		if (r < (m.n < 2000 ? 45 : 15)) {
			rand_addr(&s, family, a);
			cidr = rand_cidr(&s, family);
			got = wg_allowedips_insert(t, family, a, (uint8_t)cidr, &owners[o]);
			model_insert(&m, family, a, cidr, o);
			bad_ret += got != 0;
		} else if (r < 60) {
			if (m.n && test_rand64(&s) % 4) { /* an existing prefix */
				struct model_entry e = m.e[test_rand64(&s) % m.n];
				family = e.family;
				memcpy(a, e.addr, 16);
				cidr = e.cidr;
				if (test_rand64(&s) % 4)
					o = e.owner;
				/* Host bits are ignored by remove too. */
				if (cidr < (family == AF_INET ? 32u : 128u) &&
				    (test_rand64(&s) & 1))
					a[15 * (family == AF_INET6) + 3 * (family == AF_INET)] ^= 1;
			} else {
				rand_addr(&s, family, a);
				cidr = rand_cidr(&s, family);
			}
			want = model_remove(&m, family, a, cidr, o) ? -ENOENT : 0;
			got = wg_allowedips_remove(t, family, a, (uint8_t)cidr, &owners[o]);
			bad_ret += got != want;
		} else if (r < 61 && test_rand64(&s) % 8 == 0) {
			wg_allowedips_remove_by_owner(t, &owners[o]);
			model_remove_owner(&m, o);
			bad_ret += owners[o].count != 0 || owners[o].head != NULL;
		} else {
			rand_addr(&s, family, a);
			want = model_lookup(&m, family, a);
			got = owner_idx(wg_allowedips_lookup(t, family, a));
			if (got != want && bad_lookup < 5)
				fprintf(stderr, "op %d: lookup got %d want %d\n", op, got, want);
			bad_lookup += got != want;
			lookups_hit += want >= 0;
		}
		if (op % 2000 == 0 || op == nops - 1) {
			if (scratch_cap < m.n + 1) {
				scratch_cap = 2 * (m.n + 1);
				scratch = realloc(scratch, scratch_cap * sizeof(*scratch));
			}
			for (int i = 0; i < 8; i++)
				bad_list += !model_check_owner(&m, i, &owners[i], scratch);
			/* Compaction: at most one branch node per prefix. */
			bad_nodes += trie_nodes(t) < m.n || trie_nodes(t) > 2 * m.n;
		}
	}
	printf("random: %d ops, %zu prefixes at end, %d lookups hit\n", nops, m.n, lookups_hit);
	CHECK(bad_ret == 0);
	CHECK(bad_lookup == 0);
	CHECK(bad_list == 0);
	CHECK(bad_nodes == 0);
	CHECK(lookups_hit > 10000); /* the workload really exercises matches */
	for (int i = 0; i < 8; i++)
		wg_allowedips_remove_by_owner(t, &owners[i]);
	CHECK(trie_nodes(t) == 0);
	wg_allowedips_free(t);
	model_free(&m);
	free(scratch);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* 1M distinct /32s (i * odd constant is a bijection mod 2^32), then 200k
 * IPv6 /128s; every lookup must hit its owner, unused addresses miss. */
static void test_million(void)
{
	struct wg_allowedips *t = wg_allowedips_new();
	const uint32_t n = 1000000, mult = 2654435761u;
	uint8_t a[16];
	int bad = 0, miss = 0;
	double t0, t1, t2;

	memset(owners, 0, sizeof(owners));
	t0 = now_s();
	for (uint32_t i = 0; i < n; i++) {
		be32(a, i * mult);
		bad += wg_allowedips_insert(t, AF_INET, a, 32, &owners[i % 16]) != 0;
	}
	t1 = now_s();
	for (uint32_t i = 0; i < n; i++) {
		be32(a, i * mult);
		bad += wg_allowedips_lookup(t, AF_INET, a) != &owners[i % 16];
	}
	t2 = now_s();
	for (uint32_t i = n; i < n + 100000; i++) {
		be32(a, i * mult);
		miss += wg_allowedips_lookup(t, AF_INET, a) != NULL;
	}
	CHECK(bad == 0);
	CHECK(miss == 0);
	CHECK(trie_nodes(t) >= n && trie_nodes(t) < 2 * n);
	printf("1M IPv4 /32: insert %.3f s, lookup %.3f s (%.0f ns each), %zu nodes x %zu bytes = "
	       "%.1f MB\n",
	       t1 - t0, t2 - t1, (t2 - t1) * 1e9 / n, trie_nodes(t),
	       sizeof(struct wg_allowedips_node),
	       (double)(trie_nodes(t) * sizeof(struct wg_allowedips_node)) / 1e6);

	uint64_t s = 7;
	for (uint32_t i = 0; i < 200000; i++) {
		test_randbytes(&s, a, 16);
		bad += wg_allowedips_insert(t, AF_INET6, a, 128, &owners[i % 16]) != 0;
	}
	s = 7;
	for (uint32_t i = 0; i < 200000; i++) {
		test_randbytes(&s, a, 16);
		bad += wg_allowedips_lookup(t, AF_INET6, a) != &owners[i % 16];
	}
	CHECK(bad == 0);
	size_t total = 0;
	for (int i = 0; i < 16; i++)
		total += owners[i].count;
	CHECK(total == n + 200000);

	/* Drop half the owners; their addresses must disappear. */
	t0 = now_s();
	for (int i = 0; i < 16; i += 2)
		wg_allowedips_remove_by_owner(t, &owners[i]);
	t1 = now_s();
	printf("remove_by_owner of 600k prefixes: %.3f s\n", t1 - t0);
	for (uint32_t i = 0; i < n; i++) {
		be32(a, i * mult);
		bad += wg_allowedips_lookup(t, AF_INET, a) != (i % 2 ? &owners[i % 16] : NULL);
	}
	CHECK(bad == 0);
	CHECK(trie_nodes(t) < n + 200000);
	wg_allowedips_free(t);
}

int main(void)
{
	test_fixed();
	test_random();
	test_million();
	return test_finish("test_allowedips");
}
