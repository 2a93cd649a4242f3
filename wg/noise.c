/* Noise IKpsk2 handshake and keypairs (doc/engine.md; the WireGuard paper,
 * section 5.4). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <zinc/blake2s.h>
#include <zinc/chacha20poly1305.h>
#include <zinc/curve25519.h>
#include <zinc/memzero.h>

#include "bytes.h"
#include "device.h"
#include "noise.h"
#include "peer.h"

/* ---- Primitives ---- */

static void hash2(uint8_t out[WG_HASH_LEN], const uint8_t *a, size_t alen, const uint8_t *b,
		  size_t blen)
{
	struct zinc_blake2s_state s;

	zinc_blake2s_init(&s, WG_HASH_LEN);
	zinc_blake2s_update(&s, a, alen);
	zinc_blake2s_update(&s, b, blen);
	zinc_blake2s_final(&s, out);
}

/* KDF_n(key, data): up to three WG_HASH_LEN outputs (NULL = not wanted). Outputs
 * may alias key. */
static void kdf(uint8_t *t1, uint8_t *t2, uint8_t *t3, const uint8_t *data, size_t len,
		const uint8_t key[WG_HASH_LEN])
{
	uint8_t t0[WG_HASH_LEN], out[WG_HASH_LEN + 1], prev[WG_HASH_LEN + 1];

	zinc_blake2s_hmac(t0, data, key, len, WG_HASH_LEN);
	out[0] = 1;
	zinc_blake2s_hmac(prev, out, t0, 1, WG_HASH_LEN);
	if (t2 || t3) {
		prev[WG_HASH_LEN] = 2;
		zinc_blake2s_hmac(out, prev, t0, WG_HASH_LEN + 1, WG_HASH_LEN);
	}
	if (t3) {
		out[WG_HASH_LEN] = 3;
		zinc_blake2s_hmac(t3, out, t0, WG_HASH_LEN + 1, WG_HASH_LEN);
	}
	if (t2)
		memcpy(t2, out, WG_HASH_LEN);
	if (t1)
		memcpy(t1, prev, WG_HASH_LEN);
	zinc_memzero(t0, sizeof(t0));
	zinc_memzero(out, sizeof(out));
	zinc_memzero(prev, sizeof(prev));
}

static void mix_hash(struct wg_noise_core *st, const uint8_t *data, size_t len)
{
	hash2(st->h, st->h, WG_HASH_LEN, data, len);
}

static void mix_key(struct wg_noise_core *st, const uint8_t *data, size_t len)
{
	kdf(st->ck, NULL, NULL, data, len, st->ck);
}

/* (ck, key) = KDF2(ck, shared); rejects an all-zero shared secret. */
static bool mix_shared(struct wg_noise_core *st, uint8_t key[WG_SYMMETRIC_KEY_LEN],
		       const uint8_t shared[WG_PUBLIC_KEY_LEN])
{
	if (wg_is_zero(shared, WG_PUBLIC_KEY_LEN))
		return false;
	kdf(st->ck, key, NULL, shared, WG_PUBLIC_KEY_LEN, st->ck);
	return true;
}

static void mix_psk(struct wg_noise_core *st, uint8_t key[WG_SYMMETRIC_KEY_LEN],
		    const uint8_t psk[WG_SYMMETRIC_KEY_LEN])
{
	uint8_t t[WG_HASH_LEN];

	kdf(st->ck, t, key, psk, WG_SYMMETRIC_KEY_LEN, st->ck);
	mix_hash(st, t, WG_HASH_LEN);
	zinc_memzero(t, sizeof(t));
}

static void encrypt_and_hash(struct wg_noise_core *st, uint8_t *out, const uint8_t *plain,
			     size_t len, const uint8_t key[WG_SYMMETRIC_KEY_LEN])
{
	zinc_chacha20poly1305_encrypt(out, plain, len, st->h, WG_HASH_LEN, 0, key);
	mix_hash(st, out, len + WG_AUTHTAG_LEN);
}

