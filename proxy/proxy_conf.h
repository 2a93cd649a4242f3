/* The proxy mode's configuration file: wireproxy's format.
 *
 *   WGConfig = wg0.conf          # optional, top level, before any section
 *   [Interface]                  # PrivateKey, Address, DNS, MTU, ListenPort
 *   [Peer]                       # PublicKey, PresharedKey, Endpoint,
 *                                # AllowedIPs, PersistentKeepalive; repeatable
 *   [Socks5] / [http]            # BindAddress, Username, Password,
 *                                # AllowUnauthenticated
 *   [TCPClientTunnel]            # BindAddress, Target
 *   [TCPServerTunnel]            # ListenPort, Target
 *   [UDPProxyTunnel]             # BindAddress, Target, InactivityTimeout
 *
 * Pure: no I/O, no name resolution, no global state. The caller reads the
 * file and passes its text; an included WGConfig file is read through a
 * callback. Hostnames (Endpoint, Target) are kept as text for the caller to
 * resolve: an Endpoint locally, a Target through the tunnel's DNS (for
 * [TCPServerTunnel], locally).
 *
 * Syntax: "[Section]" and "Key = Value" lines; section and key names are
 * case-insensitive; blank lines and lines starting with '#' or ';' are
 * ignored, and so is the rest of a line from a '#' or ';' that follows
 * whitespace ("Address = 10.0.0.2/32 # mine"); a value wholly in double
 * quotes is taken literally. Address, DNS and AllowedIPs are comma-separated
 * lists and may be repeated (the lists add up); every other key may appear
 * once per section. Every error is one message "FILE:LINE: what is wrong",
 * FILE being the file it is in (the included file's path as joined), and
 * LINE the line of the offending key or section header; an error about
 * the whole file (no [Interface], too large) names its last line.
 */
#ifndef ZT_PROXY_CONF_H
#define ZT_PROXY_CONF_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proxy_limits.h"

/* A numeric IPv4 or IPv6 address. */
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
	/* Address: the tunnel's own addresses; without "/N" a host prefix
	 * (/32, /128). At least one. */
	struct proxy_prefix addrs[PROXY_CONF_MAX_ADDRS];
	size_t n_addrs;
	struct proxy_ip dns[PROXY_CONF_MAX_DNS]; /* DNS: servers inside the tunnel */
	size_t n_dns;
	uint16_t mtu;	      /* MTU, default PROXY_DEFAULT_MTU */
	uint16_t listen_port; /* ListenPort; 0: none given, any port */
};

struct proxy_peer {
	uint8_t public_key[PROXY_KEY_LEN];
	bool has_preshared_key;
	uint8_t preshared_key[PROXY_KEY_LEN];
	bool has_endpoint;
	struct proxy_hostport endpoint;
	/* AllowedIPs; when the file names only one peer and it has none,
	 * 0.0.0.0/0 and ::/0 (wireproxy's behaviour). Heap, n_allowed long. */
	struct proxy_prefix *allowed;
	size_t n_allowed;
	uint16_t keepalive; /* PersistentKeepalive seconds, 0 = off ("off" accepted) */
	unsigned line;	    /* of the [Peer] header, for messages */
};

enum proxy_kind {
	PROXY_SOCKS5,	  /* [Socks5] */
	PROXY_HTTP,	  /* [http] */
	PROXY_TCP_CLIENT, /* [TCPClientTunnel]: local listener -> Target in the tunnel */
	PROXY_TCP_SERVER, /* [TCPServerTunnel]: tunnel listener -> local Target */
	PROXY_UDP,	  /* [UDPProxyTunnel]: local UDP socket <-> Target in the tunnel */
};

struct proxy_listener {
	enum proxy_kind kind;
	unsigned line; /* of the section header */
	/* BindAddress (every kind but TCP_SERVER; required): always numeric.
	 * "PORT", ":PORT" and "localhost:PORT" mean 127.0.0.1:PORT. */
	struct proxy_hostport bind;
	/* ListenPort (TCP_SERVER only; required): a port on the tunnel's
	 * addresses. */
	uint16_t listen_port;
	/* Target (TCP_CLIENT, TCP_SERVER, UDP; required). */
	struct proxy_hostport target;
	/* Username and Password (SOCKS5, HTTP; both or neither), 1..255
	 * bytes each; has_auth when given. */
	bool has_auth;
	char username[PROXY_CRED_MAX + 1];
	char password[PROXY_CRED_MAX + 1];
	/* AllowUnauthenticated = true|false (SOCKS5, HTTP; default false):
	 * without it, a proxy with no credentials must bind to loopback. */
	bool allow_unauthenticated;
	/* InactivityTimeout (UDP only): seconds a client's flow may be idle
	 * before it is forgotten; default 0 = never. */
	uint32_t inactivity_timeout;
};

struct proxy_conf {
	struct proxy_interface iface;
	struct proxy_peer *peers; /* heap, n_peers long; at least one */
	size_t n_peers;
	struct proxy_listener *listeners; /* heap, in file order; may be empty */
	size_t n_listeners;
};

/* Reads an included WGConfig file. path is as the caller should open it: a
 * relative WGConfig value is joined to the directory of the including file
 * name. On success returns 0 and a malloc'd *text of *len bytes (the parser
 * wipes and frees it); else a negative errno. */
typedef int (*proxy_conf_read_fn)(void *ctx, const char *path, char **text, size_t *len);

/* Parses text (len bytes, no NUL needed) read from the file named file.
 * Returns 0 and fills *out, or -1 with "FILE:LINE: message" in err (errlen
 * bytes, PROXY_CONF_ERR_LEN is enough) and *out left empty. read may be
 * NULL: then WGConfig is an error. Call proxy_conf_free() after success. */
int proxy_conf_parse(const char *file, const char *text, size_t len, proxy_conf_read_fn read,
		     void *ctx, struct proxy_conf *out, char *err, size_t errlen);

/* Wipes the keys and credentials, frees the arrays, leaves *conf empty. */
void proxy_conf_free(struct proxy_conf *conf);

/* Resolves a peer's Endpoint to an address and port, or says why not
 * (FILE:LINE) and returns -1. */
union uapi_sockaddr;
typedef int (*proxy_conf_resolve_fn)(void *ctx, const struct proxy_peer *p,
				     union uapi_sockaddr *out);

/* The [Interface] and [Peer]s as the set wg(8) would send (private key,
 * listen port, the peers replacing any, their prefixes replacing theirs),
 * for config_apply (daemon/config.h). The keys move: the conf keeps no
 * private key and no peers afterwards, whatever the outcome. Returns 0, -1
 * if an Endpoint did not resolve, or -ENOMEM; then *set is empty. */
struct uapi_set;
int proxy_conf_take_set(struct proxy_conf *c, proxy_conf_resolve_fn resolve, void *ctx,
			struct uapi_set *set);

/* True for 127.0.0.0/8 and ::1 (and ::ffff:127.0.0.0/104). */
bool proxy_ip_is_loopback(const struct proxy_ip *ip);

/* Parses "host:port" / "[v6]:port" (port 1..65535; host 1..255 bytes of
 * letters, digits, '-', '.', '_' unless an address literal). False if
 * malformed. Shared with the HTTP proxy's CONNECT target. */
bool proxy_parse_hostport(const char *s, size_t len, struct proxy_hostport *out);

#endif
