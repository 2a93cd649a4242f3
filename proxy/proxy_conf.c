// SPDX-License-Identifier: MIT
/* wireproxy's configuration format, parsed without I/O (see proxy_conf.h). */
#include "proxy_conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zinc/memzero.h>

#include "../daemon/base64.h"

enum key_id {
	K_PRIVATE_KEY,
	K_ADDRESS,
	K_DNS,
	K_MTU,
	K_LISTEN_PORT,
	K_PUBLIC_KEY,
	K_PRESHARED_KEY,
	K_ENDPOINT,
	K_ALLOWED_IPS,
	K_KEEPALIVE,
	K_BIND_ADDRESS,
	K_USERNAME,
	K_PASSWORD,
	K_TARGET,
	K_INACTIVITY,
	K_ALLOW_UNAUTH,
	K_WGCONFIG,
	K_COUNT,
	K_WGQUICK_ONLY = K_COUNT, /* wg-quick's own keys, ignored in a WGConfig file */
	K_UNKNOWN,
};

static const char *const key_names[K_COUNT] = {
    [K_PRIVATE_KEY] = "PrivateKey",
    [K_ADDRESS] = "Address",
    [K_DNS] = "DNS",
    [K_MTU] = "MTU",
    [K_LISTEN_PORT] = "ListenPort",
    [K_PUBLIC_KEY] = "PublicKey",
    [K_PRESHARED_KEY] = "PresharedKey",
    [K_ENDPOINT] = "Endpoint",
    [K_ALLOWED_IPS] = "AllowedIPs",
    [K_KEEPALIVE] = "PersistentKeepalive",
    [K_BIND_ADDRESS] = "BindAddress",
    [K_USERNAME] = "Username",
    [K_PASSWORD] = "Password",
    [K_TARGET] = "Target",
    [K_INACTIVITY] = "InactivityTimeout",
    [K_ALLOW_UNAUTH] = "AllowUnauthenticated",
    [K_WGCONFIG] = "WGConfig",
};

static const char *const wgquick_keys[] = {
    "Table", "PreUp", "PostUp", "PreDown", "PostDown", "SaveConfig", "FwMark",
};

/* Keys that may be repeated, their lists adding up. */
#define REPEATABLE (1u << K_ADDRESS | 1u << K_DNS | 1u << K_ALLOWED_IPS)

enum section {
	S_TOP,
	S_INTERFACE,
	S_PEER,
	S_SOCKS5,
	S_HTTP,
	S_TCP_CLIENT,
	S_TCP_SERVER,
	S_UDP,
	S_COUNT,
};

static const struct {
	const char *name;
	uint32_t keys; /* allowed keys */
} sections[S_COUNT] = {
    [S_TOP] = {"", 1u << K_WGCONFIG},
    [S_INTERFACE] = {"Interface", 1u << K_PRIVATE_KEY | 1u << K_ADDRESS | 1u << K_DNS |
				      1u << K_MTU | 1u << K_LISTEN_PORT},
    [S_PEER] = {"Peer", 1u << K_PUBLIC_KEY | 1u << K_PRESHARED_KEY | 1u << K_ENDPOINT |
			    1u << K_ALLOWED_IPS | 1u << K_KEEPALIVE},
    [S_SOCKS5] = {"Socks5", 1u << K_BIND_ADDRESS | 1u << K_USERNAME | 1u << K_PASSWORD |
				1u << K_ALLOW_UNAUTH},
    [S_HTTP] = {"http",
		1u << K_BIND_ADDRESS | 1u << K_USERNAME | 1u << K_PASSWORD | 1u << K_ALLOW_UNAUTH},
    [S_TCP_CLIENT] = {"TCPClientTunnel", 1u << K_BIND_ADDRESS | 1u << K_TARGET},
    [S_TCP_SERVER] = {"TCPServerTunnel", 1u << K_LISTEN_PORT | 1u << K_TARGET},
    [S_UDP] = {"UDPProxyTunnel", 1u << K_BIND_ADDRESS | 1u << K_TARGET | 1u << K_INACTIVITY},
};

