/* UAPI get/set: the glue between the parsed transaction and the engine. */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <time.h>
#include <arpa/inet.h>
#include <string.h>

#include "log.h"
#include "uapi_parse.h"
#include "zinc/memzero.h"

enum {
	CONFIG_PEERS_PER_LOCK = 1024, /* ~2 ms of work per chunk of new peers */
	CONFIG_HANDOFF_NS = 100000,   /* lock released this long between chunks */
	/* malloc keeps what a large removal or set freed unless trimmed */
	CONFIG_TRIM_AFTER_CHANGES = 1024,
};

/* Only the configuration thread counts. */
static size_t changes_since_trim;

static bool write_allowed_ip(void *ctx, int family, const void *addr, uint8_t cidr)
{
	struct buf *out = ctx;
	char s[INET6_ADDRSTRLEN];

	if (!inet_ntop(family, addr, s, sizeof(s)))
		return true;
	return buf_printf(out, "allowed_ip=%s/%u\n", s, cidr);
}

static void write_peer(struct buf *out, struct wg_peer *peer)
{
	struct wg_peer_info info;
	char hex[2 * WG_PUBLIC_KEY_LEN + 1];
	char ep[INET6_ADDRSTRLEN + 32];

	wg_peer_get_info(peer, &info);
	uapi_format_key(hex, info.public_key);
	buf_printf(out, "public_key=%s\n", hex);
	if (!info.has_preshared_key)
		memset(info.preshared_key, 0, sizeof(info.preshared_key));
	/* printed even when unset, as wireguard-go does */
	uapi_format_key(hex, info.preshared_key);
	buf_printf(out, "preshared_key=%s\n", hex);
	buf_printf(out, "protocol_version=1\n");
	if (info.has_endpoint && uapi_format_endpoint(ep, sizeof(ep), &info.endpoint.addr.sa))
		buf_printf(out, "endpoint=%s\n", ep);
	buf_printf(out, "last_handshake_time_sec=%llu\n",
		   (unsigned long long)(info.last_handshake_wall_ns / 1000000000ULL));
	buf_printf(out, "last_handshake_time_nsec=%llu\n",
		   (unsigned long long)(info.last_handshake_wall_ns % 1000000000ULL));
	buf_printf(out, "tx_bytes=%llu\n", (unsigned long long)info.tx_bytes);
	buf_printf(out, "rx_bytes=%llu\n", (unsigned long long)info.rx_bytes);
	buf_printf(out, "persistent_keepalive_interval=%u\n", info.persistent_keepalive);
	wg_peer_allowed_ips_foreach(peer, write_allowed_ip, out);
	zinc_memzero(hex, sizeof(hex));
	zinc_memzero(&info, sizeof(info));
}

int config_get(void *ctx, struct buf *out)
{
	struct zt_runtime *zt = ctx;
	uint8_t key[WG_PUBLIC_KEY_LEN];
	char hex[2 * WG_PUBLIC_KEY_LEN + 1];
	static char obfs[WG_OBFS_SPEC_LEN]; /* the configuration thread's */
	struct wg_peer *peer = NULL;

	zt_engine_lock(zt);
	if (wg_device_get_private_key(zt->dev, key)) {
		uapi_format_key(hex, key);
		buf_printf(out, "private_key=%s\n", hex);
		zinc_memzero(hex, sizeof(hex));
		zinc_memzero(key, sizeof(key));
	}
	if (zt->udp.port)
		buf_printf(out, "listen_port=%u\n", zt->udp.port);
	if (zt->udp.fwmark)
		buf_printf(out, "fwmark=%u\n", zt->udp.fwmark);
	for (unsigned k = 0; wg_obfs_key_name(k); k++) {
		if (wg_device_format_obfs(zt->dev, k, obfs, sizeof(obfs)))
			buf_printf(out, "%s=%s\n", wg_obfs_key_name(k), obfs);
	}
	while ((peer = wg_device_peer_next(zt->dev, peer)) && !out->overflow)
		write_peer(out, peer);
	zt_engine_unlock(zt);
	return out->overflow ? -ENOMEM : 0;
}

/* Would the set exceed the peer limit? Checked before anything changes. */
static bool too_many_peers(struct zt_runtime *zt, const struct uapi_set *set)
{
	size_t count = set->replace_peers ? 0 : wg_device_peer_count(zt->dev);

	zt_engine_assert_held(zt);
	for (size_t i = 0; i < set->n_peers; i++) {
		const struct uapi_peer *p = &set->peers[i];

		if (p->remove || p->update_only)
			continue;
		if (set->replace_peers || !wg_device_peer_lookup(zt->dev, p->public_key))
			count++;
	}
	return count > WG_MAX_PEERS;
}

