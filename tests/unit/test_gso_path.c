/* The sender's memory of paths too small for a GSO run (daemon/gso_path.c):
 * a refusal blocks that size and larger to that destination only, until
 * the retry time; a smaller refusal lowers the limit. */
#include <arpa/inet.h>

#include "test.h"
#include "../../daemon/gso_path.c"

static struct wg_endpoint ep4(const char *addr, uint16_t port)
{
	struct wg_endpoint e;

	memset(&e, 0, sizeof(e));
	e.addr.in4.sin_family = AF_INET;
	e.addr.in4.sin_port = htons(port);
	inet_pton(AF_INET, addr, &e.addr.in4.sin_addr);
	return e;
}

static struct wg_endpoint ep6(const char *addr, uint16_t port)
{
	struct wg_endpoint e;

	memset(&e, 0, sizeof(e));
	e.addr.in6.sin6_family = AF_INET6;
	e.addr.in6.sin6_port = htons(port);
	inet_pton(AF_INET6, addr, &e.addr.in6.sin6_addr);
	return e;
}

int main(void)
{
	struct gso_paths p;
	struct wg_endpoint a = ep4("10.0.0.1", 51820), a_port = ep4("10.0.0.1", 51821);
	struct wg_endpoint b = ep6("fd00::1", 51820);
	const uint64_t t0 = 1000;

	gso_paths_init(&p);
	CHECK(gso_paths_none(&p));
	CHECK(gso_path_allows(&p, &a, 1452, t0));
	CHECK(gso_path_refused(&p, &a, 1452, t0)); /* first refusal: log it */
	CHECK(!gso_paths_none(&p));
	CHECK(!gso_path_allows(&p, &a, 1452, t0 + 1));
	CHECK(!gso_path_allows(&p, &a, 9032, t0 + 1));
	CHECK(gso_path_allows(&p, &a, 1451, t0 + 1));	   /* smaller datagrams keep GSO */
	CHECK(gso_path_allows(&p, &a_port, 1452, t0 + 1)); /* another peer */
	CHECK(gso_path_allows(&p, &b, 1452, t0 + 1));

	CHECK(!gso_path_refused(&p, &a, 1200, t0 + 2)); /* logged once only */
	CHECK(!gso_path_allows(&p, &a, 1200, t0 + 3));
	CHECK(gso_path_allows(&p, &a, 1199, t0 + 3));
	CHECK(!gso_path_refused(&p, &a, 1452, t0 + 4)); /* a larger one keeps 1200 */
	CHECK(!gso_path_allows(&p, &a, 1200, t0 + 5));

	gso_path_refused(&p, &b, 1500, t0 + 10);
	CHECK(!gso_path_allows(&p, &b, 1500, t0 + 11));
	CHECK(atomic_load(&p.refusals) == 4);

	/* retried once the time is up (the path MTU may have grown) */
	CHECK(gso_path_allows(&p, &a, 1452, t0 + 4 + GSO_PATH_RETRY_NS));
	CHECK(gso_path_allows(&p, &a, 1452, t0 + 5 + GSO_PATH_RETRY_NS));
	CHECK(!gso_path_allows(&p, &b, 1500, t0 + 5 + GSO_PATH_RETRY_NS));
	CHECK(gso_path_allows(&p, &b, 1500, t0 + 10 + GSO_PATH_RETRY_NS));
	CHECK(atomic_load(&p.used) == 0);
	CHECK(gso_paths_none(&p)); /* no clock read for GSO again */

	/* 200 destinations: every refused one is blocked or evicted (never
	 * another destination's limit applied to it) */
	for (int i = 0; i < 200; i++) {
		char s[32];
		struct wg_endpoint e;

		snprintf(s, sizeof(s), "10.1.%d.%d", i / 250, i % 250);
		e = ep4(s, 51820);
		gso_path_refused(&p, &e, 1400 + (size_t)i, t0);
	}
	CHECK(atomic_load(&p.used) <= GSO_PATH_SLOTS);
	for (int i = 0; i < 200; i++) {
		char s[32];
		struct wg_endpoint e;

		snprintf(s, sizeof(s), "10.1.%d.%d", i / 250, i % 250);
		e = ep4(s, 51820);
		CHECK(gso_path_allows(&p, &e, 1399 + (size_t)i, t0 + 1));
	}
	gso_paths_destroy(&p);
	return test_finish("test_gso_path");
}
