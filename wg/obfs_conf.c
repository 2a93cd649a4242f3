/* AmneziaWG parameters: their UAPI names, value forms and checks as
 * amneziawg-go v0.2.16 has them, and the special junk tag language
 * ("<b 0x..>", "<r N>", "<rc N>", "<rd N>", "<t>", "<d>", "<ds>", "<dz N>"). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "device.h"
#include "obfs.h"

enum { K_JC, K_JMIN, K_JMAX, K_S1, K_H1 = K_S1 + WG_OBFS_TYPES, K_I1 = K_H1 + WG_OBFS_TYPES };

static const char *const NAMES[] = {"jc", "jmin", "jmax", "s1", "s2", "s3", "s4", "h1",
				    "h2", "h3",	  "h4",	  "i1", "i2", "i3", "i4", "i5"};
_Static_assert(sizeof(NAMES) / sizeof(NAMES[0]) == K_I1 + WG_OBFS_SPECIALS, "keys");

const size_t wg_obfs_msg_len[WG_OBFS_TYPES] = {
    sizeof(struct wg_message_handshake_initiation), sizeof(struct wg_message_handshake_response),
    sizeof(struct wg_message_handshake_cookie), WG_MESSAGE_MINIMUM_LENGTH};

void wg_obfs_config_init(struct wg_obfs_config *c)
{
	memset(c, 0, sizeof(*c));
	for (uint32_t t = 0; t < WG_OBFS_TYPES; t++)
		c->h[t].lo = c->h[t].hi = t + 1;
}

const char *wg_obfs_key_name(unsigned k)
{
	return k < sizeof(NAMES) / sizeof(NAMES[0]) ? NAMES[k] : NULL;
}

/* A decimal number as Go's strconv (Atoi with a sign, ParseUint without). */
static bool parse_num(const char *s, size_t len, bool sign, int64_t max, int64_t *out)
{
	bool neg = false;
	int64_t v = 0;

	if (sign && len && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++, len--;
	}
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (max - (s[i] - '0')) / 10)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return true;
}

/* "N" or "N-M", N <= M, as amneziawg-go's magic headers. */
static const char *parse_range(const char *v, size_t len, struct wg_obfs_range *r)
{
	const char *dash = memchr(v, '-', len);
	int64_t lo, hi;

	if (dash && memchr(dash + 1, '-', len - (size_t)(dash - v) - 1))
		return "bad format";
	if (!parse_num(v, dash ? (size_t)(dash - v) : len, false, UINT32_MAX, &lo) ||
	    (dash && !parse_num(dash + 1, len - (size_t)(dash - v) - 1, false, UINT32_MAX, &hi)))
		return "not a number (0 to 4294967295)";
	if (!dash)
		hi = lo;
	if (hi < lo)
		return "wrong range specified";
	r->lo = (uint32_t)lo;
	r->hi = (uint32_t)hi;
	return NULL;
}

static const char *set_number(struct wg_obfs_config *c, unsigned k, const char *v, size_t len)
{
	int64_t n, max = WG_OBFS_MAX_DATAGRAM;

	if (!parse_num(v, len, true, INT64_MAX, &n))
		return "not a number";
	if (k == K_JC)
		max = WG_OBFS_MAX_JUNK_COUNT;
	else if (k >= K_S1)
		max = WG_OBFS_MAX_DATAGRAM - (int64_t)wg_obfs_msg_len[k - K_S1];
	if (k < K_S1 ? n <= 0 : n < 0)
		return k < K_S1 ? "must be a positive value" : "must be non-negative";
	if (n > max)
		return k == K_JC ? "too many junk packets (at most 128)"
				 : "too large (packets stay within 1280 bytes)";
	if (k == K_JC)
		c->jc = (uint32_t)n;
	else if (k == K_JMIN)
		c->jmin = (uint32_t)n;
	else if (k == K_JMAX)
		c->jmax = (uint32_t)n;
	else
		c->s[k - K_S1] = (uint32_t)n;
	return NULL;
}

int wg_obfs_set_key(struct wg_obfs_config *c, const char *key, size_t klen, const char *val,
		    size_t vlen, const char **why)
{
	unsigned k = 0;

	while (k < sizeof(NAMES) / sizeof(NAMES[0]) &&
	       (strlen(NAMES[k]) != klen || strncasecmp(key, NAMES[k], klen)))
		k++;
	if (k == sizeof(NAMES) / sizeof(NAMES[0]))
		return 0;
	if (k < K_H1) {
		*why = set_number(c, k, val, vlen);
	} else if (k < K_I1) {
		*why = parse_range(val, vlen, &c->h[k - K_H1]);
	} else if (vlen >= WG_OBFS_SPEC_LEN) {
		*why = "special junk spec too long";
	} else {
		char *spec = c->i[k - K_I1];
		size_t n;

		memcpy(spec, val, vlen);
		spec[vlen] = '\0';
		*why = wg_obfs_spec_check(spec, &n);
	}
	if (*why)
		return -1;
	c->given |= 1u << k;
	return 1;
}

bool wg_device_format_obfs(const struct wg_device *dev, unsigned k, char *out, size_t cap)
{
	const struct wg_obfs_config *c = &dev->obfs.cfg;
	const uint32_t num[] = {c->jc, c->jmin, c->jmax, c->s[0], c->s[1], c->s[2], c->s[3]};

	if (k < K_H1)
		return num[k] && snprintf(out, cap, "%u", num[k]) > 0;
	if (k < K_I1) {
		const struct wg_obfs_range *r = &c->h[k - K_H1];

		/* amneziawg-go prints them always; plain WireGuard's get stays as it was */
		if (!c->given)
			return false;
		if (r->lo == r->hi)
			return snprintf(out, cap, "%u", r->lo) > 0;
		return snprintf(out, cap, "%u-%u", r->lo, r->hi) > 0;
	}
	return k < K_I1 + WG_OBFS_SPECIALS && c->i[k - K_I1][0] &&
	       snprintf(out, cap, "%s", c->i[k - K_I1]) > 0;
}

