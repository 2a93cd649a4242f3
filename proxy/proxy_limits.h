/* The proxy mode's limits, in one place to keep them in step with zinctun.8. */
#ifndef ZT_PROXY_LIMITS_H
#define ZT_PROXY_LIMITS_H

enum {
	PROXY_KEY_LEN = 32,		/* a Curve25519 key or a preshared key */
	PROXY_HOST_MAX = 255,		/* a DNS name, without the final NUL */
	PROXY_CRED_MAX = 255,		/* Username, Password: RFC 1929 ULEN/PLEN */
	PROXY_CONF_MAX_BYTES = 1 << 20, /* a configuration file (either one) */
	PROXY_CONF_MAX_LINE = 4096,	/* one line of it */
	PROXY_CONF_MAX_ADDRS = 16,	/* [Interface] Address entries */
	PROXY_CONF_MAX_DNS = 8,		/* [Interface] DNS entries */
	PROXY_CONF_MAX_PEERS = 256,
	PROXY_CONF_MAX_ALLOWED = 1024,	/* AllowedIPs prefixes of one peer */
	PROXY_CONF_MAX_LISTENERS = 256, /* proxy and tunnel sections together */
	PROXY_CONF_ERR_LEN = 512,	/* "FILE:LINE: message" buffer */
	PROXY_DEFAULT_MTU = 1420,	/* wireproxy's and wg-quick's default */
	PROXY_MIN_MTU = 576,
	PROXY_MAX_MTU = 65535 - 80, /* a datagram's payload less our overhead */

	SOCKS5_OUT_MAX = 16,   /* bytes one socks5_feed() step may send */
	SOCKS5_REPLY_MAX = 22, /* a reply with an IPv6 address */
	SOCKS5_UDP_HEADER_MAX = 4 + 1 + PROXY_HOST_MAX + 2,

	HTTPP_HEAD_MAX = 16384,		    /* a request head, request line to blank line */
	HTTPP_OUT_MAX = 2 * HTTPP_HEAD_MAX, /* the rewritten head (bare LFs become CRLF) */
	HTTPP_CONN_TOKENS_MAX = 16,	    /* header names listed in Connection that count */

	DNS_QUERY_MAX = 12 + 255 + 4, /* header, name (wire form <= 255), type, class */
	DNS_MAX_CNAME_HOPS = 8,
	DNS_MAX_POINTER_HOPS = 32, /* compression pointers followed in one name */

	/* a packet from the data path into lwIP: a coalesced one is at most
	 * an IP datagram, a pbuf at most 64 KiB - 1 */
	PROXY_STACK_PACKET_MAX = 65535,
};

#endif
