// SPDX-License-Identifier: MIT
/* wireproxy's configuration format, parsed without I/O (see proxy_conf.h). */
#include "proxy_conf.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zinc/memzero.h>

#include "../daemon/base64.h"

_Static_assert((int)PROXY_KEY_LEN == (int)WG_PUBLIC_KEY_LEN, "a proxy key is a WireGuard key");

enum { S_TOP, S_INTERFACE, S_PEER }; /* sections[] the parser knows by place */

struct parser;

/* A key of a section: how its value is read into the field at off in the
 * section's struct (a list: each element by item()). */
struct key {
	const char *name;
	int (*parse)(struct parser *p, const struct key *k, void *field, const char *v, size_t len);
	size_t off;
	int (*item)(struct parser *p, const struct key *k, const char *s, size_t len);
	uint64_t min, max; /* a number's range, a list's length */
	const char *zero;  /* a number's other way to say 0 */
	size_t count;	   /* ip_item: the list's length is at this offset */
	const char *hint;  /* what a good value is, after "bad KEY 'VALUE' " */
	bool required;	   /* said missing in table order */
	size_t given;	   /* not 0: a bool at this offset says it was given */
};

/* A section: its keys (at most 32, a bit each in parser.seen; the table
 * ends with an empty name), open() makes the struct they fill (parser.cur),
 * close() checks it once whole. */
struct section {
	const char *name;
	const struct key *keys;
	int (*open)(struct parser *p); /* p->sec is the section */
	int (*close)(struct parser *p);
	enum proxy_kind kind; /* of a listener's section */
	bool wg;	      /* [Interface] and [Peer]: the WGConfig file's, if any */
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
	const struct section *sec;
	void *cur; /* the struct the section's keys fill */
	unsigned sec_line;
	uint32_t seen;	     /* keys given in the current section */
	unsigned iface_line; /* 0: no [Interface] yet */
};

/* "FILE:LINE: message" at the given line. Always returns -1. */
static __attribute__((format(printf, 3, 4))) int fail_at(struct parser *p, unsigned line,
							 const char *fmt, ...)
{
	/* a long path keeps its end, and leaves room for LINE and the message */
	size_t keep = p->errlen >= 64 ? p->errlen / 2 : p->errlen, flen = strlen(p->file);
	const char *file = flen > keep ? p->file + flen - keep : p->file;
	va_list ap;
	int n;

	if (!p->errlen)
		return -1;
	n = snprintf(p->err, p->errlen, "%s%s:%u: ", file == p->file ? "" : "...", file, line);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	/* quoted values go to a terminal: no control characters */
	for (char *c = p->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}

/* The same at the line being read. */
#define fail(p, ...) fail_at(p, (p)->line, __VA_ARGS__)

static int parse_text(struct parser *p, const char *text, size_t len);

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

void proxy_trim(const char **s, size_t *len)
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
	proxy_trim(&s, &len);
	return len == 0;
}

bool proxy_word_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !strncasecmp(s, word, len);
}

static bool valid_hostname(const char *s, size_t len)
{
	if (!len || len > PROXY_HOST_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && (!s[i] || !strchr("-._", s[i])))
			return false;
	return true;
}

bool proxy_parse_hostport(const char *s, size_t len, struct proxy_hostport *out)
{
	const char *host, *port;
	size_t hlen, plen;
	uint64_t pnum;

	memset(out, 0, sizeof(*out));
	if (len && s[0] == '[') {
		const char *close = memchr(s, ']', len);

		if (!close || close + 1 >= s + len || close[1] != ':')
			return false;
		host = s + 1;
		hlen = (size_t)(close - host);
		port = close + 2;
		if (!uapi_parse_ip(host, hlen, &out->ip.family, &out->ip.in4) ||
		    out->ip.family != AF_INET6)
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
		if (uapi_parse_ip(host, hlen, &out->ip.family, &out->ip.in4))
			out->is_ip = true;
		else if (!valid_hostname(host, hlen))
			return false;
	}
	plen = (size_t)(s + len - port);
	if (!uapi_parse_uint(port, plen, UINT16_MAX, &pnum) || pnum == 0) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	memcpy(out->host, host, hlen);
	out->host[hlen] = '\0';
	out->port = (uint16_t)pnum;
	return true;
}

