/* Peer names for the friendly_name label (see metrics.h): the file is read
 * once, before the sandbox forbids open(); a peer added later is named
 * when the file named it at start. */
#include "metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base64.h"

/* s without the blanks around it, NUL-terminated in place. */
static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* Prometheus refuses a whole scrape over one label value that is not UTF-8. */
static bool utf8_valid(const unsigned char *s)
{
	while (*s) {
		unsigned len = *s < 0x80   ? 1
			       : *s < 0xc2 ? 0
			       : *s < 0xe0 ? 2
			       : *s < 0xf0 ? 3
			       : *s < 0xf5 ? 4
					   : 0;
		uint32_t cp = len == 1 ? *s : *s & (0x7f >> len);

		if (!len)
			return false;
		for (unsigned i = 1; i < len; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		s += len;
	}
	return true;
}

/* One section ends: a key and a name make an entry. */
static void add(struct metrics_names *names, bool have_key, const uint8_t *key, const char *name)
{
	struct metrics_name *e;

	if (!have_key || !name || strlen(name) > METRICS_NAME_MAX ||
	    !utf8_valid((const unsigned char *)name))
		return;
	e = &names->v[names->n++];
	memcpy(e->key, key, WG_PUBLIC_KEY_LEN);
	e->name = name;
}

/* "# KEY = VALUE" in a section: the value if KEY is friendly_name. */
static const char *friendly_name(char *comment)
{
	char *eq = strchr(comment, '=');

	if (!eq)
		return NULL;
	*eq = '\0';
	return strcmp(trim(comment), "friendly_name") ? NULL : trim(eq + 1);
}

int metrics_names_parse(struct metrics_names *names, char *text, size_t len)
{
	uint8_t key[WG_PUBLIC_KEY_LEN];
	const char *name = NULL;
	bool in_peer = false, have_key = false;
	size_t lines = 1;

	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	/* at most one entry per section, and a section takes a line */
	*names = (struct metrics_names){.text = text, .v = calloc(lines, sizeof(*names->v))};
	if (!names->v) {
		free(text);
		names->text = NULL;
		return -ENOMEM;
	}
	for (char *line = text, *next; line; line = next) {
		char *s, *eq;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		s = trim(line);
		if (*s == '[') {
			if (in_peer)
				add(names, have_key, key, name);
			in_peer = !strcmp(s, "[Peer]") || !strcmp(s, "[WireGuardPeer]");
			have_key = false;
			name = NULL;
		} else if (in_peer && *s == '#') {
			const char *n = friendly_name(s + 1);

			name = n ? n : name;
		} else if (in_peer && !strncasecmp(s, "PublicKey", 9) && (eq = strchr(s, '='))) {
			eq[strcspn(eq, "#")] = '\0';
			s = trim(eq + 1);
			have_key = base64_decode_key(s, strlen(s), key);
		}
	}
	if (in_peer)
		add(names, have_key, key, name);
	return 0;
}

int metrics_names_load(struct metrics_names *names, const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = f ? malloc(METRICS_NAMES_MAX_FILE + 2) : NULL;
	size_t len = text ? fread(text, 1, METRICS_NAMES_MAX_FILE + 1, f) : 0;
	int err = !f ? -errno : !text ? -ENOMEM : ferror(f) ? -EIO : 0;

	if (!err && len > METRICS_NAMES_MAX_FILE)
		err = -EFBIG;
	if (f)
		fclose(f);
	if (err) {
		free(text);
		return err;
	}
	text[len] = '\0';
	return metrics_names_parse(names, text, len);
}

const char *metrics_names_find(const struct metrics_names *names,
			       const uint8_t key[WG_PUBLIC_KEY_LEN])
{
	for (size_t i = names->n; i-- > 0;)
		if (!memcmp(names->v[i].key, key, WG_PUBLIC_KEY_LEN))
			return names->v[i].name;
	return NULL;
}

void metrics_names_free(struct metrics_names *names)
{
	free(names->text);
	free(names->v);
	*names = (struct metrics_names){0};
}
