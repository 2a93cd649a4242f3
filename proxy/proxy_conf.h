/* The proxy mode's configuration file, wireproxy's format: an optional
 * top-level "WGConfig = wg0.conf" (holding [Interface] and [Peer]s), then
 * [Interface], [Peer]s, [Socks5], [http], [TCPClientTunnel],
 * [TCPServerTunnel], [STDIOTunnel] and [UDPProxyTunnel] sections (keys: see the tables in
 * proxy_conf.c and zinctun.8). Pure: the caller reads the files (WGConfig
 * through a callback) and resolves the hostnames kept as text.
 *
 * Names are case-insensitive; '#' or ';' starts a comment at a line's start
 * or after whitespace; a value wholly in double quotes is literal. Address,
 * DNS, CheckAlive and AllowedIPs are lists that add up; other keys appear once per
 * section. An error is "FILE:LINE: what is wrong": the offending key or
 * header's line, or the last line for the whole file's.
 */
#ifndef ZT_PROXY_CONF_H
#define ZT_PROXY_CONF_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "../daemon/uapi_parse.h"
#include "proxy_limits.h"

struct proxy_ip {
	sa_family_t family; /* AF_INET or AF_INET6 */
	union {
		struct in_addr in4;
		struct in6_addr in6;
	};
};

struct proxy_prefix {
	struct proxy_ip ip; /* host bits as written (Address keeps them) */
	uint8_t cidr;	    /* 0..32 or 0..128 */
};

/* "host:port" or "[v6]:port". host is a DNS name or an address literal;
 * is_ip says it parsed as a literal, then ip holds it. */
struct proxy_hostport {
	char host[PROXY_HOST_MAX + 1]; /* without brackets, NUL-terminated */
	uint16_t port;		       /* host order, 1..65535 */
	bool is_ip;
	struct proxy_ip ip;
};

struct proxy_interface {
	uint8_t private_key[PROXY_KEY_LEN];
	/* Address: the tunnel's own; without "/N" a host prefix. At least one. */
	struct proxy_prefix addrs[PROXY_CONF_MAX_ADDRS];
	size_t n_addrs;
	struct proxy_ip dns[PROXY_CONF_MAX_DNS]; /* DNS: servers inside the tunnel */
	size_t n_dns;
	uint16_t mtu;		     /* MTU, default PROXY_DEFAULT_MTU */
	uint16_t listen_port;	     /* ListenPort; 0: none given, any port */
	struct wg_obfs_config *obfs; /* Jc, S1, H1, I1...: AmneziaWG (heap; NULL: none) */
	/* CheckAlive: pinged every CheckAliveInterval seconds (health.h) */
	struct proxy_ip check_alive[PROXY_CONF_MAX_CHECK_ALIVE];
	size_t n_check_alive;
	uint16_t check_alive_interval;
};

struct proxy_peer {
	/* keys, PersistentKeepalive and AllowedIPs (heap; a lone peer without
	 * any gets 0.0.0.0/0 and ::/0, as wireproxy does) as wg(8) sends them */
	struct uapi_peer set;
	struct proxy_hostport endpoint; /* if set.has_endpoint */
	unsigned line;			/* of the [Peer] header, for messages */
};

enum proxy_kind {
	PROXY_SOCKS5,	  /* [Socks5] */
	PROXY_HTTP,	  /* [http] */
	PROXY_TCP_CLIENT, /* [TCPClientTunnel]: local listener -> Target in the tunnel */
	PROXY_TCP_SERVER, /* [TCPServerTunnel]: tunnel listener -> local Target */
	PROXY_UDP,	  /* [UDPProxyTunnel]: local UDP socket <-> Target in the tunnel */
	PROXY_STDIO,	  /* [STDIOTunnel]: stdin and stdout <-> Target in the tunnel */
};

struct proxy_listener {
	enum proxy_kind kind;
	const char *section; /* its name, for messages */
	unsigned line;	     /* of the section header */
	/* BindAddress, numeric: "PORT", ":PORT" and "localhost:PORT" mean
	 * 127.0.0.1:PORT */
	struct proxy_hostport bind;
	uint16_t listen_port; /* TCP_SERVER: a port on the tunnel's addresses */
	struct proxy_hostport target;
	bool has_auth; /* Username and Password (both or neither) */
	char username[PROXY_CRED_MAX + 1];
	char password[PROXY_CRED_MAX + 1];
	/* without it, a proxy with no credentials must bind to loopback */
	bool allow_unauthenticated;
	uint32_t inactivity_timeout; /* UDP: seconds a flow may idle; 0 = never */
};

struct proxy_conf {
	struct proxy_interface iface;
	struct proxy_peer *peers; /* heap, n_peers long; at least one */
	size_t n_peers;
	struct proxy_listener *listeners; /* heap, in file order; may be empty */
	size_t n_listeners;
};

/* Reads a WGConfig file (a relative path is joined to the including file's
 * directory): 0 and a malloc'd *text the parser wipes and frees, or -errno. */
typedef int (*proxy_conf_read_fn)(void *ctx, const char *path, char **text, size_t *len);

/* Returns 0 and fills *out (free with proxy_conf_free), or -1 with the
 * message in err (PROXY_CONF_ERR_LEN is enough). read NULL: no WGConfig. */
int proxy_conf_parse(const char *file, const char *text, size_t len, proxy_conf_read_fn read,
		     void *ctx, struct proxy_conf *out, char *err, size_t errlen);

/* Wipes the keys and credentials, frees the arrays, leaves *conf empty. */
void proxy_conf_free(struct proxy_conf *conf);

/* Resolves a peer's Endpoint to an address and port, or says why not
 * (FILE:LINE) and returns -1. */
typedef int (*proxy_conf_resolve_fn)(void *ctx, const struct proxy_peer *p,
				     union uapi_sockaddr *out);

/* The [Interface] and [Peer]s as the set wg(8) would send, for
 * config_apply. The keys move out of c whatever the outcome. Returns 0, -1
 * if an Endpoint did not resolve, or -ENOMEM (then *set is empty). */
int proxy_conf_take_set(struct proxy_conf *c, proxy_conf_resolve_fn resolve, void *ctx,
			struct uapi_set *set);

/* True for 127.0.0.0/8 and ::1 (and ::ffff:127.0.0.0/104). */
bool proxy_ip_is_loopback(const struct proxy_ip *ip);
bool proxy_ip_equal(const struct proxy_ip *a, const struct proxy_ip *b);
/* s[0..len) is word, whatever the case. */
bool proxy_word_is(const char *s, size_t len, const char *word);
/* Moves s and len past the whitespace around s[0..len). */
void proxy_trim(const char **s, size_t *len);

/* "host:port" / "[v6]:port": host an address literal or 1..255 bytes of
 * letters, digits, '-', '.', '_'; port 1..65535. Also HTTP CONNECT's. */
bool proxy_parse_hostport(const char *s, size_t len, struct proxy_hostport *out);

#endif