static void apply_peer(struct zt_runtime *zt, const struct uapi_peer *p)
{
	struct wg_peer *peer = wg_device_peer_lookup(zt->dev, p->public_key);

	zt_engine_assert_held(zt);
	if (p->remove) {
		if (peer) {
			wg_device_peer_remove(zt->dev, peer);
			changes_since_trim++;
		}
		return;
	}
	if (!peer) {
		if (p->update_only)
			return;
		/* NULL for our own public key: such a peer is ignored */
		peer = wg_device_peer_add(zt->dev, p->public_key);
		if (!peer)
			return;
	}
	if (p->has_preshared_key)
		wg_peer_set_preshared_key(peer, p->preshared_key);
	if (p->has_endpoint) {
		/* in6, the largest member: the whole address, either family */
		struct wg_endpoint ep = {.addr.in6 = p->endpoint.in6};

		wg_peer_set_endpoint(peer, &ep);
	}
	if (p->replace_allowed_ips)
		wg_peer_allowed_ips_clear(peer);
	for (size_t i = 0; i < p->n_allowed_ips; i++) {
		const struct uapi_allowed_ip *a = &p->allowed_ips[i];
		int ret;

		if (a->remove) {
			wg_peer_allowed_ip_remove(peer, a->family, a->addr, a->cidr);
			changes_since_trim++;
			continue;
		}
		ret = wg_peer_allowed_ip_add(peer, a->family, a->addr, a->cidr);
		if (ret)
			log_err("allowed ip: cannot add (%d)", ret);
	}
	/* last: turning it on may send a keepalive to the endpoint set above */
	if (p->has_keepalive)
		wg_peer_set_persistent_keepalive(peer, p->keepalive);
}

enum { LOG_FIELD_MAX = 64 };

/* s[0..len) for a log line: control bytes as '?', cut at LOG_FIELD_MAX. */
static void printable(char out[LOG_FIELD_MAX + 4], const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n < LOG_FIELD_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		out[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (len > LOG_FIELD_MAX) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
}

/* A key's value is not logged: a private key may be pasted in the wrong place. */
static void log_rejected(const char *body, const struct uapi_parse_error *err)
{
	const char *key = body + err->key_off;
	bool secret = err->key_len >= 4 && !memcmp(key + err->key_len - 4, "_key", 4);
	char k[LOG_FIELD_MAX + 4], v[LOG_FIELD_MAX + 4];

	size_t line = err->line + 1; /* in the request, whose line 1 is "set=1" */

	printable(k, key, err->key_len);
	printable(v, body + err->value_off, err->value_len);
	if (secret)
		log_err("UAPI set rejected, line %zu: %s (value not shown): %s", line, k,
			err->reason);
	else
		log_err("UAPI set rejected, line %zu: %s '%s': %s", line, k, v, err->reason);
}

int config_apply(struct zt_runtime *zt, const struct uapi_set *set)
{
	const char *why;
	uint32_t old_mark;
	int ret = 0;

	zt_engine_lock(zt);
	if (too_many_peers(zt, set)) {
		ret = -ENOSPC;
		goto out;
	}
	if (set->obfs && (why = wg_device_set_obfs(zt->dev, set->obfs, false))) {
		log_err("UAPI set rejected: AmneziaWG parameters: %s", why);
		ret = -EINVAL;
		goto out;
	}
	old_mark = zt->udp.fwmark;
	if (set->has_fwmark && set->fwmark != old_mark) {
		ret = udp_set_fwmark(&zt->udp, set->fwmark);
		if (ret)
			goto out;
	}
	if (set->has_listen_port) {
		ret = udp_bind(&zt->udp, set->listen_port);
		if (ret) {
			if (set->has_fwmark && set->fwmark != old_mark)
				udp_set_fwmark(&zt->udp, old_mark);
			log_err("UAPI set: cannot bind port %u: %s", set->listen_port,
				strerror(-ret));
			goto out;
		}
	}
	/* nothing below can fail: the set is now committed */
	if (set->obfs)
		wg_device_set_obfs(zt->dev, set->obfs, true);
	if (set->has_private_key)
		wg_device_set_private_key(zt->dev, set->private_key);
	if (set->replace_peers) {
		changes_since_trim += wg_device_peer_count(zt->dev);
		wg_device_peers_clear(zt->dev);
	}
	for (size_t i = 0; i < set->n_peers; i++) {
		apply_peer(zt, &set->peers[i]);
		/* let the data path in; the mutex is not fair, hence the sleep */
		if (i % CONFIG_PEERS_PER_LOCK == CONFIG_PEERS_PER_LOCK - 1) {
			zt_engine_unlock(zt);
			nanosleep(&(struct timespec){.tv_nsec = CONFIG_HANDOFF_NS}, NULL);
			zt_engine_lock(zt);
		}
	}
	changes_since_trim += set->n_peers;
out:
	zt_engine_unlock(zt);
	/* a new port: answer once the old sockets' users let them go */
	udp_wait_retired(&zt->udp);
	return ret;
}

int config_set(void *ctx, const char *body, size_t len)
{
	struct zt_runtime *zt = ctx;
	struct uapi_set set;
	struct uapi_parse_error err;
	int ret = uapi_parse_set(body, len, &set, &err);

	if (ret) {
		log_rejected(body, &err);
		return ret;
	}
	ret = config_apply(zt, &set);
	uapi_set_free(&set);
	/* outside the lock: trimming a large heap takes milliseconds */
	if (changes_since_trim >= CONFIG_TRIM_AFTER_CHANGES) {
		changes_since_trim = 0;
		malloc_trim(0);
	}
	return ret;
}