static bool decrypt_and_hash(struct wg_noise_core *st, uint8_t *out, const uint8_t *in,
			     size_t in_len, const uint8_t key[WG_SYMMETRIC_KEY_LEN])
{
	if (!zinc_chacha20poly1305_decrypt(out, in, in_len, st->h, WG_HASH_LEN, 0, key))
		return false;
	mix_hash(st, in, in_len);
	return true;
}

/* The "e" token in a psk handshake: MixHash(e) and MixKey(e). */
static void mix_ephemeral(struct wg_noise_core *st, const uint8_t e_pub[WG_PUBLIC_KEY_LEN])
{
	mix_hash(st, e_pub, WG_PUBLIC_KEY_LEN);
	mix_key(st, e_pub, WG_PUBLIC_KEY_LEN);
}

/* ---- Generic core ---- */

void wg_noise_core_init(struct wg_noise_core *st, const uint8_t *prologue, size_t prologue_len,
			const uint8_t responder_pub[WG_PUBLIC_KEY_LEN])
{
	zinc_blake2s(st->ck, (const uint8_t *)WG_CONSTRUCTION, NULL, WG_HASH_LEN,
		     sizeof(WG_CONSTRUCTION) - 1, 0);
	hash2(st->h, st->ck, WG_HASH_LEN, prologue, prologue_len);
	mix_hash(st, responder_pub, WG_PUBLIC_KEY_LEN);
}

bool wg_noise_core_write_msg1_dh(struct wg_noise_core *st, uint8_t *out,
				 const uint8_t e_pub[WG_PUBLIC_KEY_LEN],
				 const uint8_t es[WG_PUBLIC_KEY_LEN],
				 const uint8_t s_pub[WG_PUBLIC_KEY_LEN],
				 const uint8_t ss[WG_PUBLIC_KEY_LEN], const uint8_t *payload,
				 size_t plen)
{
	uint8_t key[WG_SYMMETRIC_KEY_LEN];
	bool ok = false;

	memcpy(out, e_pub, WG_PUBLIC_KEY_LEN);
	mix_ephemeral(st, out);
	if (!mix_shared(st, key, es))
		goto out;
	encrypt_and_hash(st, out + WG_PUBLIC_KEY_LEN, s_pub, WG_PUBLIC_KEY_LEN, key);
	if (!mix_shared(st, key, ss))
		goto out;
	encrypt_and_hash(st, out + WG_PUBLIC_KEY_LEN + WG_ENCRYPTED_LEN(WG_PUBLIC_KEY_LEN), payload,
			 plen, key);
	ok = true;
out:
	zinc_memzero(key, sizeof(key));
	return ok;
}

bool wg_noise_core_read_msg1_static_dh(struct wg_noise_core *st, const uint8_t *in,
				       const uint8_t es[WG_PUBLIC_KEY_LEN],
				       uint8_t rs_out[WG_PUBLIC_KEY_LEN])
{
	uint8_t key[WG_SYMMETRIC_KEY_LEN];
	bool ok;

	mix_ephemeral(st, in);
	ok = mix_shared(st, key, es) && decrypt_and_hash(st, rs_out, in + WG_PUBLIC_KEY_LEN,
							 WG_ENCRYPTED_LEN(WG_PUBLIC_KEY_LEN), key);
	zinc_memzero(key, sizeof(key));
	return ok;
}

bool wg_noise_core_read_msg1_payload(struct wg_noise_core *st, const uint8_t *in, size_t in_len,
				     const uint8_t ss[WG_PUBLIC_KEY_LEN], uint8_t *payload_out)
{
	uint8_t key[WG_SYMMETRIC_KEY_LEN];
	bool ok;

	if (in_len < WG_AUTHTAG_LEN)
		return false;
	ok = mix_shared(st, key, ss) && decrypt_and_hash(st, payload_out, in, in_len, key);
	zinc_memzero(key, sizeof(key));
	return ok;
}