bool proxy_ip_is_loopback(const struct proxy_ip *ip)
{
	if (ip->family == AF_INET)
		return (ntohl(ip->in4.s_addr) >> 24) == 127;
	if (ip->family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_LOOPBACK(&ip->in6))
		return true;
	return IN6_IS_ADDR_V4MAPPED(&ip->in6) && ip->in6.s6_addr[12] == 127;
}

static int shown(size_t len)
{
	return len > 64 ? 64 : (int)len;
}

/* Address, DNS, CheckAlive, AllowedIPs: comma-separated, repeatable;
 * k->item() takes each trimmed element. */
static int parse_list(struct parser *p, const struct key *k, void *field, const char *v, size_t len)
{
	(void)field;
	while (true) {
		const char *comma = memchr(v, ',', len);
		size_t n = comma ? (size_t)(comma - v) : len;
		const char *s = v;
		size_t sl = n;

		proxy_trim(&s, &sl);
		if (k->item(p, k, s, sl))
			return -1;
		if (!comma)
			return 0;
		v = comma + 1;
		len -= n + 1;
	}
}

static int address_item(struct parser *p, const struct key *k, const char *s, size_t len)
{
	struct proxy_interface *ifc = &p->conf->iface;
	struct proxy_prefix *a = &ifc->addrs[ifc->n_addrs];

	(void)k;
	if (ifc->n_addrs == PROXY_CONF_MAX_ADDRS)
		return fail(p, "too many Address entries (at most %d)", PROXY_CONF_MAX_ADDRS);
	if (!uapi_parse_prefix(s, len, true, &a->ip.family, &a->ip.in4, &a->cidr))
		return fail(p, "bad Address '%.*s' (an IP address, /prefix optional)", shown(len),
			    s);
	ifc->n_addrs++;
	return 0;
}

/* An IP address more in the array at k->off (its length at k->count). */
static int ip_item(struct parser *p, const struct key *k, const char *s, size_t len)
{
	struct proxy_ip *arr = (struct proxy_ip *)((char *)p->cur + k->off);
	size_t *n = (size_t *)((char *)p->cur + k->count);

	if (*n == k->max)
		return fail(p, "too many %s entries (at most %zu)", k->name, (size_t)k->max);
	if (!uapi_parse_ip(s, len, &arr[*n].family, &arr[*n].in4))
		return fail(p, "bad %s '%.*s' (an IP address)", k->name, shown(len), s);
	++*n;
	return 0;
}

static int allowed_item(struct parser *p, const struct key *k, const char *s, size_t len)
{
	struct uapi_peer *peer = &((struct proxy_peer *)p->cur)->set;
	struct uapi_allowed_ip a = {0};
	sa_family_t family;

	(void)k;
	if (!uapi_parse_prefix(s, len, true, &family, a.addr, &a.cidr))
		return fail(p, "bad AllowedIPs '%.*s' (IP/prefix)", shown(len), s);
	if (peer->n_allowed_ips == PROXY_CONF_MAX_ALLOWED)
		return fail(p, "too many AllowedIPs for one peer (at most %d)",
			    PROXY_CONF_MAX_ALLOWED);
	/* grows by doubling: a wg-quick file may list many prefixes */
	if (peer->n_allowed_ips == peer->cap_allowed_ips) {
		size_t cap = peer->cap_allowed_ips ? peer->cap_allowed_ips * 2 : 4;
		struct uapi_allowed_ip *all = realloc(peer->allowed_ips, cap * sizeof(*all));

		if (!all)
			return fail(p, "out of memory");
		peer->allowed_ips = all;
		peer->cap_allowed_ips = cap;
	}
	a.family = (uint8_t)family;
	peer->allowed_ips[peer->n_allowed_ips++] = a;
	return 0;
}

static int include_wgconfig(struct parser *p, const struct key *k, void *field, const char *v,
			    size_t len)
{
	const char *slash = strrchr(p->file, '/');
	size_t dir = v[0] == '/' || !slash ? 0 : (size_t)(slash - p->file) + 1;
	char *text = NULL;
	size_t tlen = 0;
	int rc;

	(void)k;
	(void)field;
	if (p->included)
		return fail(p, "WGConfig inside a WGConfig file");
	if (!p->read)
		return fail(p, "WGConfig is not supported here");
	if (asprintf(&p->wg_file, "%.*s%.*s", (int)dir, p->file, (int)len, v) < 0) {
		p->wg_file = NULL;
		return fail(p, "out of memory");
	}
	rc = p->read(p->ctx, p->wg_file, &text, &tlen);
	if (rc < 0)
		return fail(p, "cannot read WGConfig %s: %s", p->wg_file, strerror(-rc));

	const char *file = p->file;
	const struct section *sec = p->sec;
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
	p->sec = sec;
	p->cur = p->conf;
	p->seen = seen;
	return 0;
}

