/* Parser for the body of a UAPI "set" request (see uapi_parse.h). */
#include "uapi_parse.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0..15 without branching on the (secret) character; *bad set if not hex. */
static uint32_t hex_value(uint8_t c, uint32_t *bad)
{
	int32_t num = (int32_t)c - '0';
	int32_t alpha = ((int32_t)c | 32) - 'a';
	/* all ones when in range, zero otherwise */
	uint32_t num_ok = ((uint32_t)(num | (9 - num)) >> 31) - 1;
	uint32_t alpha_ok = ((uint32_t)(alpha | (5 - alpha)) >> 31) - 1;

	*bad |= ~(num_ok | alpha_ok) & 1;
	return ((uint32_t)num & num_ok) | ((uint32_t)(alpha + 10) & alpha_ok);
}

/* Every UAPI key (private, public, preshared) is this long. */
_Static_assert(WG_SYMMETRIC_KEY_LEN == WG_PUBLIC_KEY_LEN, "one key length");

bool uapi_parse_key(const char *hex, size_t len, uint8_t key[WG_PUBLIC_KEY_LEN])
{
	uint32_t bad = 0;

	if (len != 2 * WG_PUBLIC_KEY_LEN)
		return false;
	for (size_t i = 0; i < WG_PUBLIC_KEY_LEN; i++) {
		uint32_t hi = hex_value((uint8_t)hex[2 * i], &bad);
		uint32_t lo = hex_value((uint8_t)hex[2 * i + 1], &bad);

		key[i] = (uint8_t)(hi << 4 | lo);
	}
	if (bad) {
		explicit_bzero(key, WG_PUBLIC_KEY_LEN);
		return false;
	}
	return true;
}

void uapi_format_key(char out[2 * WG_PUBLIC_KEY_LEN + 1], const uint8_t key[WG_PUBLIC_KEY_LEN])
{
	for (size_t i = 0; i < 2 * WG_PUBLIC_KEY_LEN; i++) {
		uint32_t n = (key[i / 2] >> (i & 1 ? 0 : 4)) & 0xf;

		/* '0'..'9', then 'a'..'f': add 39 when n > 9, without a branch */
		out[i] = (char)(n + '0' + ((uint32_t)(9 - (int32_t)n) >> 31) * 39);
	}
	out[2 * WG_PUBLIC_KEY_LEN] = '\0';
}

bool uapi_parse_uint(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 20)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

static bool copy_cstr(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size || memchr(s, '\0', len))
		return false;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return true;
}

static bool parse_scope(const char *s, size_t len, uint32_t *scope)
{
	char name[IF_NAMESIZE];
	uint64_t v;

	if (uapi_parse_uint(s, len, UINT32_MAX, &v)) {
		*scope = (uint32_t)v;
		return true;
	}
	if (!copy_cstr(name, sizeof(name), s, len) || len == 0)
		return false;
	*scope = if_nametoindex(name);
	return *scope != 0;
}

