/* Engine: AmneziaWG (issue 30). Parameter values and checks as
 * amneziawg-go's; junk count and sizes within bounds, special junk from
 * its tags (the fake clock's <t>), padding and header values on every
 * message and removed exactly; a truncated or mis-headed datagram dropped
 * and counted; a different h1 never completes a handshake. */
#include "../../wg/device.h"
#include "../../wg/peer.h"
#include "../../wg/send.h"
#include "engine_harness.h"

static struct h_clock clk = {9000 * SEC, 1760000000ULL * SEC};
static struct h_side A, B;
static struct wg_peer *pA, *pB;

static const char *const PARAMS[][2] = {
    {"jc", "4"},
    {"jmin", "30"},
    {"jmax", "60"},
    {"s1", "17"},
    {"s2", "33"},
    {"s3", "5"},
    {"s4", "11"},
    {"h1", "1000-1010"},
    {"h2", "2000"},
    {"h3", "3000-3001"},
    {"h4", "4000-4100"},
    {"i1", "<b 0xc0ffee><t><r 3>"},
    {"i2", "<rd 5><rc 6>"},
};

/* Sets KEY=VALUE on dev; the check's verdict (NULL: applied). */
static const char *set(struct wg_device *dev, const char *key, const char *val)
{
	static struct wg_obfs_config c;
	const char *why = NULL;

	wg_obfs_config_init(&c);
	if (wg_obfs_set_key(&c, key, strlen(key), val, strlen(val), &why) <= 0)
		return why ? why : "not a key";
	return wg_device_set_obfs(dev, &c, true);
}

/* All of PARAMS in one update, as one UAPI set. */
static void configure(struct wg_device *dev)
{
	static struct wg_obfs_config c;
	const char *why = NULL;

	wg_obfs_config_init(&c);
	for (size_t i = 0; i < sizeof(PARAMS) / sizeof(PARAMS[0]); i++)
		CHECK(wg_obfs_set_key(&c, PARAMS[i][0], strlen(PARAMS[i][0]), PARAMS[i][1],
				      strlen(PARAMS[i][1]), &why) == 1);
	CHECK(wg_device_set_obfs(dev, &c, true) == NULL);
}

static void test_values(void)
{
	static const char *const bad[][2] = {
	    {"jc", "0"},	 {"jc", "-1"},	     {"jc", "x"},	   {"jc", "129"},
	    {"jmin", "0"},	 {"s1", "-1"},	     {"s1", "1133"},	   {"h1", "5-3"},
	    {"h1", "1-2-3"},	 {"h1", "+1"},	     {"h1", "4294967296"}, {"i1", "<x>"},
	    {"i1", "<b 0xabc>"}, {"i1", "<b>"},	     {"i1", "<r 5"},	   {"i1", "<r -1>"},
	    {"i1", "<>"},	 {"i1", "<r 2000>"},
	};
	char out[WG_OBFS_SPEC_LEN];

	h_pair_setup(&A, &B, &clk, 0x0bf51, 0x0bf52, &pA, &pB);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = set(A.dev, bad[i][0], bad[i][1]);

		if (!why)
			fprintf(stderr, "accepted %s=%s\n", bad[i][0], bad[i][1]);
		CHECK(why != NULL);
	}
	/* h2 is still 2: h1 may not cover it */
	CHECK(set(A.dev, "h1", "1-5") != NULL);
	CHECK(set(A.dev, "jmin", "50") == NULL);
	CHECK(set(A.dev, "jmax", "40") == NULL);
	CHECK(set(A.dev, "jc", "2") != NULL); /* jmin > jmax */
	CHECK(!wg_device_format_obfs(A.dev, 0, out, sizeof(out)));
	/* h1-h4 printed once any key was set, as amneziawg-go; never on a plain device */
	CHECK(wg_device_format_obfs(A.dev, 7, out, sizeof(out)) && !strcmp(out, "1"));
	CHECK(!wg_device_format_obfs(B.dev, 7, out, sizeof(out)));
	configure(A.dev);
	CHECK(wg_device_format_obfs(A.dev, 7, out, sizeof(out)) && !strcmp(out, "1000-1010"));
	CHECK(wg_device_format_obfs(A.dev, 8, out, sizeof(out)) && !strcmp(out, "2000"));
	CHECK(wg_device_format_obfs(A.dev, 0, out, sizeof(out)) && !strcmp(out, "4"));
	CHECK(wg_device_format_obfs(A.dev, 11, out, sizeof(out)) &&
	      !strcmp(out, "<b 0xc0ffee><t><r 3>"));
	CHECK(!wg_device_format_obfs(A.dev, 13, out, sizeof(out)));
	CHECK(!strcmp(wg_obfs_key_name(15), "i5") && !wg_obfs_key_name(16));
}