bool wg_noise_core_write_msg2_dh(struct wg_noise_core *st, uint8_t *out,
				 const uint8_t e_pub[WG_PUBLIC_KEY_LEN],
				 const uint8_t ee[WG_PUBLIC_KEY_LEN],
				 const uint8_t se[WG_PUBLIC_KEY_LEN],
				 const uint8_t psk[WG_SYMMETRIC_KEY_LEN], const uint8_t *payload,
				 size_t plen)
{
	uint8_t key[WG_SYMMETRIC_KEY_LEN];
	bool ok = false;

	memcpy(out, e_pub, WG_PUBLIC_KEY_LEN);
	mix_ephemeral(st, out);
	if (!mix_shared(st, key, ee) || !mix_shared(st, key, se))
		goto out;
	mix_psk(st, key, psk);
	encrypt_and_hash(st, out + WG_PUBLIC_KEY_LEN, payload, plen, key);
	ok = true;
out:
	zinc_memzero(key, sizeof(key));
	return ok;
}

bool wg_noise_core_read_msg2_dh(struct wg_noise_core *st, const uint8_t *in, size_t in_len,
				const uint8_t ee[WG_PUBLIC_KEY_LEN],
				const uint8_t se[WG_PUBLIC_KEY_LEN],
				const uint8_t psk[WG_SYMMETRIC_KEY_LEN], uint8_t *payload_out)
{
	uint8_t key[WG_SYMMETRIC_KEY_LEN];
	bool ok = false;

	if (in_len < WG_PUBLIC_KEY_LEN + WG_ENCRYPTED_LEN(0))
		return false;
	mix_ephemeral(st, in);
	if (!mix_shared(st, key, ee) || !mix_shared(st, key, se))
		goto out;
	mix_psk(st, key, psk);
	ok = decrypt_and_hash(st, payload_out, in + WG_PUBLIC_KEY_LEN, in_len - WG_PUBLIC_KEY_LEN,
			      key);
out:
	zinc_memzero(key, sizeof(key));
	return ok;
}

void wg_noise_core_split(struct wg_noise_core *st, uint8_t k_init_send[WG_SYMMETRIC_KEY_LEN],
			 uint8_t k_resp_send[WG_SYMMETRIC_KEY_LEN])
{
	kdf(k_init_send, k_resp_send, NULL, NULL, 0, st->ck);
	zinc_memzero(st, sizeof(*st));
}