/* uapi_parse_endpoint, saying why not: NULL when valid. */
static const char *endpoint_error(const char *s, size_t len, union uapi_sockaddr *out)
{
	char host[INET6_ADDRSTRLEN];
	const char *port_str;
	uint64_t port;

	memset(out, 0, sizeof(*out));
	if (len > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', len);
		const char *pct;
		size_t host_len;
		uint32_t scope = 0;

		if (!close || (size_t)(close - s) + 1 >= len || close[1] != ':')
			return "expected [address]:port";
		host_len = (size_t)(close - s) - 1;
		pct = memchr(s + 1, '%', host_len);
		if (pct) {
			size_t zone_len = host_len - (size_t)(pct - (s + 1)) - 1;

			if (!parse_scope(pct + 1, zone_len, &scope))
				return "invalid zone (no such interface)";
			host_len = (size_t)(pct - (s + 1));
		}
		if (!copy_cstr(host, sizeof(host), s + 1, host_len) ||
		    inet_pton(AF_INET6, host, &out->in6.sin6_addr) != 1) {
			memset(out, 0, sizeof(*out));
			return "invalid IPv6 address";
		}
		/* an IPv4-mapped address stays IPv6 (as the Linux module and
		 * wireguard-go): it reads back as written */
		out->in6.sin6_family = AF_INET6;
		out->in6.sin6_scope_id = scope;
		port_str = close + 2;
	} else {
		port_str = memchr(s, ':', len);
		if (!port_str)
			return "expected address:port";
		if (!copy_cstr(host, sizeof(host), s, (size_t)(port_str - s)) ||
		    inet_pton(AF_INET, host, &out->in4.sin_addr) != 1) {
			memset(out, 0, sizeof(*out));
			return "invalid IPv4 address";
		}
		out->in4.sin_family = AF_INET;
		port_str++;
	}
	if (!uapi_parse_uint(port_str, len - (size_t)(port_str - s), 65535, &port)) {
		memset(out, 0, sizeof(*out));
		return "invalid port";
	}
	if (out->sa.sa_family == AF_INET6)
		out->in6.sin6_port = htons((uint16_t)port);
	else
		out->in4.sin_port = htons((uint16_t)port);
	return NULL;
}

bool uapi_parse_endpoint(const char *s, size_t len, union uapi_sockaddr *out)
{
	return endpoint_error(s, len, out) == NULL;
}

bool uapi_format_endpoint(char *out, size_t size, const struct sockaddr *sa)
{
	const struct sockaddr_in *in4 = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
	char host[INET6_ADDRSTRLEN];
	int n = -1;

	if (sa->sa_family == AF_INET && inet_ntop(AF_INET, &in4->sin_addr, host, sizeof(host)))
		n = snprintf(out, size, "%s:%u", host, ntohs(in4->sin_port));
	else if (sa->sa_family == AF_INET6 && in6->sin6_scope_id &&
		 inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host)))
		n = snprintf(out, size, "[%s%%%u]:%u", host, in6->sin6_scope_id,
			     ntohs(in6->sin6_port));
	else if (sa->sa_family == AF_INET6 &&
		 inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host)))
		n = snprintf(out, size, "[%s]:%u", host, ntohs(in6->sin6_port));
	return n > 0 && (size_t)n < size;
}

bool uapi_parse_ip(const char *s, size_t len, sa_family_t *family, void *addr)
{
	char host[INET6_ADDRSTRLEN];

	if (!copy_cstr(host, sizeof(host), s, len))
		return false;
	if (inet_pton(AF_INET, host, addr) == 1)
		*family = AF_INET;
	else if (inet_pton(AF_INET6, host, addr) == 1)
		*family = AF_INET6;
	else
		return false;
	return true;
}

bool uapi_parse_prefix(const char *s, size_t len, bool host_default, sa_family_t *family,
		       void *addr, uint8_t *cidr)
{
	const char *slash = memchr(s, '/', len);
	size_t iplen = slash ? (size_t)(slash - s) : len;
	uint64_t n;

	if ((!slash && !host_default) || !uapi_parse_ip(s, iplen, family, addr))
		return false;
	n = *family == AF_INET ? 32 : 128;
	if (slash && !uapi_parse_uint(slash + 1, len - iplen - 1, n, &n))
		return false;
	*cidr = (uint8_t)n;
	return true;
}

const char *uapi_format_ip(char out[INET6_ADDRSTRLEN], int family, const void *addr)
{
	if (!inet_ntop(family, addr, out, INET6_ADDRSTRLEN))
		snprintf(out, INET6_ADDRSTRLEN, "?");
	return out;
}

static bool parse_allowed_ip(const char *s, size_t len, struct uapi_allowed_ip *out)
{
	bool remove = len > 0 && s[0] == '-';
	sa_family_t family;

	memset(out, 0, sizeof(*out));
	if (!uapi_parse_prefix(s + remove, len - remove, false, &family, out->addr, &out->cidr))
		return false;
	out->family = (uint8_t)family;
	out->remove = remove;
	return true;
}

