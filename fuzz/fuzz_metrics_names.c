/* fuzz-sources: daemon/metrics_names.c daemon/base64.c */
/* The friendly_name file of --metrics-names (daemon/metrics_names.c), a
 * file the daemon reads as root before the sandbox.
 *
 * Beyond "no crash": every name found is NUL-terminated inside the text,
 * at most METRICS_NAME_MAX bytes, valid UTF-8 (utf8_valid) and without a
 * newline, so it is one label value Prometheus takes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../daemon/metrics.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metrics_names names;
	/* its own allocation, NUL-terminated as metrics_names_load leaves it */
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (metrics_names_parse(&names, text, size))
		return 0;
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.v[i].name;

		check(name >= names.text && name < names.text + size + 1, "name outside the text");
		check(strlen(name) <= METRICS_NAME_MAX, "name too long");
		check(!strchr(name, '\n'), "newline in a name");
		check(metrics_names_find(&names, names.v[i].key) != NULL, "entry not found");
	}
	metrics_names_free(&names);
	return 0;
}