void wg_noise_tai64n(uint8_t out[WG_TIMESTAMP_LEN], uint64_t wall_ns)
{
	uint64_t sec = 0x400000000000000aULL + wall_ns / WG_NS_PER_SEC;
	/* Round down to 2^24 ns (largest power of two under 1e9/50): the
	 * timestamp then reveals no finer timing than the flood guard needs. */
	uint32_t nsec = (uint32_t)(wall_ns % WG_NS_PER_SEC) & ~((1U << 24) - 1);

	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(sec >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		out[8 + i] = (uint8_t)(nsec >> (24 - 8 * i));
}

/* ---- Handshake ---- */

static void handshake_zero(struct wg_handshake *hs)
{
	if (hs->secrets) {
		zinc_memzero(hs->secrets, sizeof(*hs->secrets));
		free(hs->secrets);
		hs->secrets = NULL;
	}
	hs->remote_index = 0;
	hs->state = WG_HANDSHAKE_ZEROED;
	hs->serial++;
}

/* Zeroes the handshake and gives it fresh secrets; NULL if out of memory. */
static struct wg_handshake_secrets *handshake_begin(struct wg_handshake *hs)
{
	handshake_zero(hs);
	hs->secrets = calloc(1, sizeof(*hs->secrets));
	return hs->secrets;
}

void wg_noise_handshake_init(struct wg_peer *peer)
{
	struct wg_handshake *hs = &peer->handshake;

	memset(hs, 0, sizeof(*hs));
	hs->entry.type = WG_INDEX_HANDSHAKE;
	hs->entry.peer = peer;
}

void wg_noise_handshake_clear(struct wg_device *dev, struct wg_peer *peer)
{
	wg_index_remove(&dev->index, &peer->handshake.entry);
	handshake_zero(&peer->handshake);
}

bool wg_noise_commit_own_initiation(struct wg_device *dev, struct wg_peer *peer,
				    const struct wg_handshake_job_state *s,
				    struct wg_message_handshake_initiation *msg)
{
	struct wg_handshake *hs = &peer->handshake;
	struct wg_handshake_secrets *sec = handshake_begin(hs);

	if (!sec)
		return false;
	sec->core = s->core;
	memcpy(sec->ephemeral_private, s->e_priv, WG_PUBLIC_KEY_LEN);
	memcpy(msg, s->msg, sizeof(*msg));
	if (!wg_index_insert_new(dev, &hs->entry)) {
		wg_noise_handshake_clear(dev, peer);
		return false;
	}
	wg_put_le32(msg->sender_index, hs->entry.index);
	hs->state = WG_HANDSHAKE_CREATED_INITIATION;
	return true;
}

struct wg_peer *wg_noise_commit_initiation(struct wg_device *dev,
					   const struct wg_handshake_job_state *s)
{
	struct wg_peer *peer = wg_pubkey_lookup(dev, s->remote_static);
	struct wg_handshake *hs;
	bool replay, flood;

	if (!peer) {
		dev->stats.dropped_invalid++;
		return NULL;
	}
	hs = &peer->handshake;
	replay = memcmp(s->timestamp, hs->latest_timestamp, WG_TIMESTAMP_LEN) <= 0;
	flood = hs->has_consumed_initiation &&
		dev->now - hs->last_initiation_consumption < WG_HANDSHAKE_INITIATION_RATE;
	if (replay || flood) {
		dev->stats.dropped_replay++;
		return NULL;
	}

	if (!handshake_begin(hs))
		return NULL;
	hs->secrets->core = s->core;
	hs->remote_index =
	    wg_le32(s->msg + offsetof(struct wg_message_handshake_initiation, sender_index));
	memcpy(hs->latest_timestamp, s->timestamp, WG_TIMESTAMP_LEN);
	hs->last_initiation_consumption = dev->now;
	hs->has_consumed_initiation = true;
	hs->state = WG_HANDSHAKE_CONSUMED_INITIATION;
	return peer;
}

bool wg_noise_create_response(struct wg_device *dev, struct wg_peer *peer,
			      const struct wg_handshake_job_state *s,
			      struct wg_message_handshake_response *msg)
{
	struct wg_handshake *hs = &peer->handshake;

	static const uint8_t empty[1];

	if (hs->state != WG_HANDSHAKE_CONSUMED_INITIATION || !dev->has_identity)
		return false;
	memset(msg, 0, sizeof(*msg));
	msg->header.type = WG_MESSAGE_HANDSHAKE_RESPONSE;
	wg_put_le32(msg->receiver_index, hs->remote_index);
	if (!wg_noise_core_write_msg2_dh(&hs->secrets->core, msg->unencrypted_ephemeral,
					 s->resp_e_pub, s->resp_ee, s->resp_se, peer->preshared_key,
					 empty, 0) ||
	    !wg_index_insert_new(dev, &hs->entry)) {
		wg_noise_handshake_clear(dev, peer);
		return false;
	}
	wg_put_le32(msg->sender_index, hs->entry.index);
	hs->state = WG_HANDSHAKE_CREATED_RESPONSE;
	return true;
}

bool wg_noise_commit_response(const struct wg_handshake_job_state *s)
{
	struct wg_handshake *hs = &s->peer->handshake;

	if (s->peer->dead || hs->state != WG_HANDSHAKE_CREATED_INITIATION ||
	    hs->serial != s->serial)
		return false;
	hs->secrets->core = s->core;
	zinc_memzero(hs->secrets->ephemeral_private, WG_PUBLIC_KEY_LEN);
	hs->remote_index =
	    wg_le32(s->msg + offsetof(struct wg_message_handshake_response, sender_index));
	hs->state = WG_HANDSHAKE_CONSUMED_RESPONSE;
	return true;
}

/* ---- Keypairs ---- */

void wg_keypair_get(struct wg_keypair *kp)
{
	kp->refcount++;
}

void wg_keypair_put(struct wg_keypair *kp)
{
	struct wg_peer *peer;

	if (!kp || --kp->refcount)
		return;
	peer = kp->entry.peer;
	zinc_memzero(kp, sizeof(*kp));
	free(kp);
	wg_peer_put(peer);
}

/* Takes a keypair out of its slot: no new lookups, no new sends. */
static void keypair_drop(struct wg_device *dev, struct wg_keypair *kp)
{
	if (!kp)
		return;
	kp->valid = false;
	kp->sending_valid = false;
	wg_index_remove(&dev->index, &kp->entry);
	wg_keypair_put(kp);
}

static void add_new_keypair(struct wg_device *dev, struct wg_keypairs *kps, struct wg_keypair *kp)
{
	if (kp->initiator) {
		/* An unconfirmed next becomes previous (the peer may still send on
		 * it); otherwise the current one does. */
		if (kps->next) {
			keypair_drop(dev, kps->previous);
			kps->previous = kps->next;
			kps->next = NULL;
			keypair_drop(dev, kps->current);
		} else {
			keypair_drop(dev, kps->previous);
			kps->previous = kps->current;
		}
		kps->current = kp;
		dev->stats.keypair_rotations++;
	} else {
		keypair_drop(dev, kps->next);
		kps->next = kp;
		keypair_drop(dev, kps->previous);
		kps->previous = NULL;
	}
}

bool wg_noise_begin_session(struct wg_device *dev, struct wg_peer *peer)
{
	struct wg_handshake *hs = &peer->handshake;
	struct wg_keypair *kp;
	bool initiator;

	if (hs->state == WG_HANDSHAKE_CONSUMED_RESPONSE)
		initiator = true;
	else if (hs->state == WG_HANDSHAKE_CREATED_RESPONSE)
		initiator = false;
	else
		return false;
	kp = calloc(1, sizeof(*kp));
	if (!kp) {
		wg_noise_handshake_clear(dev, peer);
		return false;
	}
	if (initiator)
		wg_noise_core_split(&hs->secrets->core, kp->send_key, kp->recv_key);
	else
		wg_noise_core_split(&hs->secrets->core, kp->recv_key, kp->send_key);
	kp->entry.type = WG_INDEX_KEYPAIR;
	kp->entry.peer = peer;
	kp->remote_index = hs->remote_index;
	kp->initiator = initiator;
	kp->birth_ns = dev->now;
	kp->valid = true;
	kp->sending_valid = true;
	kp->refcount = 1;
	wg_replay_init(&kp->replay);
	wg_peer_get(peer);
	/* The keypair inherits the handshake's index, which the peer answers to. */
	wg_index_replace(&dev->index, &hs->entry, &kp->entry);
	handshake_zero(hs);
	add_new_keypair(dev, &peer->keypairs, kp);
	return true;
}

bool wg_noise_received_with_keypair(struct wg_device *dev, struct wg_peer *peer,
				    struct wg_keypair *kp)
{
	struct wg_keypairs *kps = &peer->keypairs;

	if (kp != kps->next)
		return false;
	keypair_drop(dev, kps->previous);
	kps->previous = kps->current;
	kps->current = kps->next;
	kps->next = NULL;
	dev->stats.keypair_rotations++;
	return true;
}

void wg_noise_keypairs_clear(struct wg_device *dev, struct wg_peer *peer)
{
	struct wg_keypairs *kps = &peer->keypairs;

	keypair_drop(dev, kps->previous);
	keypair_drop(dev, kps->current);
	keypair_drop(dev, kps->next);
	kps->previous = kps->current = kps->next = NULL;
}

void wg_noise_expire_current_keypairs(struct wg_device *dev, struct wg_peer *peer)
{
	wg_noise_handshake_clear(dev, peer);
	peer->has_sent_handshake = false;
	if (peer->keypairs.next)
		peer->keypairs.next->sending_valid = false;
	if (peer->keypairs.current)
		peer->keypairs.current->sending_valid = false;
}

bool wg_keypair_can_send(const struct wg_keypair *kp, uint64_t now)
{
	return kp && kp->valid && kp->sending_valid && now - kp->birth_ns < WG_REJECT_AFTER_TIME &&
	       kp->send_counter < WG_REJECT_AFTER_MESSAGES;
}

bool wg_keypair_can_receive(const struct wg_keypair *kp, uint64_t now)
{
	return kp && kp->valid && now - kp->birth_ns < WG_REJECT_AFTER_TIME &&
	       kp->replay.greatest < WG_REJECT_AFTER_MESSAGES;
}