/* "bad KEY 'VALUE' (what it should be)". Always returns -1. */
static int fail_value(struct parser *p, const struct key *k, const char *v, size_t len)
{
	if (k->hint)
		return fail(p, "bad %s '%.*s' %s", k->name, shown(len), v, k->hint);
	return fail(p, "bad %s '%.*s' (%llu..%llu)", k->name, shown(len), v,
		    (unsigned long long)k->min, (unsigned long long)k->max);
}

/* The value is not shown: it is a secret, or next to one. */
static int parse_key(struct parser *p, const struct key *k, void *field, const char *v, size_t len)
{
	if (!base64_decode_key(v, len, field))
		return fail(p, "bad %s (not a base64 32-byte key)", k->name);
	return 0;
}

/* A 16-bit field, or a 32-bit one when max says it needs one. */
static int parse_number(struct parser *p, const struct key *k, void *field, const char *v,
			size_t len)
{
	uint64_t n = 0;

	if (!(k->zero && proxy_word_is(v, len, k->zero)) &&
	    (!uapi_parse_uint(v, len, k->max, &n) || n < k->min))
		return fail_value(p, k, v, len);
	if (k->max > UINT16_MAX)
		*(uint32_t *)field = (uint32_t)n;
	else
		*(uint16_t *)field = (uint16_t)n;
	return 0;
}

/* Jc ... I5, as the wireproxy forks with AmneziaWG spell them. */
static int parse_obfs(struct parser *p, const struct key *k, void *field, const char *v, size_t len)
{
	struct wg_obfs_config **c = field;
	const char *why = NULL;

	if (!*c && (*c = malloc(sizeof(**c))))
		wg_obfs_config_init(*c);
	if (!*c)
		return fail(p, "out of memory");
	if (wg_obfs_set_key(*c, k->name, strlen(k->name), v, len, &why) <= 0)
		return fail(p, "bad %s '%.*s': %s", k->name, shown(len), v, why);
	return 0;
}

static int parse_target(struct parser *p, const struct key *k, void *field, const char *v,
			size_t len)
{
	return proxy_parse_hostport(v, len, field) ? 0 : fail_value(p, k, v, len);
}

/* A listener's address: numeric, or "localhost"; a bare port means
 * loopback, so nothing is exposed by accident. */
static int parse_address(struct parser *p, const struct key *k, void *field, const char *v,
			 size_t len)
{
	struct proxy_hostport *out = field;
	uint64_t port;
	bool bare = uapi_parse_uint(v, len, UINT16_MAX, &port);

	if (!bare && len > 1 && v[0] == ':')
		bare = uapi_parse_uint(v + 1, len - 1, UINT16_MAX, &port);
	if (bare) {
		memset(out, 0, sizeof(*out));
		if (!port)
			return fail_value(p, k, v, len);
		out->port = (uint16_t)port;
	} else if (!proxy_parse_hostport(v, len, out)) {
		return fail_value(p, k, v, len);
	} else if (out->is_ip) {
		return 0;
	} else if (strcasecmp(out->host, "localhost")) {
		return fail_value(p, k, v, len);
	}
	strcpy(out->host, "127.0.0.1");
	out->is_ip = true;
	out->ip.family = AF_INET;
	out->ip.in4.s_addr = htonl(INADDR_LOOPBACK);
	return 0;
}

static int parse_cred(struct parser *p, const struct key *k, void *field, const char *v, size_t len)
{
	if (len > PROXY_CRED_MAX)
		return fail(p, "%s longer than %d bytes", k->name, PROXY_CRED_MAX);
	memcpy(field, v, len);
	((char *)field)[len] = '\0';
	return 0;
}

static int parse_bool(struct parser *p, const struct key *k, void *field, const char *v, size_t len)
{
	static const char *const words[] = {"false", "true", "no", "yes", "off", "on", "0", "1"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (proxy_word_is(v, len, words[i])) {
			*(bool *)field = i % 2; /* the odd ones say yes */
			return 0;
		}
	}
	return fail_value(p, k, v, len);
}