static bool in(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_wire(void)
{
	struct wg_device_stats st0, st;
	struct h_pkt data;

	h_pair_setup(&A, &B, &clk, 0x0bf53, 0x0bf54, &pA, &pB);
	configure(A.dev);
	configure(B.dev);
	CHECK(h_send_ip(&A, &B, 100, 7) == WG_STAGED);
	/* i1, i2, jc junk, then the initiation */
	CHECK(A.nout == 2 + 4 + 1);
	CHECK(A.out[0].len == 3 + 4 + 3 && !memcmp(A.out[0].data, "\xc0\xff\xee", 3));
	CHECK(le32(A.out[0].data + 3) == __builtin_bswap32((uint32_t)(clk.wall / SEC)));
	CHECK(A.out[1].len == 11);
	for (int i = 0; i < 5; i++)
		CHECK(A.out[1].data[i] >= '0' && A.out[1].data[i] <= '9');
	for (int i = 2; i < 6; i++)
		CHECK(in((uint32_t)A.out[i].len, 30, 60));
	CHECK(A.out[6].len == 17 + 148 && in(le32(A.out[6].data + 17), 1000, 1010));
	h_pump(&A, &B, NULL, NULL);
	CHECK(pA->keypairs.current && pB->keypairs.current);
	/* the staged packet went out padded, and arrived whole */
	CHECK(B.ndelivered == 1 && B.delivered[0].len == 100 && B.delivered[0].data[99] == 7);
	CHECK(h_send_ip(&A, &B, 100, 8) == WG_OK);
	CHECK(A.nout == 1);
	data = A.out[0];
	CHECK(data.len == 11 + 16 + 112 + 16 && in(le32(data.data + 11), 4000, 4100));
	h_pump(&A, &B, NULL, NULL);
	CHECK(B.ndelivered >= 1 && B.delivered[B.ndelivered - 1].len == 100 &&
	      B.delivered[B.ndelivered - 1].data[99] == 8);
	/* mis-headed, truncated: dropped and counted */
	wg_device_get_stats(B.dev, &st0);
	data.data[11] ^= 0xff;
	CHECK(wg_device_receive(B.dev, &A.addr, data.data, data.len) == WG_ERR_INVALID);
	data.data[11] ^= 0xff;
	CHECK(wg_device_receive(B.dev, &A.addr, data.data, 11 + 20) == WG_ERR_INVALID);
	CHECK(wg_device_receive(B.dev, &A.addr, A.out[6].data, 17 + 147) == WG_ERR_INVALID);
	wg_device_get_stats(B.dev, &st);
	CHECK(st.dropped_invalid == st0.dropped_invalid + 3);
	CHECK(st.packets_invalid == st0.packets_invalid + 3);
}

/* Different h1: B takes A's initiations for junk. */
static void test_mismatch(void)
{
	struct wg_device_stats st;

	h_pair_setup(&A, &B, &clk, 0x0bf55, 0x0bf56, &pA, &pB);
	configure(A.dev);
	configure(B.dev);
	CHECK(set(B.dev, "h1", "1020") == NULL);
	CHECK(h_send_ip(&A, &B, 100, 7) == WG_STAGED);
	h_advance(&A, &B, 20 * SEC, NULL, NULL);
	CHECK(!pA->keypairs.current && !pB->keypairs.current);
	wg_device_get_stats(B.dev, &st);
	CHECK(st.dropped_invalid >= 4 * 5 && st.handshakes_responded == 0);
}

/* Plain again: the standard bytes on the wire. */
static void test_plain(void)
{
	h_pair_setup(&A, &B, &clk, 0x0bf57, 0x0bf58, &pA, &pB);
	CHECK(h_send_ip(&A, &B, 100, 7) == WG_STAGED);
	CHECK(A.nout == 1 && A.out[0].len == 148 && le32(A.out[0].data) == 1);
	h_pump(&A, &B, NULL, NULL);
	CHECK(pA->keypairs.current != NULL);
}

int main(void)
{
	test_values();
	test_wire();
	test_mismatch();
	test_plain();
	wg_device_free(A.dev);
	wg_device_free(B.dev);
	return test_finish("test_engine_obfs");
}
