/* Rate limiter with a fake clock: burst then refusal, refill rate, IPv6 /64
 * grouping, v4-mapped addresses, expiry and gc, a full table, a new hash
 * key (entries kept). Not thread-safe: the engine lock serializes it. */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "test.h"
#include "../../wg/messages.h"
#include "../../wg/ratelimiter.h"

#define SEC WG_NS_PER_SEC
#define MS WG_NS_PER_MS
#define COST (SEC / WG_RATELIMIT_PACKETS_PER_SECOND)

static const uint8_t hkey[16] = "0123456789abcdef";

/* Any textual address as a sockaddr_storage. */
static struct sockaddr_storage sa(const char *ip)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(51820);
		if (inet_pton(AF_INET6, ip, &s6->sin6_addr) != 1)
			abort();
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(51820);
		if (inet_pton(AF_INET, ip, &s4->sin_addr) != 1)
			abort();
	}
	return ss;
}

static bool allow(struct wg_ratelimiter *rl, const char *ip, uint64_t now)
{
	struct sockaddr_storage ss = sa(ip);
	return wg_ratelimiter_allow(rl, (struct sockaddr *)&ss, now);
}

/* Counts how many of n back-to-back packets at one instant pass. */
static int burst(struct wg_ratelimiter *rl, const char *ip, uint64_t now, int n)
{
	int ok = 0;
	for (int i = 0; i < n; i++)
		ok += allow(rl, ip, now);
	return ok;
}

static void test_bucket(void)
{
	struct wg_ratelimiter *rl = wg_ratelimiter_new(hkey);
	uint64_t t = 1000 * SEC;

	CHECK(rl != NULL);
	CHECK(wg_ratelimiter_count(rl) == 0);
	CHECK(burst(rl, "192.0.2.1", t, 5) == 5);
	CHECK(!allow(rl, "192.0.2.1", t));
	CHECK(burst(rl, "192.0.2.1", t, 20) == 0);
	CHECK(wg_ratelimiter_count(rl) == 1);
	/* One packet's worth of credit takes 1/20 s. */
	CHECK(!allow(rl, "192.0.2.1", t + COST - 1));
	CHECK(allow(rl, "192.0.2.1", t + COST));
	CHECK(!allow(rl, "192.0.2.1", t + COST));
	CHECK(burst(rl, "192.0.2.1", t + 3 * COST, 10) == 2);
	/* Credit is capped at the burst, however long the pause. */
	CHECK(burst(rl, "192.0.2.1", t + 100 * SEC, 10) == 5);
	/* Other sources are independent; the port does not matter. */
	CHECK(burst(rl, "192.0.2.2", t + 100 * SEC, 10) == 5);
	CHECK(wg_ratelimiter_count(rl) == 2);

	/* Sustained 100 packets/s for 10 s: the burst plus 20/s pass. */
	t = 2000 * SEC;
	int ok = 0;
	for (int i = 0; i <= 1000; i++)
		ok += allow(rl, "198.51.100.1", t + (uint64_t)i * 10 * MS);
	CHECK(ok == 5 + 200);

	/* A clock going backwards neither refills nor breaks anything. */
	CHECK(burst(rl, "198.51.100.2", t, 5) == 5);
	CHECK(!allow(rl, "198.51.100.2", t - 10 * SEC));
	CHECK(!allow(rl, "198.51.100.2", t));
	CHECK(allow(rl, "198.51.100.2", t + COST));

	/* Unknown families and NULL are refused. */
	struct sockaddr_storage un = {0};
	un.ss_family = AF_UNIX;
	CHECK(!wg_ratelimiter_allow(rl, (struct sockaddr *)&un, t));
	CHECK(!wg_ratelimiter_allow(rl, NULL, t));
	wg_ratelimiter_free(rl);
	wg_ratelimiter_free(NULL);
}

static void test_grouping(void)
{
	struct wg_ratelimiter *rl = wg_ratelimiter_new(hkey);
	uint64_t t = 5 * SEC;

	/* IPv6: one bucket per /64. */
	CHECK(burst(rl, "2001:db8:1:2::1", t, 3) == 3);
	CHECK(burst(rl, "2001:db8:1:2:ffff:ffff:ffff:ffff", t, 5) == 2);
	CHECK(burst(rl, "2001:db8:1:2:1234::", t, 5) == 0);
	CHECK(burst(rl, "2001:db8:1:3::1", t, 10) == 5);
	CHECK(burst(rl, "2001:db8:1:2::1", t + COST, 5) == 1);
	CHECK(wg_ratelimiter_count(rl) == 2);

	/* v4-mapped IPv6 shares the IPv4 address's bucket. */
	CHECK(burst(rl, "203.0.113.9", t, 2) == 2);
	CHECK(burst(rl, "::ffff:203.0.113.9", t, 10) == 3);
	CHECK(burst(rl, "203.0.113.9", t, 10) == 0);
	CHECK(burst(rl, "::ffff:203.0.113.10", t, 10) == 5);
	/* ...but not the IPv6 address with the same low 32 bits. */
	CHECK(burst(rl, "::cb00:7109", t, 10) == 5);
	CHECK(wg_ratelimiter_count(rl) == 5);

	/* A different hash key changes nothing observable. */
	uint8_t k2[16];
	memset(k2, 0xa5, sizeof(k2));
	struct wg_ratelimiter *rl2 = wg_ratelimiter_new(k2);
	CHECK(burst(rl2, "2001:db8:1:2::1", t, 10) == 5);
	CHECK(burst(rl2, "2001:db8:1:2::2", t, 10) == 0);
	wg_ratelimiter_free(rl2);
	wg_ratelimiter_free(rl);
}