bool proxy_ip_equal(const struct proxy_ip *a, const struct proxy_ip *b)
{
	return a->family == b->family &&
	       !memcmp(&a->in6, &b->in6, a->family == AF_INET6 ? sizeof(a->in6) : sizeof(a->in4));
}

/* A zeroed element more at the end of arr (*n of size, at most max), or
 * NULL after a failure message. Not realloc: peers hold keys and listeners
 * passwords, so the old copy is wiped before it is freed. */
static void *grow_one(struct parser *p, void *arr, size_t *n, size_t size, size_t max,
		      const char *what)
{
	void *a = *n == max ? NULL : calloc(*n + 1, size);

	if (!a) {
		if (*n == max)
			fail(p, "too many %s (at most %zu)", what, max);
		else
			fail(p, "out of memory");
		return NULL;
	}
	if (arr) {
		memcpy(a, arr, *n * size);
		zinc_memzero(arr, *n * size);
		free(arr);
	}
	p->cur = (char *)a + (*n)++ * size;
	return a;
}

static int open_interface(struct parser *p)
{
	if (p->iface_line)
		return fail(p, "[Interface] given twice (first on line %u)", p->iface_line);
	p->iface_line = p->line;
	p->conf->iface.mtu = PROXY_DEFAULT_MTU;
	p->conf->iface.check_alive_interval = PROXY_CHECK_ALIVE_INTERVAL;
	p->cur = &p->conf->iface;
	return 0;
}

static int open_peer(struct parser *p)
{
	struct proxy_conf *c = p->conf;
	struct proxy_peer *a =
	    grow_one(p, c->peers, &c->n_peers, sizeof(*a), PROXY_CONF_MAX_PEERS, "[Peer] sections");

	if (!a)
		return -1;
	c->peers = a;
	a[c->n_peers - 1].line = p->line;
	return 0;
}

static int close_peer(struct parser *p)
{
	const struct proxy_peer *peer = p->cur;

	for (size_t i = 0; i + 1 < p->conf->n_peers; i++)
		if (!memcmp(p->conf->peers[i].set.public_key, peer->set.public_key, PROXY_KEY_LEN))
			return fail_at(p, p->sec_line,
				       "[Peer] has the same PublicKey as the one on line %u",
				       p->conf->peers[i].line);
	return 0;
}

static int open_listener(struct parser *p)
{
	struct proxy_conf *c = p->conf;
	struct proxy_listener *a = grow_one(p, c->listeners, &c->n_listeners, sizeof(*a),
					    PROXY_CONF_MAX_LISTENERS, "proxy and tunnel sections");

	if (!a)
		return -1;
	c->listeners = a;
	a[c->n_listeners - 1].kind = p->sec->kind;
	a[c->n_listeners - 1].section = p->sec->name;
	a[c->n_listeners - 1].line = p->line;
	return 0;
}

/* The checks that need the whole listener section: credentials (an empty
 * value is refused, so a set one is given), the rule on unauthenticated
 * proxies, addresses used twice. */
