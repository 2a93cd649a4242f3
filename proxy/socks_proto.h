/* SOCKS5 server side (RFC 1928), with username/password authentication
 * (RFC 1929): a state machine with no I/O.
 *
 * The caller feeds what the client sent; each step says what to send back
 * and what to do:
 *
 *   struct socks5 s;  socks5_init(&s, user, pass);   (NULL user: no auth)
 *   on bytes from the client:
 *       socks5_feed(&s, data, len, &step);
 *       send step.out[0..out_len) to the client, then by step.action:
 *       SOCKS5_MORE           wait for more bytes (all of data was taken)
 *       SOCKS5_CONNECT        connect to step.dst, then send
 *                             socks5_reply(code, bound address) and, on
 *                             success, splice: data[step.used..len) is the
 *                             client's first stream data
 *       SOCKS5_UDP_ASSOCIATE  open a UDP relay, send socks5_reply(success,
 *                             relay address); step.dst is where the client
 *                             says it will send from (often 0.0.0.0:0);
 *                             the association lasts as long as this TCP
 *                             connection
 *       SOCKS5_CLOSE          close once out is sent (bad version, no
 *                             acceptable method, wrong password, BIND or an
 *                             unknown command or address type: out then
 *                             holds the RFC's reply)
 *
 * Methods: with credentials configured only 0x02 (username/password) is
 * offered, without only 0x00 (none). A wrong username or password gets
 * status 0x01 and SOCKS5_CLOSE; the comparison takes the same time whatever
 * the bytes (and whatever the lengths, up to 255).
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

/* user and pass are NUL-terminated (1..255 bytes) and must outlive s; user
 * NULL: no authentication. */
void socks5_init(struct socks5 *s, const char *user, const char *pass);

/* Consumes bytes of the current message(s); see the top of this file.
 * After CONNECT, UDP_ASSOCIATE or CLOSE, further calls return CLOSE. */
void socks5_feed(struct socks5 *s, const uint8_t *data, size_t len, struct socks5_step *step);

/* Wipes the buffered bytes (they may hold a password). */
void socks5_wipe(struct socks5 *s);

/* Writes the reply "VER REP RSV ATYP BND.ADDR BND.PORT" into out (at least
 * SOCKS5_REPLY_MAX bytes); bound NULL: 0.0.0.0:0. A domain bound address
 * is written as 0.0.0.0. Returns its length. */
size_t socks5_reply(uint8_t *out, enum socks5_rep rep, const struct socks5_addr *bound);

/* A UDP ASSOCIATE datagram from the client: "RSV(2) FRAG ATYP DST.ADDR
 * DST.PORT DATA". Returns the header length (DATA starts there) and fills
 * *dst, or -1 to drop it: short, RSV not 0, FRAG not 0 (fragments are not
 * supported, RFC 1928 allows dropping them), unknown ATYP, empty domain. */
int socks5_udp_parse(const uint8_t *pkt, size_t len, struct socks5_addr *dst);

/* Writes the header of a datagram to the client from src into out (at
 * least SOCKS5_UDP_HEADER_MAX bytes); returns its length. */
size_t socks5_udp_header(uint8_t *out, const struct socks5_addr *src);

#endif