void wg_obfs_config_merge(struct wg_obfs_config *d, const struct wg_obfs_config *c)
{
	uint32_t *dn[] = {&d->jc, &d->jmin, &d->jmax, &d->s[0], &d->s[1], &d->s[2], &d->s[3]};
	const uint32_t cn[] = {c->jc, c->jmin, c->jmax, c->s[0], c->s[1], c->s[2], c->s[3]};

	for (unsigned k = 0; k < K_I1 + WG_OBFS_SPECIALS; k++) {
		if (!(c->given >> k & 1))
			continue;
		if (k < K_H1)
			*dn[k] = cn[k];
		else if (k < K_I1)
			d->h[k - K_H1] = c->h[k - K_H1];
		else
			memcpy(d->i[k - K_I1], c->i[k - K_I1], WG_OBFS_SPEC_LEN);
	}
	d->given |= c->given;
}

const char *wg_obfs_config_check(const struct wg_obfs_config *c)
{
	for (int a = 0; a < WG_OBFS_TYPES; a++) {
		for (int b = a + 1; b < WG_OBFS_TYPES; b++) {
			if (c->h[a].lo <= c->h[b].hi && c->h[b].lo <= c->h[a].hi)
				return "headers must not overlap";
		}
	}
	if (c->jc && c->jmin > c->jmax)
		return "jmin must not exceed jmax";
	return NULL;
}

static void tag_emit(struct wg_device *dev, int tag, const char *val, size_t n, uint8_t *out)
{
	static const char LETTERS[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	uint64_t secs;

	switch (tag) {
	case 0: /* <b 0x..> */
		for (size_t i = 0; i < n; i++) {
			char h[3] = {val[2 * i], val[2 * i + 1], 0};

			out[i] = (uint8_t)strtoul(h, NULL, 16);
		}
		break;
	case 1: /* <t>: Unix seconds, big-endian */
		secs = wg_device_wall_ns(dev) / WG_NS_PER_SEC;
		for (int i = 0; i < 4; i++)
			out[i] = (uint8_t)(secs >> (24 - 8 * i));
		break;
	case 2: /* <r N> */
	case 3: /* <rc N>: letters */
	case 4: /* <rd N>: digits */
		if (n && !wg_device_random(dev, out, n))
			memset(out, 0, n); /* junk: nothing to keep secret */
		for (size_t i = 0; tag > 2 && i < n; i++)
			out[i] =
			    tag == 3 ? (uint8_t)LETTERS[out[i] % 52] : (uint8_t)('0' + out[i] % 10);
		break;
	default: /* <d>, <ds>: no data before an initiation; <dz N>: its size 0 */
		memset(out, 0, n);
	}
}

/* Walks a spec: checks it (dev NULL) or writes its packet to out. */
static const char *spec_walk(struct wg_device *dev, const char *s, uint8_t *out, size_t *len)
{
	static const char *const TAGS[] = {"b", "t", "r", "rc", "rd", "d", "ds", "dz"};
	size_t n = 0;

	while ((s = strchr(s, '<'))) {
		const char *end = strchr(s, '>'), *p = s + 1, *name, *val;
		size_t nlen, vlen, t = 0;
		int64_t count = 0;

		if (!end)
			return "missing enclosing >";
		while (p < end && isspace((unsigned char)*p))
			p++;
		for (name = p; p < end && !isspace((unsigned char)*p); p++)
			;
		nlen = (size_t)(p - name);
		while (p < end && isspace((unsigned char)*p))
			p++;
		for (val = p; p < end && !isspace((unsigned char)*p); p++)
			;
		vlen = (size_t)(p - val);
		s = end + 1;
		if (!nlen)
			return "empty tag";
		while (t < 8 && (strlen(TAGS[t]) != nlen || memcmp(TAGS[t], name, nlen)))
			t++;
		if (t == 8)
			return "unknown tag";
		if (t == 0) { /* bytes, hex */
			if (vlen >= 2 && val[0] == '0' && val[1] == 'x')
				val += 2, vlen -= 2;
			if (!vlen || vlen % 2)
				return vlen ? "odd amount of symbols" : "empty argument";
			for (size_t i = 0; i < vlen; i++) {
				if (!isxdigit((unsigned char)val[i]))
					return "invalid hex";
			}
			count = (int64_t)vlen / 2;
		} else if (t == 1) {
			count = 4;
		} else if (t != 5 && t != 6) {
			if (!parse_num(val, vlen, true, INT64_MAX, &count) || count < 0)
				return "invalid length";
		}
		if (count > WG_OBFS_MAX_DATAGRAM - (int64_t)n)
			return "special junk longer than 1280 bytes";
		if (dev)
			tag_emit(dev, (int)t, val, (size_t)count, out + n);
		n += (size_t)count;
	}
	*len = n;
	return NULL;
}

const char *wg_obfs_spec_check(const char *spec, size_t *len)
{
	return spec_walk(NULL, spec, NULL, len);
}

size_t wg_obfs_spec_emit(struct wg_device *dev, const char *spec, uint8_t *out)
{
	size_t n = 0;

	return spec_walk(dev, spec, out, &n) ? 0 : n;
}
