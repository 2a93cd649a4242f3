/* The "set" request parsed whole into a transaction before anything is
 * applied, so a rejected set changes nothing. Pure, for the fuzzer. */
#ifndef ZT_UAPI_PARSE_H
#define ZT_UAPI_PARSE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wg/wg.h"

struct uapi_allowed_ip {
	uint8_t family; /* AF_INET or AF_INET6 */
	uint8_t cidr;
	bool remove; /* "allowed_ip=-prefix": remove this one prefix */
	uint8_t addr[16];
};

union uapi_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
};

struct uapi_peer {
	uint8_t public_key[WG_PUBLIC_KEY_LEN];
	bool remove;
	bool update_only;
	bool replace_allowed_ips;
	bool has_preshared_key;
	bool has_endpoint;
	bool has_keepalive;
	uint16_t keepalive;
	uint8_t preshared_key[WG_SYMMETRIC_KEY_LEN];
	union uapi_sockaddr endpoint;
	size_t n_allowed_ips, cap_allowed_ips;
	struct uapi_allowed_ip *allowed_ips;
};

struct uapi_set {
	bool has_private_key;
	bool has_listen_port;
	bool has_fwmark;
	bool replace_peers;
	uint16_t listen_port;
	uint32_t fwmark;
	uint8_t private_key[WG_PUBLIC_KEY_LEN];
	size_t n_peers, cap_peers;
	struct uapi_peer *peers;
	/* AmneziaWG keys given (NULL: none); checked whole when applied */
	struct wg_obfs_config *obfs;
};

/* Why a set was refused: the line's key and value (offsets into the body). */
struct uapi_parse_error {
	size_t line; /* 1-based */
	size_t key_off, key_len;
	size_t value_off, value_len;
	const char *reason;
};

/* Parses a set's "key=value" lines after "set=1\n". 0, or -EINVAL (bad key
 * or value), -EPROTO (no '='), -ENOMEM: then *out is empty and *err (if not
 * NULL) says where and why. Free *out with uapi_set_free. */
int uapi_parse_set(const char *body, size_t len, struct uapi_set *out,
		   struct uapi_parse_error *err);

void uapi_set_free(struct uapi_set *set);

bool uapi_parse_key(const char *hex, size_t len, uint8_t key[WG_PUBLIC_KEY_LEN]);
void uapi_format_key(char out[2 * WG_PUBLIC_KEY_LEN + 1], const uint8_t key[WG_PUBLIC_KEY_LEN]);
/* "1.2.3.4:51820", "[::1]:51820", "[fe80::1%2]:51820" (the zone a number or
 * an interface name; kept as sin6_scope_id) or "[::ffff:1.2.3.4]:51820"
 * (stays AF_INET6); false if invalid. */
bool uapi_parse_endpoint(const char *s, size_t len, union uapi_sockaddr *out);
/* Writes the same forms; returns false if the buffer is too small. */
bool uapi_format_endpoint(char *out, size_t size, const struct sockaddr *sa);
/* Strict unsigned decimal, as Go's strconv.ParseUint with base 10. */
bool uapi_parse_uint(const char *s, size_t len, uint64_t max, uint64_t *out);
/* An address literal: its family, and 4 or 16 bytes at addr. */
bool uapi_parse_ip(const char *s, size_t len, sa_family_t *family, void *addr);
/* "address/length" (an allowed_ip); with host_default a bare address too,
 * as a host prefix (/32, /128). */
bool uapi_parse_prefix(const char *s, size_t len, bool host_default, sa_family_t *family,
		       void *addr, uint8_t *cidr);
/* inet_ntop into out, "?" if it cannot; returns out. */
const char *uapi_format_ip(char out[INET6_ADDRSTRLEN], int family, const void *addr);

#endif
