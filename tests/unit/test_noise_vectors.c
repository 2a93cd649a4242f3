/* The engine's Noise core against the cacophony Noise_IKpsk2 vector: fixed
 * prologue, statics, ephemerals, PSK and payloads (message 2 also as the
 * split handshake path writes it: DH results first), then transport
 * messages with the split keys. */
#include <zinc/chacha20poly1305.h>
#include <zinc/curve25519.h>

#include "../../wg/noise.h"
#include "noise_vectors.h"
#include "test.h"

static size_t unhex(uint8_t *buf, size_t cap, const char *hex)
{
	long n = test_unhex(buf, cap, hex);
	CHECK(n >= 0);
	return n < 0 ? 0 : (size_t)n;
}

/* Each message whole, its X25519 work included (the engine's split path
 * takes the DH results from its batch instead). */
static bool write_msg1(struct wg_noise_core *st, uint8_t *out, const uint8_t e_priv[32],
		       const uint8_t s_pub[32], const uint8_t rs_pub[32], const uint8_t ss[32],
		       const uint8_t *payload, size_t plen)
{
	uint8_t e_pub[32], es[32];

	return zinc_curve25519_generate_public(e_pub, e_priv) &&
	       zinc_curve25519(es, e_priv, rs_pub) &&
	       wg_noise_core_write_msg1_dh(st, out, e_pub, es, s_pub, ss, payload, plen);
}

static bool read_msg1_static(struct wg_noise_core *st, const uint8_t *in, const uint8_t s_priv[32],
			     uint8_t re_out[32], uint8_t rs_out[32])
{
	uint8_t es[32];

	memcpy(re_out, in, 32);
	zinc_curve25519(es, s_priv, re_out);
	return wg_noise_core_read_msg1_static_dh(st, in, es, rs_out);
}

static bool msg2_dh(uint8_t e_pub[32], uint8_t ee[32], uint8_t se[32], const uint8_t e_priv[32],
		    const uint8_t re_pub[32], const uint8_t rs_pub[32])
{
	return zinc_curve25519_generate_public(e_pub, e_priv) &&
	       zinc_curve25519(ee, e_priv, re_pub) && zinc_curve25519(se, e_priv, rs_pub);
}

static bool write_msg2(struct wg_noise_core *st, uint8_t *out, const uint8_t e_priv[32],
		       const uint8_t re_pub[32], const uint8_t rs_pub[32], const uint8_t psk[32],
		       const uint8_t *payload, size_t plen)
{
	uint8_t e_pub[32], ee[32], se[32];

	return msg2_dh(e_pub, ee, se, e_priv, re_pub, rs_pub) &&
	       wg_noise_core_write_msg2_dh(st, out, e_pub, ee, se, psk, payload, plen);
}

static bool read_msg2(struct wg_noise_core *st, const uint8_t *in, size_t in_len,
		      const uint8_t e_priv[32], const uint8_t s_priv[32], const uint8_t psk[32],
		      uint8_t *payload_out)
{
	uint8_t ee[32], se[32];

	if (in_len < 32)
		return false;
	zinc_curve25519(ee, e_priv, in);
	zinc_curve25519(se, s_priv, in);
	return wg_noise_core_read_msg2_dh(st, in, in_len, ee, se, psk, payload_out);
}

