// SPDX-License-Identifier: MIT
/* SOCKS5 server side, RFC 1928 and RFC 1929, without I/O (see socks_proto.h). */
#include "socks_proto.h"

#include <string.h>

#include <zinc/memzero.h>

#include "cred.h"

enum {
	SOCKS5_VERSION = 0x05,
	AUTH_VERSION = 0x01, /* RFC 1929's sub-negotiation */
	METHOD_NONE = 0x00,
	METHOD_USERPASS = 0x02,
	METHOD_REFUSED = 0xff,
	AUTH_OK = 0x00,
	AUTH_FAILED = 0x01,
	CMD_CONNECT = 0x01,
	CMD_UDP_ASSOCIATE = 0x03,
};

enum stage { STAGE_GREETING, STAGE_AUTH, STAGE_REQUEST, STAGE_DONE };

void socks5_init(struct socks5 *s, const char *user, const char *pass)
{
	memset(s, 0, sizeof(*s));
	s->stage = STAGE_GREETING;
	if (user && pass) {
		s->user = user;
		s->pass = pass;
		s->user_len = strnlen(user, PROXY_CRED_MAX + 1);
		s->pass_len = strnlen(pass, PROXY_CRED_MAX + 1);
	}
}

void socks5_wipe(struct socks5 *s)
{
	zinc_memzero(s->buf, sizeof(s->buf));
	s->buf_len = 0;
}

/* The length of the address after ATYP, port included, or 0 for an
 * unknown type; for a domain it needs the length byte (have >= 1). */
static size_t addr_len(uint8_t atyp, const uint8_t *p, size_t have)
{
	switch (atyp) {
	case SOCKS5_ATYP_IPV4:
		return 4 + 2;
	case SOCKS5_ATYP_IPV6:
		return 16 + 2;
	case SOCKS5_ATYP_DOMAIN:
		return have ? 1 + (size_t)p[0] + 2 : 1;
	default:
		return 0;
	}
}

/* How long the buffered message is, as far as its bytes tell; one known to
 * be bad counts as complete, to be answered at once. */
static size_t need(const struct socks5 *s)
{
	const uint8_t *b = s->buf;
	size_t n = s->buf_len;

	switch (s->stage) {
	case STAGE_GREETING: /* VER NMETHODS METHODS */
		if (n >= 1 && b[0] != SOCKS5_VERSION)
			return n;
		return n < 2 ? 2 : 2 + (size_t)b[1];
	case STAGE_AUTH: /* VER ULEN UNAME PLEN PASSWD */
		if (n >= 1 && b[0] != AUTH_VERSION)
			return n;
		if (n < 2)
			return 2;
		if (n < 3 + (size_t)b[1])
			return 3 + (size_t)b[1];
		return 3 + (size_t)b[1] + b[2 + b[1]];
	case STAGE_REQUEST: { /* VER CMD RSV ATYP DST.ADDR DST.PORT */
		size_t a;

		if (n >= 1 && b[0] != SOCKS5_VERSION)
			return n;
		if (n < 4)
			return 4;
		a = addr_len(b[3], b + 4, n - 4);
		return a ? 4 + a : n; /* a domain's is 1 until its length byte is in */
	}
	default:
		return n;
	}
}

static void emit(struct socks5_step *step, const uint8_t *p, size_t n)
{
	memcpy(step->out + step->out_len, p, n);
	step->out_len += n;
}

static void greeting(struct socks5 *s, struct socks5_step *step)
{
	uint8_t want = s->user ? METHOD_USERPASS : METHOD_NONE;
	uint8_t reply[2] = {SOCKS5_VERSION, METHOD_REFUSED};

	if (s->buf[0] != SOCKS5_VERSION) {
		step->action = SOCKS5_CLOSE;
		return;
	}
	for (size_t i = 0; i < s->buf[1]; i++)
		if (s->buf[2 + i] == want)
			reply[1] = want;
	emit(step, reply, sizeof(reply));
	if (reply[1] == METHOD_REFUSED)
		step->action = SOCKS5_CLOSE;
	else
		s->stage = s->user ? STAGE_AUTH : STAGE_REQUEST;
}

static void auth(struct socks5 *s, struct socks5_step *step)
{
	const uint8_t *b = s->buf;
	uint8_t reply[2] = {AUTH_VERSION, AUTH_FAILED};
	bool ok;

	if (b[0] != AUTH_VERSION) {
		emit(step, reply, sizeof(reply));
		step->action = SOCKS5_CLOSE;
		return;
	}
	size_t ulen = b[1], plen = b[2 + ulen];
	/* both compared always: the time says nothing of which one was wrong */
	ok = proxy_cred_equal((const char *)b + 2, ulen, s->user, s->user_len);
	ok &= proxy_cred_equal((const char *)b + 3 + ulen, plen, s->pass, s->pass_len);
	if (ok) {
		reply[1] = AUTH_OK;
		s->stage = STAGE_REQUEST;
	} else {
		step->action = SOCKS5_CLOSE;
	}
	emit(step, reply, sizeof(reply));
}

/* Reads ATYP DST.ADDR DST.PORT at p (length known to be complete). False
 * for an empty domain or one with a NUL inside. */