static void test_gc(void)
{
	struct wg_ratelimiter *rl = wg_ratelimiter_new(hkey);
	uint64_t t = 10 * SEC;

	CHECK(burst(rl, "192.0.2.1", t, 5) == 5);
	CHECK(burst(rl, "192.0.2.2", t, 5) == 5);
	CHECK(burst(rl, "2001:db8::1", t + 500 * MS, 1) == 1);
	CHECK(wg_ratelimiter_count(rl) == 3);
	wg_ratelimiter_gc(rl, t + WG_RATELIMIT_ENTRY_TIMEOUT - 1);
	CHECK(wg_ratelimiter_count(rl) == 3);
	/* A refused packet still counts as activity. */
	CHECK(!allow(rl, "192.0.2.2", t + 10 * MS));
	wg_ratelimiter_gc(rl, t + WG_RATELIMIT_ENTRY_TIMEOUT);
	CHECK(wg_ratelimiter_count(rl) == 2);
	wg_ratelimiter_gc(rl, t + 10 * MS + WG_RATELIMIT_ENTRY_TIMEOUT);
	CHECK(wg_ratelimiter_count(rl) == 1);
	wg_ratelimiter_gc(rl, t + 500 * MS + WG_RATELIMIT_ENTRY_TIMEOUT);
	CHECK(wg_ratelimiter_count(rl) == 0);
	/* A dropped source starts again with a full burst. */
	CHECK(burst(rl, "192.0.2.1", t + 2 * SEC, 10) == 5);
	CHECK(wg_ratelimiter_count(rl) == 1);
	wg_ratelimiter_free(rl);
}

static void test_full(void)
{
	struct wg_ratelimiter *rl = wg_ratelimiter_new(hkey);
	uint64_t t = 50 * SEC;
	char ip[64];
	int ok = 0;

	for (int i = 0; i < WG_RATELIMIT_MAX_ENTRIES; i++) {
		snprintf(ip, sizeof(ip), "10.%d.%d.1", i >> 8, i & 255);
		ok += allow(rl, ip, t);
	}
	CHECK(ok == WG_RATELIMIT_MAX_ENTRIES);
	CHECK(wg_ratelimiter_count(rl) == WG_RATELIMIT_MAX_ENTRIES);
	/* New sources are refused while full, known ones keep their bucket. */
	CHECK(!allow(rl, "192.0.2.1", t));
	CHECK(!allow(rl, "2001:db8::1", t + 900 * MS));
	CHECK(burst(rl, "10.0.7.1", t, 10) == 4);
	CHECK(burst(rl, "10.31.255.1", t + 900 * MS, 10) == 5);
	CHECK(wg_ratelimiter_count(rl) == WG_RATELIMIT_MAX_ENTRIES);
	/* Once entries have idled out, a full table sweeps itself. */
	CHECK(allow(rl, "192.0.2.1", t + 1500 * MS));
	CHECK(wg_ratelimiter_count(rl) == 2); /* plus 10.31.255.1, idle 0.6 s */
	wg_ratelimiter_gc(rl, t + 10 * SEC);
	CHECK(wg_ratelimiter_count(rl) == 0);
	/* And the whole pool is reusable. */
	ok = 0;
	for (int i = 0; i < WG_RATELIMIT_MAX_ENTRIES + 10; i++) {
		snprintf(ip, sizeof(ip), "2001:db8:%x:%x::1", i >> 8, i & 255);
		ok += allow(rl, ip, t + 20 * SEC);
	}
	CHECK(ok == WG_RATELIMIT_MAX_ENTRIES);
	wg_ratelimiter_free(rl);
}

/* A new key (drawn once the RNG is seeded) keeps every source's bucket:
 * an exhausted source stays refused, the count is unchanged, and a fresh
 * source still gets its burst. */
static void test_rekey(void)
{
	static const uint8_t key2[16] = "fedcba9876543210";
	struct wg_ratelimiter *rl = wg_ratelimiter_new(hkey);
	uint64_t t = 1000 * SEC;
	char ip[32];
	int refused = 0;

	CHECK(rl != NULL);
	for (int i = 0; i < 200; i++) {
		snprintf(ip, sizeof(ip), "10.1.%d.%d", i / 100, i % 100);
		CHECK(burst(rl, ip, t, WG_RATELIMIT_BURST + 1) == WG_RATELIMIT_BURST);
	}
	CHECK(wg_ratelimiter_count(rl) == 200);
	wg_ratelimiter_rekey(rl, key2);
	CHECK(wg_ratelimiter_count(rl) == 200);
	for (int i = 0; i < 200; i++) {
		snprintf(ip, sizeof(ip), "10.1.%d.%d", i / 100, i % 100);
		refused += !allow(rl, ip, t);
	}
	CHECK(refused == 200);
	CHECK(wg_ratelimiter_count(rl) == 200);
	CHECK(burst(rl, "10.2.0.1", t, WG_RATELIMIT_BURST + 1) == WG_RATELIMIT_BURST);
	wg_ratelimiter_gc(rl, t + WG_RATELIMIT_ENTRY_TIMEOUT);
	CHECK(wg_ratelimiter_count(rl) == 0);
	wg_ratelimiter_free(rl);
}

int main(void)
{
	test_bucket();
	test_grouping();
	test_gc();
	test_full();
	test_rekey();
	return test_finish("test_ratelimiter");
}