static int check_listener(struct parser *p)
{
	struct proxy_listener *l = p->cur;
	const char *name = p->sec->name;
	unsigned at = l->line;
	char a[INET6_ADDRSTRLEN];
	bool user = l->username[0], pass = l->password[0];

	l->has_auth = user && pass;
	if (user != pass)
		return fail_at(p, at, "[%s] has a %s but no %s", name,
			       user ? "Username" : "Password", user ? "Password" : "Username");
	if (l->kind == PROXY_HTTP && l->has_auth && strchr(l->username, ':'))
		return fail_at(p, at,
			       "[http] Username contains ':', which Basic authentication"
			       " cannot carry");
	if ((l->kind == PROXY_SOCKS5 || l->kind == PROXY_HTTP) && !l->has_auth &&
	    !l->allow_unauthenticated && !proxy_ip_is_loopback(&l->bind.ip))
		return fail_at(p, at,
			       "[%s] on %s port %u is not loopback and has no Username and Password"
			       " (set AllowUnauthenticated = true to allow it)",
			       name, uapi_format_ip(a, l->bind.ip.family, &l->bind.ip.in4),
			       l->bind.port);
	for (size_t i = 0; i + 1 < p->conf->n_listeners; i++) {
		const struct proxy_listener *o = &p->conf->listeners[i];

		if (l->kind == PROXY_STDIO && o->kind == PROXY_STDIO)
			return fail_at(p, at, "[STDIOTunnel] given twice (first on line %u)",
				       o->line);
		if (l->kind == PROXY_STDIO || o->kind == PROXY_STDIO)
			continue;
		if (l->kind == PROXY_TCP_SERVER) {
			if (o->kind == PROXY_TCP_SERVER && o->listen_port == l->listen_port)
				return fail_at(p, at, "ListenPort %u is also used on line %u",
					       l->listen_port, o->line);
			continue;
		}
		if (o->kind == PROXY_TCP_SERVER || (o->kind == PROXY_UDP) != (l->kind == PROXY_UDP))
			continue;
		if (o->bind.port == l->bind.port && proxy_ip_equal(&o->bind.ip, &l->bind.ip))
			return fail_at(p, at, "BindAddress %s port %u is also used on line %u",
				       uapi_format_ip(a, l->bind.ip.family, &l->bind.ip.in4),
				       l->bind.port, o->line);
	}
	return 0;
}

#define IFACE(m) offsetof(struct proxy_interface, m)
#define PEER(m) offsetof(struct proxy_peer, m)
#define LISTENER(m) offsetof(struct proxy_listener, m)
#define HOSTPORT_HINT "(host:port or [IPv6]:port)"
/* in the sections of listeners that bind a host socket, and of tunnels */
#define BIND_ADDRESS                                                                               \
	"BindAddress", parse_address, LISTENER(bind), .hint = "(IP:port, [IPv6]:port or port)",    \
						      .required = true
#define TARGET "Target", parse_target, LISTENER(target), .hint = HOSTPORT_HINT, .required = true

/* wg-quick's own keys, ignored in a WGConfig file's [Interface] */
static const struct key wgquick_keys[] = {
    {.name = "Table"},	  {.name = "PreUp"},	  {.name = "PostUp"}, {.name = "PreDown"},
    {.name = "PostDown"}, {.name = "SaveConfig"}, {.name = "FwMark"}, {0},
};

static const struct key top_keys[] = {{"WGConfig", .parse = include_wgconfig}, {0}};

static const struct key interface_keys[] = {
    {"PrivateKey", parse_key, IFACE(private_key), .required = true},
    {"Address", parse_list, .item = address_item, .required = true},
    {"DNS", parse_list, IFACE(dns), ip_item, .max = PROXY_CONF_MAX_DNS, .count = IFACE(n_dns)},
    {"MTU", parse_number, IFACE(mtu), .min = PROXY_MIN_MTU, .max = PROXY_MAX_MTU},
    {"ListenPort", parse_number, IFACE(listen_port), .max = UINT16_MAX},
    {"CheckAlive", parse_list, IFACE(check_alive), ip_item, .max = PROXY_CONF_MAX_CHECK_ALIVE,
     .count = IFACE(n_check_alive)},
    {"CheckAliveInterval", parse_number, IFACE(check_alive_interval), .min = 1, .max = UINT16_MAX,
     .hint = "(seconds, 1..65535)"},
#define OBFS(n)                                                                                    \
	{                                                                                          \
		n, parse_obfs, .off = IFACE(obfs)                                                  \
	}
    OBFS("Jc"),
    OBFS("Jmin"),
    OBFS("Jmax"),
    OBFS("S1"),
    OBFS("S2"),
    OBFS("S3"),
    OBFS("S4"),
    OBFS("H1"),
    OBFS("H2"),
    OBFS("H3"),
    OBFS("H4"),
    OBFS("I1"),
    OBFS("I2"),
    OBFS("I3"),
    OBFS("I4"),
    OBFS("I5"),
    {0},
};

static const struct key peer_keys[] = {
    {"PublicKey", parse_key, PEER(set.public_key), .required = true},
    {"PresharedKey", parse_key, PEER(set.preshared_key), .given = PEER(set.has_preshared_key)},
    {"Endpoint", parse_target, PEER(endpoint), .hint = HOSTPORT_HINT,
     .given = PEER(set.has_endpoint)},
    {"AllowedIPs", parse_list, .item = allowed_item},
    {"PersistentKeepalive", parse_number, PEER(set.keepalive), .max = UINT16_MAX, .zero = "off",
     .hint = "(0..65535 or off)"},
    {0},
};