static bool is(const char *s, size_t len, const char *lit)
{
	return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

/* Not realloc, which would leave the old copy's keys unwiped. */
static void *grow(void *ptr, size_t *cap, size_t n, size_t elem)
{
	size_t new_cap = *cap ? *cap * 2 : 4;
	void *p;

	if (n < *cap)
		return ptr;
	if (new_cap > SIZE_MAX / elem)
		return NULL;
	p = malloc(new_cap * elem);
	if (!p)
		return NULL;
	if (ptr) {
		memcpy(p, ptr, *cap * elem);
		explicit_bzero(ptr, *cap * elem);
		free(ptr);
	}
	*cap = new_cap;
	return p;
}

/* Reasons a line is refused (uapi_parse_error.reason). */
static const char BAD_KEY[] = "invalid key (64 hex digits expected)";
static const char BAD_NUMBER[] = "invalid number";
static const char ONLY_TRUE[] = "only \"true\" is accepted";
static const char UNKNOWN[] = "unknown key";
static const char NO_MEMORY[] = "out of memory";

/* Each line parser returns 0 or a negative errno and sets *why on error. */
static int refuse(const char **why, const char *reason)
{
	*why = reason;
	return reason == NO_MEMORY ? -ENOMEM : -EINVAL;
}

/* jc, s1, h1, i1, ...: amneziawg-go's keys (wg/obfs_conf.c). */
static int parse_obfs_line(struct uapi_set *set, const char *key, size_t klen, const char *val,
			   size_t vlen, const char **why)
{
	int r;

	if (!set->obfs) {
		set->obfs = malloc(sizeof(*set->obfs));
		if (!set->obfs)
			return refuse(why, NO_MEMORY);
		wg_obfs_config_init(set->obfs);
	}
	r = wg_obfs_set_key(set->obfs, key, klen, val, vlen, why);
	return r > 0 ? 0 : refuse(why, r ? *why : UNKNOWN);
}

static int parse_device_line(struct uapi_set *set, const char *key, size_t klen, const char *val,
			     size_t vlen, const char **why)
{
	uint64_t v;

	if (is(key, klen, "private_key")) {
		if (!uapi_parse_key(val, vlen, set->private_key))
			return refuse(why, BAD_KEY);
		set->has_private_key = true;
	} else if (is(key, klen, "listen_port")) {
		if (!uapi_parse_uint(val, vlen, 65535, &v))
			return refuse(why, "invalid port");
		set->listen_port = (uint16_t)v;
		set->has_listen_port = true;
	} else if (is(key, klen, "fwmark")) {
		if (!uapi_parse_uint(val, vlen, UINT32_MAX, &v))
			return refuse(why, BAD_NUMBER);
		set->fwmark = (uint32_t)v;
		set->has_fwmark = true;
	} else if (is(key, klen, "replace_peers")) {
		if (!is(val, vlen, "true"))
			return refuse(why, ONLY_TRUE);
		set->replace_peers = true;
	} else {
		return parse_obfs_line(set, key, klen, val, vlen, why);
	}
	return 0;
}

static int parse_peer_line(struct uapi_peer *peer, const char *key, size_t klen, const char *val,
			   size_t vlen, const char **why)
{
	uint64_t v;

	if (is(key, klen, "remove")) {
		if (!is(val, vlen, "true"))
			return refuse(why, ONLY_TRUE);
		peer->remove = true;
	} else if (is(key, klen, "update_only")) {
		if (!is(val, vlen, "true"))
			return refuse(why, ONLY_TRUE);
		peer->update_only = true;
	} else if (is(key, klen, "preshared_key")) {
		if (!uapi_parse_key(val, vlen, peer->preshared_key))
			return refuse(why, BAD_KEY);
		peer->has_preshared_key = true;
	} else if (is(key, klen, "endpoint")) {
		const char *bad = endpoint_error(val, vlen, &peer->endpoint);

		if (bad)
			return refuse(why, bad);
		peer->has_endpoint = true;
	} else if (is(key, klen, "persistent_keepalive_interval")) {
		if (!uapi_parse_uint(val, vlen, 65535, &v))
			return refuse(why, "invalid interval (0 to 65535 seconds)");
		peer->keepalive = (uint16_t)v;
		peer->has_keepalive = true;
	} else if (is(key, klen, "replace_allowed_ips")) {
		if (!is(val, vlen, "true"))
			return refuse(why, ONLY_TRUE);
		peer->replace_allowed_ips = true;
	} else if (is(key, klen, "allowed_ip")) {
		struct uapi_allowed_ip aip;
		struct uapi_allowed_ip *list;

		if (!parse_allowed_ip(val, vlen, &aip))
			return refuse(why, "invalid prefix (address/length expected)");
		list = grow(peer->allowed_ips, &peer->cap_allowed_ips, peer->n_allowed_ips,
			    sizeof(*list));
		if (!list)
			return refuse(why, NO_MEMORY);
		peer->allowed_ips = list;
		list[peer->n_allowed_ips++] = aip;
	} else if (is(key, klen, "protocol_version")) {
		if (!is(val, vlen, "1"))
			return refuse(why, "unsupported version (only 1)");
	} else {
		return refuse(why, UNKNOWN);
	}
	return 0;
}

static int start_peer(struct uapi_set *set, const char *val, size_t vlen, const char **why)
{
	struct uapi_peer *list;
	struct uapi_peer *peer;

	list = grow(set->peers, &set->cap_peers, set->n_peers, sizeof(*list));
	if (!list)
		return refuse(why, NO_MEMORY);
	set->peers = list;
	peer = &list[set->n_peers];
	memset(peer, 0, sizeof(*peer));
	if (!uapi_parse_key(val, vlen, peer->public_key))
		return refuse(why, BAD_KEY);
	set->n_peers++;
	return 0;
}

int uapi_parse_set(const char *body, size_t len, struct uapi_set *out, struct uapi_parse_error *err)
{
	struct uapi_parse_error where = {0};
	size_t pos = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	while (pos < len) {
		const char *line = body + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t line_len = nl ? (size_t)(nl - line) : len - pos;
		const char *eq;

		where = (struct uapi_parse_error){.line = where.line + 1, .key_off = pos};
		pos += line_len + 1;
		/* CRLF ends a line too, as in wireguard-go (bufio.ScanLines) */
		if (nl && line_len > 0 && line[line_len - 1] == '\r')
			line_len--;
		if (line_len == 0)
			break; /* blank line: end of the request */
		eq = memchr(line, '=', line_len);
		if (!eq) {
			where.key_len = line_len;
			where.value_off = where.key_off + line_len;
			where.reason = "no '=' in the line";
			ret = -EPROTO;
			break;
		}
		const char *val = eq + 1;
		size_t klen = (size_t)(eq - line);
		size_t vlen = line_len - klen - 1;

		where.key_len = klen;
		where.value_off = where.key_off + klen + 1;
		where.value_len = vlen;
		if (is(line, klen, "public_key"))
			ret = start_peer(out, val, vlen, &where.reason);
		else if (out->n_peers == 0)
			ret = parse_device_line(out, line, klen, val, vlen, &where.reason);
		else
			ret = parse_peer_line(&out->peers[out->n_peers - 1], line, klen, val, vlen,
					      &where.reason);
		if (ret)
			break;
	}
	if (ret)
		uapi_set_free(out);
	if (err)
		*err = ret ? where : (struct uapi_parse_error){0};
	return ret;
}

void uapi_set_free(struct uapi_set *set)
{
	for (size_t i = 0; i < set->n_peers; i++)
		free(set->peers[i].allowed_ips);
	if (set->peers)
		explicit_bzero(set->peers, set->cap_peers * sizeof(*set->peers));
	free(set->peers);
	free(set->obfs);
	explicit_bzero(set, sizeof(*set));
}
