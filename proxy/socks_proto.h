/* SOCKS5 server side (RFC 1928) with username/password authentication
 * (RFC 1929): a state machine with no I/O. Feed it the client's bytes; each
 * step says what to send back (out) and what to do: wait for more, CONNECT
 * to dst (then send socks5_reply; data from used on is stream data), UDP
 * ASSOCIATE (a relay for as long as this TCP connection lasts) or CLOSE
 * (out holds the RFC's refusal, if any). With credentials configured only
 * method 0x02 is offered, else only 0x00; they are compared in constant
 * time whatever the lengths, so timing tells nothing of which was wrong.
 */
#ifndef ZTP_SOCKS_PROTO_H
#define ZTP_SOCKS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxy_limits.h"

enum socks5_atyp {
	SOCKS5_ATYP_IPV4 = 0x01,
	SOCKS5_ATYP_DOMAIN = 0x03,
	SOCKS5_ATYP_IPV6 = 0x04,
};

/* Reply codes (RFC 1928 section 6). */
enum socks5_rep {
	SOCKS5_REP_SUCCESS = 0x00,
	SOCKS5_REP_GENERAL_FAILURE = 0x01,
	SOCKS5_REP_NOT_ALLOWED = 0x02,
	SOCKS5_REP_NET_UNREACHABLE = 0x03,
	SOCKS5_REP_HOST_UNREACHABLE = 0x04,
	SOCKS5_REP_CONN_REFUSED = 0x05,
	SOCKS5_REP_TTL_EXPIRED = 0x06,
	SOCKS5_REP_CMD_NOT_SUPPORTED = 0x07,
	SOCKS5_REP_ATYP_NOT_SUPPORTED = 0x08,
};

struct socks5_addr {
	uint8_t atyp; /* enum socks5_atyp */
	union {
		uint8_t ipv4[4];
		uint8_t ipv6[16];
		char domain[PROXY_HOST_MAX + 1]; /* NUL-terminated, 1..255 bytes, no NUL inside */
	};
	uint16_t port; /* host order */
};

enum socks5_action {
	SOCKS5_MORE,
	SOCKS5_CONNECT,
	SOCKS5_UDP_ASSOCIATE,
	SOCKS5_CLOSE,
};

struct socks5_step {
	enum socks5_action action;
	size_t used; /* bytes of data taken; less than len only when action is not MORE */
	uint8_t out[SOCKS5_OUT_MAX]; /* to send to the client before acting */
	size_t out_len;
	struct socks5_addr dst; /* CONNECT, UDP_ASSOCIATE */
};

/* Internal state; callers only init and feed it. */
struct socks5 {
	uint8_t stage; /* greeting, auth, request, done */
	const char *user, *pass;
	size_t user_len, pass_len;
	uint8_t buf[1 + 1 + 255 + 1 + 255]; /* the longest message: RFC 1929's request */
	size_t buf_len;
};

/* user and pass must outlive s; user NULL: no authentication. */
void socks5_init(struct socks5 *s, const char *user, const char *pass);

/* After CONNECT, UDP_ASSOCIATE or CLOSE, further calls return CLOSE. */
void socks5_feed(struct socks5 *s, const uint8_t *data, size_t len, struct socks5_step *step);

/* Wipes the buffered bytes (they may hold a password). */
void socks5_wipe(struct socks5 *s);

/* Writes a reply (SOCKS5_REPLY_MAX bytes at most) and returns its length;
 * bound NULL: 0.0.0.0:0; a domain is written as 0.0.0.0. */
size_t socks5_reply(uint8_t *out, enum socks5_rep rep, const struct socks5_addr *bound);

/* A client's UDP ASSOCIATE datagram: its header length and *dst, or -1 to
 * drop it (malformed, or a fragment: RFC 1928 allows dropping those). */
int socks5_udp_parse(const uint8_t *pkt, size_t len, struct socks5_addr *dst);

/* Writes a datagram header for src (SOCKS5_UDP_HEADER_MAX bytes at most). */
size_t socks5_udp_header(uint8_t *out, const struct socks5_addr *src);

#endif
