/* passwd(5) lookup without NSS: see passwd.h. */
#include "passwd.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PASSWD_MAX (4u << 20) /* a larger /etc/passwd is not plausible */

/* Decimal id in [s, e) without sign or overflow; ids are 32-bit and
 * (uid_t)-1 is "no change" to the set*id calls, so refuse it. */
static bool parse_id(const char *s, const char *e, uint32_t *out)
{
	uint64_t v = 0;

	if (s == e || e - s > 10)
		return false;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v >= UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* One line "name:pw:uid:gid:gecos:home:shell"; fields past gid are not read. */
static bool parse_line(const char *s, const char *e, const char **name, size_t *name_len,
		       uint32_t *uid, uint32_t *gid)
{
	const char *f[4];
	int n = 0;

	f[n++] = s;
	for (const char *p = s; p < e && n < 4; p++)
		if (*p == ':')
			f[n++] = p + 1;
	if (n < 4)
		return false;
	const char *gid_end = memchr(f[3], ':', (size_t)(e - f[3]));

	*name = s;
	*name_len = (size_t)(f[1] - 1 - s);
	return parse_id(f[2], f[3] - 1, uid) && parse_id(f[3], gid_end ? gid_end : e, gid);
}

/* First line whose name (by_name) or uid (!by_name) matches. */
static int find(const char *text, size_t len, const char *name, size_t want, bool by_name,
		uint32_t numeric, uid_t *uid, gid_t *gid)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *n;
		size_t n_len;
		uint32_t u, g;

		/* NIS-style "+"/"-" entries and comments are not users */
		if (e > p && *p != '#' && *p != '+' && *p != '-' &&
		    parse_line(p, e, &n, &n_len, &u, &g) &&
		    (by_name ? n_len == want && !memcmp(n, name, want) : u == numeric)) {
			*uid = u;
			*gid = g;
			return 0;
		}
		p = e + 1;
	}
	return -ENOENT;
}

int zt_passwd_parse(const char *text, size_t len, const char *name, uid_t *uid, gid_t *gid)
{
	size_t want = strlen(name);
	uint32_t numeric = 0;
	bool is_numeric = parse_id(name, name + want, &numeric);

	if (!want)
		return -ENOENT;
	if (!find(text, len, name, want, true, 0, uid, gid))
		return 0;
	if (!is_numeric)
		return -ENOENT;
	if (find(text, len, name, want, false, numeric, uid, gid)) {
		*uid = numeric;
		*gid = numeric;
	}
	return 0;
}

int zt_passwd_lookup(const char *path, const char *name, uid_t *uid, gid_t *gid)
{
	FILE *f = fopen(path, "re");
	char *text = malloc(PASSWD_MAX);
	size_t len = 0;
	int ret;

	if (!text) {
		if (f)
			fclose(f);
		return -ENOMEM;
	}
	/* unreadable file: only a numeric uid can still be resolved */
	if (f) {
		len = fread(text, 1, PASSWD_MAX, f);
		fclose(f);
	}
	ret = zt_passwd_parse(text, len, name, uid, gid);
	free(text);
	return ret;
}