static bool read_addr(const uint8_t *p, struct socks5_addr *a)
{
	size_t n;

	memset(a, 0, sizeof(*a));
	a->atyp = p[0];
	switch (p[0]) {
	case SOCKS5_ATYP_IPV4:
		memcpy(a->ipv4, p + 1, 4);
		n = 1 + 4;
		break;
	case SOCKS5_ATYP_IPV6:
		memcpy(a->ipv6, p + 1, 16);
		n = 1 + 16;
		break;
	default: /* SOCKS5_ATYP_DOMAIN */
		if (!p[1] || memchr(p + 2, '\0', p[1]))
			return false;
		memcpy(a->domain, p + 2, p[1]);
		a->domain[p[1]] = '\0';
		n = 2 + (size_t)p[1];
		break;
	}
	a->port = (uint16_t)(p[n] << 8 | p[n + 1]);
	return true;
}

static void refuse(struct socks5_step *step, enum socks5_rep rep)
{
	step->out_len += socks5_reply(step->out + step->out_len, rep, NULL);
	step->action = SOCKS5_CLOSE;
}

static void request(struct socks5 *s, struct socks5_step *step)
{
	const uint8_t *b = s->buf;

	if (b[0] != SOCKS5_VERSION) {
		step->action = SOCKS5_CLOSE;
		return;
	}
	if (b[1] != CMD_CONNECT && b[1] != CMD_UDP_ASSOCIATE) /* BIND is not offered */
		return refuse(step, SOCKS5_REP_CMD_NOT_SUPPORTED);
	if (!addr_len(b[3], b + 4, s->buf_len - 4))
		return refuse(step, SOCKS5_REP_ATYP_NOT_SUPPORTED);
	if (!read_addr(b + 3, &step->dst))
		return refuse(step, SOCKS5_REP_GENERAL_FAILURE);
	step->action = b[1] == CMD_CONNECT ? SOCKS5_CONNECT : SOCKS5_UDP_ASSOCIATE;
	s->stage = STAGE_DONE;
}

void socks5_feed(struct socks5 *s, const uint8_t *data, size_t len, struct socks5_step *step)
{
	memset(step, 0, sizeof(*step));
	step->action = SOCKS5_MORE;
	if (s->stage == STAGE_DONE) {
		step->action = SOCKS5_CLOSE;
		return;
	}
	while (step->action == SOCKS5_MORE) {
		size_t want = need(s);

		if (s->buf_len < want) {
			size_t take = want - s->buf_len;

			if (take > len - step->used)
				take = len - step->used;
			if (!take)
				return;
			memcpy(s->buf + s->buf_len, data + step->used, take);
			s->buf_len += take;
			step->used += take;
			continue;
		}
		switch (s->stage) {
		case STAGE_GREETING:
			greeting(s, step);
			break;
		case STAGE_AUTH:
			auth(s, step);
			break;
		default:
			request(s, step);
			break;
		}
		socks5_wipe(s);
	}
	if (step->action == SOCKS5_CLOSE)
		s->stage = STAGE_DONE;
}

/* Writes DST.ADDR DST.PORT (after ATYP) for a; returns the bytes. */
static size_t write_addr(uint8_t *out, const struct socks5_addr *a, bool domain_ok)
{
	size_t n = 0;

	if (a && a->atyp == SOCKS5_ATYP_IPV6) {
		out[n++] = SOCKS5_ATYP_IPV6;
		memcpy(out + n, a->ipv6, 16);
		n += 16;
	} else if (a && a->atyp == SOCKS5_ATYP_DOMAIN && domain_ok) {
		size_t dl = strnlen(a->domain, PROXY_HOST_MAX);

		out[n++] = SOCKS5_ATYP_DOMAIN;
		out[n++] = (uint8_t)dl;
		memcpy(out + n, a->domain, dl);
		n += dl;
	} else {
		out[n++] = SOCKS5_ATYP_IPV4;
		if (a && a->atyp == SOCKS5_ATYP_IPV4)
			memcpy(out + n, a->ipv4, 4);
		else
			memset(out + n, 0, 4);
		n += 4;
	}
	out[n++] = (uint8_t)((a ? a->port : 0) >> 8);
	out[n++] = (uint8_t)(a ? a->port : 0);
	return n;
}

size_t socks5_reply(uint8_t *out, enum socks5_rep rep, const struct socks5_addr *bound)
{
	out[0] = SOCKS5_VERSION;
	out[1] = (uint8_t)rep;
	out[2] = 0;
	return 3 + write_addr(out + 3, bound, false);
}

int socks5_udp_parse(const uint8_t *pkt, size_t len, struct socks5_addr *dst)
{
	size_t a;

	if (len < 4 || pkt[0] || pkt[1] || pkt[2]) /* RSV, and FRAG: no reassembly */
		return -1;
	a = addr_len(pkt[3], pkt + 4, len - 4);
	if (!a || len < 4 + a) /* for a domain, a is 1 until its length byte is there */
		return -1;
	if (!read_addr(pkt + 3, dst))
		return -1;
	return (int)(4 + a);
}

size_t socks5_udp_header(uint8_t *out, const struct socks5_addr *src)
{
	memset(out, 0, 3); /* RSV, FRAG */
	return 3 + write_addr(out + 3, src, true);
}