struct parser {
	struct proxy_conf *conf;
	proxy_conf_read_fn read;
	void *ctx;
	char *err;
	size_t errlen;
	const char *file; /* the file being read */
	unsigned line;
	bool included;	   /* reading the WGConfig file */
	char *wg_file;	   /* the WGConfig path as joined, or NULL */
	unsigned wg_lines; /* lines of the file holding [Interface] and [Peer] */
	enum section sec;
	unsigned sec_line;
	uint32_t seen; /* keys given in the current section */
	bool any_section;
	unsigned iface_line; /* 0: no [Interface] yet */
};

static int vfail_at(struct parser *p, unsigned line, const char *fmt, va_list ap)
{
	int n;

	if (!p->errlen)
		return -1;
	n = snprintf(p->err, p->errlen, "%s:%u: ", p->file, line);
	if (n >= 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	/* quoted values go to a terminal: no control characters */
	for (char *c = p->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}

/* "FILE:LINE: message" at the given line. Always returns -1. */
static int fail_at(struct parser *p, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(struct parser *p, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(p, line, fmt, ap);
	va_end(ap);
	return -1;
}

/* The same at the line being read. */
static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(p, p->line, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_text(struct parser *p, const char *text, size_t len);

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void trim(const char **s, size_t *len)
{
	while (*len && is_space(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_space((*s)[*len - 1]))
		(*len)--;
}

/* Strips a comment ('#' or ';' at the start or after whitespace). */
static size_t uncomment(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((s[i] == '#' || s[i] == ';') && (i == 0 || is_space(s[i - 1])))
			return i;
	return len;
}

static bool blank(const char *s, size_t len)
{
	len = uncomment(s, len);
	trim(&s, &len);
	return len == 0;
}

static bool word_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !strncasecmp(s, word, len);
}

static bool parse_uint(const char *s, size_t len, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (!len || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_ip(const char *s, size_t len, struct proxy_ip *ip)
{
	char buf[INET6_ADDRSTRLEN];

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(ip, 0, sizeof(*ip));
	if (inet_pton(AF_INET, buf, &ip->in4) == 1) {
		ip->family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, buf, &ip->in6) == 1) {
		ip->family = AF_INET6;
		return true;
	}
	return false;
}

static bool parse_prefix(const char *s, size_t len, struct proxy_prefix *pf)
{
	const char *slash = memchr(s, '/', len);
	size_t iplen = slash ? (size_t)(slash - s) : len;
	unsigned long cidr;
	unsigned max;

	if (!parse_ip(s, iplen, &pf->ip))
		return false;
	max = pf->ip.family == AF_INET ? 32 : 128;
	if (!slash) {
		pf->cidr = (uint8_t)max;
		return true;
	}
	if (!parse_uint(slash + 1, len - iplen - 1, max, &cidr))
		return false;
	pf->cidr = (uint8_t)cidr;
	return true;
}

static bool valid_hostname(const char *s, size_t len)
{
	if (!len || len > PROXY_HOST_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '.' || c == '_'))
			return false;
	}
	return true;
}

bool proxy_parse_hostport(const char *s, size_t len, struct proxy_hostport *out)
{
	const char *host, *port;
	size_t hlen, plen;
	unsigned long pnum;

	memset(out, 0, sizeof(*out));
	if (len && s[0] == '[') {
		const char *close = memchr(s, ']', len);

		if (!close || close + 1 >= s + len || close[1] != ':')
			return false;
		host = s + 1;
		hlen = (size_t)(close - host);
		port = close + 2;
		if (!parse_ip(host, hlen, &out->ip) || out->ip.family != AF_INET6)
			return false;
		out->is_ip = true;
	} else {
		const char *colon = len ? memrchr(s, ':', len) : NULL;

		if (!colon)
			return false;
		host = s;
		hlen = (size_t)(colon - s);
		port = colon + 1;
		if (memchr(host, ':', hlen)) /* an IPv6 literal needs its brackets */
			return false;
		if (parse_ip(host, hlen, &out->ip))
			out->is_ip = true;
		else if (!valid_hostname(host, hlen))
			return false;
	}
	plen = (size_t)(s + len - port);
	if (!parse_uint(port, plen, 65535, &pnum) || pnum == 0) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	memcpy(out->host, host, hlen);
	out->host[hlen] = '\0';
	out->port = (uint16_t)pnum;
	return true;
}

/* A listener's address: numeric, or "localhost"; a bare port means
 * loopback, so nothing is exposed by accident. */
static bool parse_bind(const char *s, size_t len, struct proxy_hostport *out)
{
	unsigned long port;
	bool bare = parse_uint(s, len, 65535, &port);

	if (!bare && len > 1 && s[0] == ':')
		bare = parse_uint(s + 1, len - 1, 65535, &port);
	if (bare) {
		memset(out, 0, sizeof(*out));
		if (!port)
			return false;
		strcpy(out->host, "127.0.0.1");
		out->port = (uint16_t)port;
	} else {
		if (!proxy_parse_hostport(s, len, out))
			return false;
		if (out->is_ip)
			return true;
		if (strcasecmp(out->host, "localhost"))
			return false;
		strcpy(out->host, "127.0.0.1");
	}
	out->is_ip = true;
	out->ip.family = AF_INET;
	out->ip.in4.s_addr = htonl(INADDR_LOOPBACK);
	return true;
}

bool proxy_ip_is_loopback(const struct proxy_ip *ip)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (ip->family == AF_INET)
		return (ntohl(ip->in4.s_addr) >> 24) == 127;
	if (ip->family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_LOOPBACK(&ip->in6))
		return true;
	return !memcmp(ip->in6.s6_addr, mapped, sizeof(mapped)) && ip->in6.s6_addr[12] == 127;
}

static int shown(size_t len)
{
	return len > 64 ? 64 : (int)len;
}

static struct proxy_peer *cur_peer(struct parser *p)
{
	return &p->conf->peers[p->conf->n_peers - 1];
}

static struct proxy_listener *cur_listener(struct parser *p)
{
	return &p->conf->listeners[p->conf->n_listeners - 1];
}

static const char *ip_text(const struct proxy_ip *ip, char buf[INET6_ADDRSTRLEN])
{
	if (!inet_ntop(ip->family, ip->family == AF_INET ? (const void *)&ip->in4 : &ip->in6, buf,
		       INET6_ADDRSTRLEN))
		strcpy(buf, "?");
	return buf;
}

static bool same_ip(const struct proxy_ip *a, const struct proxy_ip *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->in4.s_addr == b->in4.s_addr;
	return !memcmp(&a->in6, &b->in6, sizeof(a->in6));
}

static bool is_udp(enum proxy_kind kind)
{
	return kind == PROXY_UDP;
}

/* The checks that need the whole section: required keys, the rule on
 * unauthenticated proxies, addresses used twice. */
static int check_listener(struct parser *p, const struct proxy_listener *l)
{
	const char *name = sections[p->sec].name;
	unsigned at = l->line;
	char a[INET6_ADDRSTRLEN];

	if (l->kind == PROXY_TCP_SERVER) {
		if (!(p->seen & 1u << K_LISTEN_PORT))
			return fail_at(p, at, "[%s] has no ListenPort", name);
	} else if (!(p->seen & 1u << K_BIND_ADDRESS)) {
		return fail_at(p, at, "[%s] has no BindAddress", name);
	}
	if ((sections[p->sec].keys & 1u << K_TARGET) && !(p->seen & 1u << K_TARGET))
		return fail_at(p, at, "[%s] has no Target", name);
	if ((p->seen & 1u << K_USERNAME) && !(p->seen & 1u << K_PASSWORD))
		return fail_at(p, at, "[%s] has a Username but no Password", name);
	if ((p->seen & 1u << K_PASSWORD) && !(p->seen & 1u << K_USERNAME))
		return fail_at(p, at, "[%s] has a Password but no Username", name);
	if (l->kind == PROXY_HTTP && l->has_auth && strchr(l->username, ':'))
		return fail_at(p, at,
			       "[http] Username contains ':', which Basic authentication"
			       " cannot carry");
	if ((l->kind == PROXY_SOCKS5 || l->kind == PROXY_HTTP) && !l->has_auth &&
	    !l->allow_unauthenticated && !proxy_ip_is_loopback(&l->bind.ip))
		return fail_at(p, at,
			       "[%s] on %s port %u is not loopback and has no Username and Password"
			       " (set AllowUnauthenticated = true to allow it)",
			       name, ip_text(&l->bind.ip, a), l->bind.port);
	for (size_t i = 0; i + 1 < p->conf->n_listeners; i++) {
		const struct proxy_listener *o = &p->conf->listeners[i];

		if (l->kind == PROXY_TCP_SERVER) {
			if (o->kind == PROXY_TCP_SERVER && o->listen_port == l->listen_port)
				return fail_at(p, at, "ListenPort %u is also used on line %u",
					       l->listen_port, o->line);
			continue;
		}
		if (o->kind == PROXY_TCP_SERVER || is_udp(o->kind) != is_udp(l->kind))
			continue;
		if (o->bind.port == l->bind.port && same_ip(&o->bind.ip, &l->bind.ip))
			return fail_at(p, at, "BindAddress %s port %u is also used on line %u",
				       ip_text(&l->bind.ip, a), l->bind.port, o->line);
	}
	return 0;
}

static int close_section(struct parser *p)
{
	switch (p->sec) {
	case S_TOP:
		return 0;
	case S_INTERFACE:
		if (!(p->seen & 1u << K_PRIVATE_KEY))
			return fail_at(p, p->sec_line, "[Interface] has no PrivateKey");
		if (!p->conf->iface.n_addrs)
			return fail_at(p, p->sec_line, "[Interface] has no Address");
		return 0;
	case S_PEER: {
		const struct proxy_peer *peer = cur_peer(p);

		if (!(p->seen & 1u << K_PUBLIC_KEY))
			return fail_at(p, p->sec_line, "[Peer] has no PublicKey");
		for (size_t i = 0; i + 1 < p->conf->n_peers; i++)
			if (!memcmp(p->conf->peers[i].public_key, peer->public_key, PROXY_KEY_LEN))
				return fail_at(
				    p, p->sec_line,
				    "[Peer] has the same PublicKey as the one on line %u",
				    p->conf->peers[i].line);
		return 0;
	}
	default:
		return check_listener(p, cur_listener(p));
	}
}

static int open_section(struct parser *p, const char *name, size_t len)
{
	struct proxy_conf *c = p->conf;
	enum section sec = S_COUNT;

	for (int i = S_INTERFACE; i < S_COUNT; i++)
		if (word_is(name, len, sections[i].name))
			sec = (enum section)i;
	if (sec == S_COUNT)
		return fail(p, "unknown section [%.*s]", shown(len), name);
	if (close_section(p))
		return -1;
	if (p->included && sec != S_INTERFACE && sec != S_PEER)
		return fail(p, "[%s] is not allowed in a WGConfig file", sections[sec].name);
	if (!p->included && p->wg_file && (sec == S_INTERFACE || sec == S_PEER))
		return fail(p, "[%s] belongs in the WGConfig file, not here", sections[sec].name);

	if (sec == S_INTERFACE) {
		if (p->iface_line)
			return fail(p, "[Interface] given twice (first on line %u)", p->iface_line);
		p->iface_line = p->line;
		c->iface.mtu = PROXY_DEFAULT_MTU;
	} else if (sec == S_PEER) {
		struct proxy_peer *peers;

		if (c->n_peers == PROXY_CONF_MAX_PEERS)
			return fail(p, "too many [Peer] sections (at most %d)",
				    PROXY_CONF_MAX_PEERS);
		peers = realloc(c->peers, (c->n_peers + 1) * sizeof(*peers));
		if (!peers)
			return fail(p, "out of memory");
		c->peers = peers;
		memset(&peers[c->n_peers], 0, sizeof(*peers));
		peers[c->n_peers++].line = p->line;
	} else {
		static const enum proxy_kind kinds[S_COUNT] = {
		    [S_SOCKS5] = PROXY_SOCKS5,
		    [S_HTTP] = PROXY_HTTP,
		    [S_TCP_CLIENT] = PROXY_TCP_CLIENT,
		    [S_TCP_SERVER] = PROXY_TCP_SERVER,
		    [S_UDP] = PROXY_UDP,
		};
		struct proxy_listener *ls;

		if (c->n_listeners == PROXY_CONF_MAX_LISTENERS)
			return fail(p, "too many proxy and tunnel sections (at most %d)",
				    PROXY_CONF_MAX_LISTENERS);
		ls = realloc(c->listeners, (c->n_listeners + 1) * sizeof(*ls));
		if (!ls)
			return fail(p, "out of memory");
		c->listeners = ls;
		memset(&ls[c->n_listeners], 0, sizeof(*ls));
		ls[c->n_listeners].kind = kinds[sec];
		ls[c->n_listeners++].line = p->line;
	}
	p->sec = sec;
	p->sec_line = p->line;
	p->seen = 0;
	p->any_section = true;
	return 0;
}

static enum key_id find_key(const char *s, size_t len)
{
	for (int k = 0; k < K_COUNT; k++)
		if (word_is(s, len, key_names[k]))
			return (enum key_id)k;
	for (size_t i = 0; i < sizeof(wgquick_keys) / sizeof(wgquick_keys[0]); i++)
		if (word_is(s, len, wgquick_keys[i]))
			return K_WGQUICK_ONLY;
	return K_UNKNOWN;
}

/* Calls item() on each comma-separated, trimmed element of a list value. */
static int each_item(struct parser *p, const char *v, size_t len,
		     int (*item)(struct parser *p, const char *s, size_t len))
{
	while (true) {
		const char *comma = memchr(v, ',', len);
		size_t n = comma ? (size_t)(comma - v) : len;
		const char *s = v;
		size_t sl = n;

		trim(&s, &sl);
		if (item(p, s, sl))
			return -1;
		if (!comma)
			return 0;
		v = comma + 1;
		len -= n + 1;
	}
}

static int address_item(struct parser *p, const char *s, size_t len)
{
	struct proxy_interface *ifc = &p->conf->iface;

	if (ifc->n_addrs == PROXY_CONF_MAX_ADDRS)
		return fail(p, "too many Address entries (at most %d)", PROXY_CONF_MAX_ADDRS);
	if (!parse_prefix(s, len, &ifc->addrs[ifc->n_addrs]))
		return fail(p, "bad Address '%.*s' (an IP address, /prefix optional)", shown(len),
			    s);
	ifc->n_addrs++;
	return 0;
}

static int dns_item(struct parser *p, const char *s, size_t len)
{
	struct proxy_interface *ifc = &p->conf->iface;

	if (ifc->n_dns == PROXY_CONF_MAX_DNS)
		return fail(p, "too many DNS entries (at most %d)", PROXY_CONF_MAX_DNS);
	if (!parse_ip(s, len, &ifc->dns[ifc->n_dns]))
		return fail(p, "bad DNS '%.*s' (an IP address)", shown(len), s);
	ifc->n_dns++;
	return 0;
}

static int allowed_item(struct parser *p, const char *s, size_t len)
{
	struct proxy_peer *peer = cur_peer(p);
	struct proxy_prefix pf;

	if (!parse_prefix(s, len, &pf))
		return fail(p, "bad AllowedIPs '%.*s' (IP/prefix)", shown(len), s);
	if (peer->n_allowed == PROXY_CONF_MAX_ALLOWED)
		return fail(p, "too many AllowedIPs for one peer (at most %d)",
			    PROXY_CONF_MAX_ALLOWED);
	/* grows by doubling: a wg-quick file may list many prefixes */
	if (!(peer->n_allowed & (peer->n_allowed - 1))) {
		size_t cap = peer->n_allowed ? peer->n_allowed * 2 : 4;
		struct proxy_prefix *a = realloc(peer->allowed, cap * sizeof(*a));

		if (!a)
			return fail(p, "out of memory");
		peer->allowed = a;
	}
	peer->allowed[peer->n_allowed++] = pf;
	return 0;
}

static int include_wgconfig(struct parser *p, const char *v, size_t len)
{
	const char *slash = strrchr(p->file, '/');
	size_t dir = v[0] == '/' || !slash ? 0 : (size_t)(slash - p->file) + 1;
	char *text = NULL;
	size_t tlen = 0;
	int rc;

	if (p->included)
		return fail(p, "WGConfig inside a WGConfig file");
	if (!p->read)
		return fail(p, "WGConfig is not supported here");
	p->wg_file = malloc(dir + len + 1);
	if (!p->wg_file)
		return fail(p, "out of memory");
	memcpy(p->wg_file, p->file, dir);
	memcpy(p->wg_file + dir, v, len);
	p->wg_file[dir + len] = '\0';
	rc = p->read(p->ctx, p->wg_file, &text, &tlen);
	if (rc < 0)
		return fail(p, "cannot read WGConfig %s: %s", p->wg_file, strerror(-rc));

	const char *file = p->file;
	unsigned line = p->line;
	uint32_t seen = p->seen;

	p->file = p->wg_file;
	p->included = true;
	rc = parse_text(p, text, tlen);
	p->included = false;
	zinc_memzero(text, tlen);
	free(text);
	if (rc)
		return -1; /* err names the WGConfig file */
	p->file = file;
	p->line = line;
	p->sec = S_TOP;
	p->seen = seen;
	return 0;
}

static bool parse_bool(const char *v, size_t len, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};

	for (int i = 0; i < 4; i++) {
		if (word_is(v, len, yes[i]))
			return *out = true;
		if (word_is(v, len, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

static int set_key_value(struct parser *p, enum key_id k, const char *v, size_t len)
{
	struct proxy_conf *c = p->conf;
	unsigned long n;

	switch (k) {
	case K_PRIVATE_KEY:
		if (!base64_decode_key(v, len, c->iface.private_key))
			return fail(p, "bad PrivateKey (not a base64 32-byte key)");
		return 0;
	case K_ADDRESS:
		return each_item(p, v, len, address_item);
	case K_DNS:
		return each_item(p, v, len, dns_item);
	case K_MTU:
		if (!parse_uint(v, len, PROXY_MAX_MTU, &n) || n < PROXY_MIN_MTU)
			return fail(p, "bad MTU '%.*s' (%d..%d)", shown(len), v, PROXY_MIN_MTU,
				    PROXY_MAX_MTU);
		c->iface.mtu = (uint16_t)n;
		return 0;
	case K_LISTEN_PORT:
		if (p->sec == S_INTERFACE) {
			if (!parse_uint(v, len, 65535, &n))
				return fail(p, "bad ListenPort '%.*s' (0..65535)", shown(len), v);
			c->iface.listen_port = (uint16_t)n;
			return 0;
		}
		if (!parse_uint(v, len, 65535, &n) || !n)
			return fail(p, "bad ListenPort '%.*s' (1..65535)", shown(len), v);
		cur_listener(p)->listen_port = (uint16_t)n;
		return 0;
	case K_PUBLIC_KEY:
		if (!base64_decode_key(v, len, cur_peer(p)->public_key))
			return fail(p, "bad PublicKey (not a base64 32-byte key)");
		return 0;
	case K_PRESHARED_KEY:
		if (!base64_decode_key(v, len, cur_peer(p)->preshared_key))
			return fail(p, "bad PresharedKey (not a base64 32-byte key)");
		cur_peer(p)->has_preshared_key = true;
		return 0;
	case K_ENDPOINT:
		if (!proxy_parse_hostport(v, len, &cur_peer(p)->endpoint))
			return fail(p, "bad Endpoint '%.*s' (host:port or [IPv6]:port)", shown(len),
				    v);
		cur_peer(p)->has_endpoint = true;
		return 0;
	case K_ALLOWED_IPS:
		return each_item(p, v, len, allowed_item);
	case K_KEEPALIVE:
		if (word_is(v, len, "off"))
			n = 0;
		else if (!parse_uint(v, len, 65535, &n))
			return fail(p, "bad PersistentKeepalive '%.*s' (0..65535 or off)",
				    shown(len), v);
		cur_peer(p)->keepalive = (uint16_t)n;
		return 0;
	case K_BIND_ADDRESS:
		if (!parse_bind(v, len, &cur_listener(p)->bind))
			return fail(p, "bad BindAddress '%.*s' (IP:port, [IPv6]:port or port)",
				    shown(len), v);
		return 0;
	case K_USERNAME:
	case K_PASSWORD: {
		struct proxy_listener *l = cur_listener(p);
		char *dst = k == K_USERNAME ? l->username : l->password;

		if (len > PROXY_CRED_MAX)
			return fail(p, "%s longer than %d bytes", key_names[k], PROXY_CRED_MAX);
		memcpy(dst, v, len);
		dst[len] = '\0';
		l->has_auth = (p->seen & 1u << K_USERNAME) && (p->seen & 1u << K_PASSWORD);
		return 0;
	}
	case K_TARGET:
		if (!proxy_parse_hostport(v, len, &cur_listener(p)->target))
			return fail(p, "bad Target '%.*s' (host:port or [IPv6]:port)", shown(len),
				    v);
		return 0;
	case K_INACTIVITY:
		if (!parse_uint(v, len, 2147483647ul, &n))
			return fail(p, "bad InactivityTimeout '%.*s' (seconds, 0 = never)",
				    shown(len), v);
		cur_listener(p)->inactivity_timeout = (uint32_t)n;
		return 0;
	case K_ALLOW_UNAUTH:
		if (!parse_bool(v, len, &cur_listener(p)->allow_unauthenticated))
			return fail(p, "bad AllowUnauthenticated '%.*s' (true or false)",
				    shown(len), v);
		return 0;
	case K_WGCONFIG:
		return include_wgconfig(p, v, len);
	default:
		return fail(p, "internal error: key %d", (int)k);
	}
}

static int set_key(struct parser *p, const char *key, size_t klen, const char *v, size_t len)
{
	enum key_id k = find_key(key, klen);
	const char *sec = sections[p->sec].name;

	if (k == K_WGQUICK_ONLY && p->included && p->sec == S_INTERFACE)
		return 0;
	if (k == K_WGCONFIG && p->sec != S_TOP)
		return fail(p, "WGConfig must come before the first section");
	if (k >= K_COUNT || !(sections[p->sec].keys & 1u << k)) {
		if (p->sec == S_TOP)
			return fail(p, "key %.*s outside a section", shown(klen), key);
		return fail(p, "unknown key %.*s in [%s]", shown(klen), key, sec);
	}
	if ((p->seen & 1u << k) && !(REPEATABLE & 1u << k)) {
		if (p->sec == S_TOP)
			return fail(p, "%s given twice", key_names[k]);
		return fail(p, "%s given twice in [%s]", key_names[k], sec);
	}
	p->seen |= 1u << k;
	if (!len)
		return fail(p, "%s has an empty value", key_names[k]);
	return set_key_value(p, k, v, len);
}

static int parse_line(struct parser *p, const char *s, size_t n)
{
	const char *eq, *v;
	size_t klen, vlen;

	trim(&s, &n);
	if (!n || s[0] == '#' || s[0] == ';')
		return 0;
	if (s[0] == '[') {
		const char *close = memchr(s, ']', n);
		const char *name = s + 1;
		size_t nlen;

		if (!close)
			return fail(p, "bad section header (no closing ']')");
		if (!blank(close + 1, (size_t)(s + n - close - 1)))
			return fail(p, "text after the section header");
		nlen = (size_t)(close - name);
		trim(&name, &nlen);
		return open_section(p, name, nlen);
	}
	eq = memchr(s, '=', n);
	klen = eq ? (size_t)(eq - s) : 0;
	trim(&s, &klen);
	if (!eq || !klen)
		return fail(p, "expected Key = Value");
	v = eq + 1;
	vlen = n - (size_t)(v - s);
	trim(&v, &vlen);
	if (vlen && v[0] == '"') {
		const char *close = memchr(v + 1, '"', vlen - 1);

		if (!close)
			return fail(p, "unterminated quoted value");
		if (!blank(close + 1, (size_t)(v + vlen - close - 1)))
			return fail(p, "text after the quoted value");
		return set_key(p, s, klen, v + 1, (size_t)(close - v - 1));
	}
	vlen = uncomment(v, vlen);
	trim(&v, &vlen);
	return set_key(p, s, klen, v, vlen);
}

static unsigned count_lines(const char *text, size_t len)
{
	unsigned lines = 0;

	for (const char *s = text, *end = text + len; s < end; lines++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		s = nl ? nl + 1 : end;
	}
	return lines ? lines : 1;
}

static int parse_text(struct parser *p, const char *text, size_t len)
{
	size_t pos = 0;

	p->line = 0;
	p->sec = S_TOP;
	p->seen = 0;
	if (len > PROXY_CONF_MAX_BYTES) {
		p->line = count_lines(text, len);
		return fail(p, "file larger than %d bytes", PROXY_CONF_MAX_BYTES);
	}
	while (pos < len) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;

		pos += n + 1;
		p->line++;
		if (n > PROXY_CONF_MAX_LINE)
			return fail(p, "line longer than %d bytes", PROXY_CONF_MAX_LINE);
		if (memchr(s, '\0', n))
			return fail(p, "NUL byte in the line");
		if (parse_line(p, s, n))
			return -1;
	}
	if (close_section(p))
		return -1;
	if (!p->line)
		p->line = 1;
	if (p->included || !p->wg_file)
		p->wg_lines = p->line;
	return 0;
}

/* Checks across sections, once both files are read. */
static int check_conf(struct parser *p, const char *file)
{
	struct proxy_conf *c = p->conf;
	unsigned at = p->wg_lines;

	p->file = p->wg_file ? p->wg_file : file;
	if (!p->iface_line)
		return fail_at(p, at, "no [Interface] section");
	if (!c->n_peers)
		return fail_at(p, at, "no [Peer] section");
	if (c->n_peers == 1 && !c->peers[0].n_allowed) {
		struct proxy_peer *peer = &c->peers[0];

		peer->allowed = calloc(2, sizeof(*peer->allowed));
		if (!peer->allowed)
			return fail_at(p, at, "out of memory");
		peer->allowed[0].ip.family = AF_INET;
		peer->allowed[1].ip.family = AF_INET6;
		peer->n_allowed = 2;
	}
	for (size_t i = 0; i < c->n_peers; i++)
		if (!c->peers[i].n_allowed)
			return fail_at(
			    p, c->peers[i].line,
			    "[Peer] has no AllowedIPs (needed when there is more than one peer)");
	return 0;
}

int proxy_conf_parse(const char *file, const char *text, size_t len, proxy_conf_read_fn read,
		     void *ctx, struct proxy_conf *out, char *err, size_t errlen)
{
	struct parser p = {
	    .conf = out,
	    .read = read,
	    .ctx = ctx,
	    .err = err,
	    .errlen = errlen,
	    .file = file,
	};
	int rc;

	memset(out, 0, sizeof(*out));
	if (errlen)
		err[0] = '\0';
	rc = parse_text(&p, text, len);
	if (!rc)
		rc = check_conf(&p, file);
	free(p.wg_file);
	if (rc)
		proxy_conf_free(out);
	return rc;
}

void proxy_conf_free(struct proxy_conf *conf)
{
	for (size_t i = 0; i < conf->n_peers; i++) {
		free(conf->peers[i].allowed);
		zinc_memzero(&conf->peers[i], sizeof(conf->peers[i]));
	}
	free(conf->peers);
	if (conf->listeners)
		zinc_memzero(conf->listeners, conf->n_listeners * sizeof(*conf->listeners));
	free(conf->listeners);
	zinc_memzero(conf, sizeof(*conf));
}