int main(void)
{
	struct wg_noise_core ini, res;
	uint8_t init_pub[32], resp_pub[32], ss_i[32], ss_r[32], re[32], rs[32];
	uint8_t payload[256], ct[256], out[256], k_is[32], k_rs[32], k_is2[32], k_rs2[32];
	size_t plen, clen;

	CHECK(nv_message_count == 6);
	CHECK(zinc_curve25519_generate_public(init_pub, nv_init_static));
	CHECK(zinc_curve25519_generate_public(resp_pub, nv_resp_static));
	CHECK_MEM(resp_pub, nv_init_remote_static, 32, "responder static matches remote static");

	wg_noise_core_init(&ini, nv_init_prologue, nv_init_prologue_len, resp_pub);
	wg_noise_core_init(&res, nv_init_prologue, nv_init_prologue_len, resp_pub);

	/* Message 1: e, es, s, ss + payload. */
	plen = unhex(payload, sizeof(payload), nv_messages[0].payload);
	clen = unhex(ct, sizeof(ct), nv_messages[0].ciphertext);
	CHECK(clen == 32 + 48 + plen + 16);
	CHECK(zinc_curve25519(ss_i, nv_init_static, resp_pub));
	CHECK(write_msg1(&ini, out, nv_init_ephemeral, init_pub, resp_pub, ss_i, payload, plen));
	CHECK_MEM(out, ct, clen, "message 1 ciphertext");
	CHECK(read_msg1_static(&res, ct, nv_resp_static, re, rs));
	CHECK_MEM(rs, init_pub, 32, "responder learns initiator static");
	CHECK(zinc_curve25519(ss_r, nv_resp_static, rs));
	memset(out, 0, sizeof(out));
	CHECK(wg_noise_core_read_msg1_payload(&res, ct + 80, clen - 80, ss_r, out));
	CHECK_MEM(out, payload, plen, "message 1 payload");
	CHECK_MEM(ini.h, res.h, 32, "hashes agree after message 1");

	/* A flipped bit in the encrypted static is rejected. */
	{
		struct wg_noise_core bad;
		uint8_t ct2[256], r1[32], r2[32];
		wg_noise_core_init(&bad, nv_init_prologue, nv_init_prologue_len, resp_pub);
		memcpy(ct2, ct, clen);
		ct2[40] ^= 0x80;
		CHECK(!read_msg1_static(&bad, ct2, nv_resp_static, r1, r2));
	}

	/* Message 2: e, ee, se, psk + payload. */
	plen = unhex(payload, sizeof(payload), nv_messages[1].payload);
	clen = unhex(ct, sizeof(ct), nv_messages[1].ciphertext);
	CHECK(clen == 32 + plen + 16);
	{
		/* In two steps, as the split handshake path writes it: the
		 * X25519 work first (without the lock), the message after. */
		struct wg_noise_core res2 = res;
		uint8_t e_pub[32], ee[32], se[32];

		CHECK(msg2_dh(e_pub, ee, se, nv_resp_ephemeral, re, rs));
		memset(out, 0, sizeof(out));
		CHECK(
		    wg_noise_core_write_msg2_dh(&res2, out, e_pub, ee, se, nv_psk, payload, plen));
		CHECK_MEM(out, ct, clen, "message 2 ciphertext, DH first");
		CHECK_MEM(res2.h, nv_handshake_hash, 32, "handshake hash, DH first");
	}
	CHECK(write_msg2(&res, out, nv_resp_ephemeral, re, rs, nv_psk, payload, plen));
	CHECK_MEM(out, ct, clen, "message 2 ciphertext");
	memset(out, 0, sizeof(out));
	CHECK(read_msg2(&ini, ct, clen, nv_init_ephemeral, nv_init_static, nv_psk, out));
	CHECK_MEM(out, payload, plen, "message 2 payload");
	CHECK_MEM(ini.h, nv_handshake_hash, 32, "initiator handshake hash");
	CHECK_MEM(res.h, nv_handshake_hash, 32, "responder handshake hash");

	wg_noise_core_split(&ini, k_is, k_rs);
	wg_noise_core_split(&res, k_is2, k_rs2);
	CHECK_MEM(k_is, k_is2, 32, "initiator sending key");
	CHECK_MEM(k_rs, k_rs2, 32, "responder sending key");

	/* Transport: even messages from the initiator, odd from the responder,
	 * each direction counting nonces from 0. */
	for (size_t i = 2; i < nv_message_count; i++) {
		uint64_t nonce = (i - 2) / 2;
		const uint8_t *key = i % 2 == 0 ? k_is : k_rs;
		plen = unhex(payload, sizeof(payload), nv_messages[i].payload);
		clen = unhex(ct, sizeof(ct), nv_messages[i].ciphertext);
		CHECK(clen == plen + 16);
		zinc_chacha20poly1305_encrypt(out, payload, plen, NULL, 0, nonce, key);
		CHECK_MEM(out, ct, clen, "transport ciphertext");
		CHECK(zinc_chacha20poly1305_decrypt(out, ct, clen, NULL, 0, nonce, key));
		CHECK_MEM(out, payload, plen, "transport plaintext");
	}

	/* Message 2 with a wrong PSK does not open (re-run the handshake). */
	{
		uint8_t psk[32], m1[256], m2[256];
		wg_noise_core_init(&ini, nv_init_prologue, nv_init_prologue_len, resp_pub);
		wg_noise_core_init(&res, nv_init_prologue, nv_init_prologue_len, resp_pub);
		CHECK(
		    write_msg1(&ini, m1, nv_init_ephemeral, init_pub, resp_pub, ss_i, payload, 0));
		CHECK(read_msg1_static(&res, m1, nv_resp_static, re, rs));
		CHECK(wg_noise_core_read_msg1_payload(&res, m1 + 80, 16, ss_r, out));
		memcpy(psk, nv_psk, 32);
		psk[0] ^= 1;
		CHECK(write_msg2(&res, m2, nv_resp_ephemeral, re, rs, psk, payload, 0));
		CHECK(!read_msg2(&ini, m2, 48, nv_init_ephemeral, nv_init_static, nv_psk, out));
	}

	/* TAI64N: label + seconds, nanoseconds rounded down to 2^24. */
	{
		uint8_t t[12];
		static const uint8_t want[12] = {0x40, 0,    0,	   0,	 0x65, 0x53,
						 0xf1, 0x0a, 0x1d, 0x00, 0x00, 0x00};
		wg_noise_tai64n(t, 1700000000ULL * 1000000000ULL + 499999999ULL);
		CHECK_MEM(t, want, 12, "tai64n");
	}
	return test_finish("test_noise_vectors");
}
