/* fuzz-sources: daemon/uapi_parse.c */
/* Fuzz target for the UAPI "set" parser (daemon/uapi_parse.c).
 *
 * Run: scripts/fuzz 60 fuzz_uapi   (seeds in fuzz/corpus/fuzz_uapi/).
 * Replay files without libFuzzer: build with -DFUZZ_STANDALONE.
 *
 * Beyond "no crash", it checks the parser's promises: on success every
 * parsed value re-formats and re-parses to itself; on failure the output
 * is empty and the error names a line, key and value inside the input, with
 * a reason; an input without CR parses the same with its lines ended by
 * CRLF (as wireguard-go reads them), refused for the same reason. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../daemon/uapi_parse.h"
#include "fuzz.h"

static void check_roundtrip(const struct uapi_set *set)
{
	char hex[2 * WG_PUBLIC_KEY_LEN + 1];
	char ep[128];
	uint8_t key[WG_PUBLIC_KEY_LEN];
	union uapi_sockaddr sa;

	if (set->has_private_key) {
		uapi_format_key(hex, set->private_key);
		check(uapi_parse_key(hex, strlen(hex), key), "key reparse");
		check(!memcmp(key, set->private_key, sizeof(key)), "key roundtrip");
	}
	for (size_t i = 0; i < set->n_peers; i++) {
		const struct uapi_peer *p = &set->peers[i];

		if (p->has_endpoint) {
			check(uapi_format_endpoint(ep, sizeof(ep), &p->endpoint.sa),
			      "endpoint format");
			check(uapi_parse_endpoint(ep, strlen(ep), &sa), "endpoint reparse");
			check(sa.sa.sa_family == p->endpoint.sa.sa_family, "endpoint family");
			check(!memcmp(&sa, &p->endpoint, sizeof(sa)), "endpoint roundtrip");
		}
		for (size_t j = 0; j < p->n_allowed_ips; j++) {
			const struct uapi_allowed_ip *a = &p->allowed_ips[j];

			check(a->family == 2 || a->family == 10, "allowed ip family");
			check(a->cidr <= (a->family == 2 ? 32 : 128), "allowed ip cidr");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The same input with every LF made CRLF parses to the same result. */
static void check_crlf(const char *in, size_t size, int want, const struct uapi_set *want_set,
		       const struct uapi_parse_error *want_err)
{
	struct uapi_parse_error err;
	char *crlf;
	size_t n = 0;
	struct uapi_set set;
	int ret;

	if (memchr(in, '\r', size) || size > SIZE_MAX / 2)
		return;
	crlf = malloc(2 * size + 1);
	if (!crlf)
		return;
	for (size_t i = 0; i < size; i++) {
		if (in[i] == '\n')
			crlf[n++] = '\r';
		crlf[n++] = in[i];
	}
	ret = uapi_parse_set(crlf, n, &set, &err);
	check(ret == want, "CRLF result");
	check(err.reason == want_err->reason && err.line == want_err->line, "CRLF error");
	if (!ret) {
		check(set.n_peers == want_set->n_peers, "CRLF peers");
		check(set.has_private_key == want_set->has_private_key, "CRLF private key");
		for (size_t i = 0; i < set.n_peers; i++)
			check(set.peers[i].n_allowed_ips == want_set->peers[i].n_allowed_ips,
			      "CRLF allowed ips");
		uapi_set_free(&set);
	}
	free(crlf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uapi_set set;
	struct uapi_parse_error err;
	/* a private copy: the parser must not read past size */
	char *copy = malloc(size ? size : 1);
	int ret;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	ret = uapi_parse_set(copy, size, &set, &err);
	check_crlf(copy, size, ret, &set, &err);
	if (ret == 0) {
		check_roundtrip(&set);
		uapi_set_free(&set);
	} else {
		check(ret < 0, "error is negative");
		check(set.n_peers == 0 && set.peers == NULL, "empty on error");
		check(err.reason != NULL && err.line >= 1, "error reason and line");
		check(err.key_off + err.key_len <= size &&
			  err.key_off + err.key_len <= err.value_off &&
			  err.value_off + err.value_len <= size,
		      "error within the input");
	}
	free(copy);
	return 0;
}

#ifdef FUZZ_STANDALONE
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		static uint8_t buf[1 << 20];
		size_t n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("fuzz_uapi: %d inputs ok\n", argc - 1);
	return 0;
}
#endif