static const struct key proxy_keys[] = {
    {BIND_ADDRESS},
    {"Username", parse_cred, .off = LISTENER(username)},
    {"Password", parse_cred, .off = LISTENER(password)},
    {"AllowUnauthenticated", parse_bool, LISTENER(allow_unauthenticated),
     .hint = "(true or false)"},
    {0},
};

static const struct key client_keys[] = {{BIND_ADDRESS}, {TARGET}, {0}};
static const struct key stdio_keys[] = {{TARGET}, {0}};

static const struct key server_keys[] = {
    {"ListenPort", parse_number, LISTENER(listen_port), .min = 1, .max = UINT16_MAX,
     .required = true},
    {TARGET},
    {0},
};

static const struct key udp_keys[] = {
    {BIND_ADDRESS},
    {TARGET},
    {"InactivityTimeout", parse_number, LISTENER(inactivity_timeout), .max = INT32_MAX,
     .hint = "(seconds, 0 = never)"},
    {0},
};

static const struct section sections[] = {
    [S_TOP] = {"", top_keys},
    [S_INTERFACE] = {"Interface", interface_keys, open_interface, .wg = true},
    [S_PEER] = {"Peer", peer_keys, open_peer, close_peer, .wg = true},
    {"Socks5", proxy_keys, open_listener, check_listener, PROXY_SOCKS5},
    {"http", proxy_keys, open_listener, check_listener, PROXY_HTTP},
    {"TCPClientTunnel", client_keys, open_listener, check_listener, PROXY_TCP_CLIENT},
    {"TCPServerTunnel", server_keys, open_listener, check_listener, PROXY_TCP_SERVER},
    {"STDIOTunnel", stdio_keys, open_listener, check_listener, PROXY_STDIO},
    {"UDPProxyTunnel", udp_keys, open_listener, check_listener, PROXY_UDP},
};

static int close_section(struct parser *p)
{
	const struct key *k = p->sec->keys;

	for (unsigned i = 0; k[i].name; i++)
		if (k[i].required && !(p->seen & 1u << i))
			return fail_at(p, p->sec_line, "[%s] has no %s", p->sec->name, k[i].name);
	return p->sec->close ? p->sec->close(p) : 0;
}

static int open_section(struct parser *p, const char *name, size_t len)
{
	const struct section *sec = NULL;

	for (size_t i = S_INTERFACE; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (proxy_word_is(name, len, sections[i].name))
			sec = &sections[i];
	if (!sec)
		return fail(p, "unknown section [%.*s]", shown(len), name);
	if (close_section(p))
		return -1;
	if (p->included && !sec->wg)
		return fail(p, "[%s] is not allowed in a WGConfig file", sec->name);
	if (!p->included && p->wg_file && sec->wg)
		return fail(p, "[%s] belongs in the WGConfig file, not here", sec->name);
	p->sec = sec;
	if (sec->open(p))
		return -1;
	p->sec_line = p->line;
	p->seen = 0;
	return 0;
}

static const struct key *find_key(const struct key *k, const char *s, size_t len)
{
	for (; k->name; k++)
		if (proxy_word_is(s, len, k->name))
			return k;
	return NULL;
}

static int set_key(struct parser *p, const char *key, size_t klen, const char *v, size_t len)
{
	const struct key *k = find_key(p->sec->keys, key, klen);
	const char *sec = p->sec->name;
	uint32_t bit;

	if (!k && p->included && p->sec == &sections[S_INTERFACE] &&
	    find_key(wgquick_keys, key, klen))
		return 0;
	if (!k && find_key(top_keys, key, klen))
		return fail(p, "WGConfig must come before the first section");
	if (!k && p->sec == &sections[S_TOP])
		return fail(p, "key %.*s outside a section", shown(klen), key);
	if (!k)
		return fail(p, "unknown key %.*s in [%s]", shown(klen), key, sec);
	bit = 1u << (k - p->sec->keys);
	if ((p->seen & bit) && k->parse != parse_list) {
		if (p->sec == &sections[S_TOP])
			return fail(p, "%s given twice", k->name);
		return fail(p, "%s given twice in [%s]", k->name, sec);
	}
	p->seen |= bit;
	if (!len)
		return fail(p, "%s has an empty value", k->name);
	if (k->parse(p, k, (char *)p->cur + k->off, v, len))
		return -1;
	if (k->given)
		*(bool *)((char *)p->cur + k->given) = true;
	return 0;
}

static int parse_line(struct parser *p, const char *s, size_t n)
{
	const char *eq, *v;
	size_t klen, vlen;

	proxy_trim(&s, &n);
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
		proxy_trim(&name, &nlen);
		return open_section(p, name, nlen);
	}
	eq = memchr(s, '=', n);
	klen = eq ? (size_t)(eq - s) : 0;
	proxy_trim(&s, &klen);
	if (!eq || !klen)
		return fail(p, "expected Key = Value");
	v = eq + 1;
	vlen = n - (size_t)(v - s);
	proxy_trim(&v, &vlen);
	if (vlen && v[0] == '"') {
		const char *close = memchr(v + 1, '"', vlen - 1);

		if (!close)
			return fail(p, "unterminated quoted value");
		if (!blank(close + 1, (size_t)(v + vlen - close - 1)))
			return fail(p, "text after the quoted value");
		return set_key(p, s, klen, v + 1, (size_t)(close - v - 1));
	}
	vlen = uncomment(v, vlen);
	proxy_trim(&v, &vlen);
	return set_key(p, s, klen, v, vlen);
}

static int parse_text(struct parser *p, const char *text, size_t len)
{
	size_t pos = 0;

	p->line = 0;
	p->sec = &sections[S_TOP];
	p->cur = p->conf;
	p->seen = 0;
	if (len > PROXY_CONF_MAX_BYTES) { /* said at its last line */
		for (size_t i = 0; i < len; i++)
			p->line += text[i] == '\n' || i == len - 1;
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
	p->cur = c->peers;
	if (c->n_peers == 1 && !c->peers[0].set.n_allowed_ips &&
	    (allowed_item(p, NULL, "0.0.0.0/0", 9) || allowed_item(p, NULL, "::/0", 4)))
		return -1;
	for (size_t i = 0; i < c->n_peers; i++)
		if (!c->peers[i].set.n_allowed_ips)
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

/* Wipes and frees the [Peer]s. */
static void forget_peers(struct proxy_conf *c)
{
	for (size_t i = 0; i < c->n_peers; i++) {
		free(c->peers[i].set.allowed_ips);
		zinc_memzero(&c->peers[i], sizeof(c->peers[i]));
	}
	free(c->peers);
	c->peers = NULL;
	c->n_peers = 0;
}

void proxy_conf_free(struct proxy_conf *conf)
{
	forget_peers(conf);
	free(conf->iface.obfs);
	if (conf->listeners)
		zinc_memzero(conf->listeners, conf->n_listeners * sizeof(*conf->listeners));
	free(conf->listeners);
	zinc_memzero(conf, sizeof(*conf));
}

int proxy_conf_take_set(struct proxy_conf *c, proxy_conf_resolve_fn resolve, void *ctx,
			struct uapi_set *set)
{
	int ret = 0;

	memset(set, 0, sizeof(*set));
	set->peers = calloc(c->n_peers, sizeof(*set->peers));
	if (!set->peers)
		ret = -ENOMEM;
	set->cap_peers = set->peers ? c->n_peers : 0;
	set->has_private_key = set->replace_peers = true;
	/* none given: the port zt_init bound stays (no second bind, no log) */
	set->has_listen_port = c->iface.listen_port != 0;
	memcpy(set->private_key, c->iface.private_key, PROXY_KEY_LEN);
	set->listen_port = c->iface.listen_port;
	set->obfs = c->iface.obfs; /* checked whole when applied */
	c->iface.obfs = NULL;
	for (size_t i = 0; !ret && i < c->n_peers; i++) {
		struct uapi_peer *up = &set->peers[set->n_peers++];

		*up = c->peers[i].set; /* its prefixes move too */
		c->peers[i].set.allowed_ips = NULL;
		up->has_keepalive = up->replace_allowed_ips = true;
		if (up->has_endpoint && resolve(ctx, &c->peers[i], &up->endpoint))
			ret = -1;
	}
	zinc_memzero(c->iface.private_key, sizeof(c->iface.private_key));
	forget_peers(c);
	if (ret)
		uapi_set_free(set);
	return ret;
}
