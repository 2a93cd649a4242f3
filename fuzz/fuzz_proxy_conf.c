/* fuzz-sources: proxy/proxy_conf.c daemon/base64.c daemon/uapi_parse.c */
/* The proxy mode's configuration parser (proxy/proxy_conf.c).
 *
 * Input: the file text, then optionally a NUL and the text every WGConfig
 * include reads. Beyond "no crash, no leak": an accepted configuration
 * keeps the rules the parser promises (an [Interface] with an address,
 * peers with AllowedIPs, no unauthenticated proxy on a non-loopback
 * address unless allowed), and a refused one has a "FILE:LINE: " message
 * and nothing allocated. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../daemon/uapi_parse.h"
#include "../proxy/proxy_conf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const uint8_t *text;
	size_t len;
	bool present;
};

static int read_include(void *ctx, const char *path, char **text, size_t *len)
{
	const struct input *in = ctx;

	if (!in->present || !path[0])
		return -2; /* -ENOENT */
	*text = malloc(in->len ? in->len : 1);
	if (!*text)
		return -12;
	memcpy(*text, in->text, in->len);
	*len = in->len;
	return 0;
}

/* Address literals resolve (to a fixed address), names do not. */
static int resolve(void *ctx, const struct proxy_peer *p, union uapi_sockaddr *out)
{
	(void)ctx;
	memset(out, 0, sizeof(*out));
	out->in4.sin_family = AF_INET;
	return p->endpoint.is_ip ? 0 : -1;
}

/* The conf as a UAPI set: every peer and prefix in it, with its keys; no
 * key and no peer left in the conf. */
static void check_take_set(struct proxy_conf *c)
{
	uint8_t priv[PROXY_KEY_LEN], zero[PROXY_KEY_LEN] = {0};
	size_t n_peers = c->n_peers, n_allowed = c->peers[n_peers - 1].set.n_allowed_ips;
	bool named = false;
	struct uapi_set set;
	int ret;

	for (size_t i = 0; i < n_peers; i++)
		named |= c->peers[i].set.has_endpoint && !c->peers[i].endpoint.is_ip;
	memcpy(priv, c->iface.private_key, sizeof(priv));
	ret = proxy_conf_take_set(c, resolve, NULL, &set);
	check(ret == (named ? -1 : 0), "take_set result");
	check(!c->peers && !c->n_peers && !memcmp(c->iface.private_key, zero, sizeof(zero)),
	      "keys left in the conf");
	if (ret) {
		check(!set.peers && !set.n_peers, "set left after a failure");
		return;
	}
	check(set.n_peers == n_peers && !memcmp(set.private_key, priv, sizeof(priv)), "set");
	check(set.peers[n_peers - 1].n_allowed_ips == n_allowed, "set prefixes");
	uapi_set_free(&set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t main_len = nul ? (size_t)(nul - data) : size;
	struct input inc = {nul ? nul + 1 : NULL, nul ? size - main_len - 1 : 0, nul != NULL};
	/* the text gets its own allocation so ASan sees any overread */
	char *text = malloc(main_len ? main_len : 1);
	char err[PROXY_CONF_ERR_LEN];
	struct proxy_conf c;

	if (!text)
		return 0;
	memcpy(text, data, main_len);
	if (proxy_conf_parse("dir/f.conf", text, main_len, read_include, &inc, &c, err,
			     sizeof(err)) == 0) {
		check(err[0] == '\0', "error text on success");
		check(c.iface.n_addrs >= 1 && c.iface.n_addrs <= PROXY_CONF_MAX_ADDRS, "addresses");
		check(c.iface.mtu >= PROXY_MIN_MTU && c.iface.mtu <= PROXY_MAX_MTU, "mtu");
		check(c.n_peers >= 1 && c.n_peers <= PROXY_CONF_MAX_PEERS, "peers");
		for (size_t i = 0; i < c.n_peers; i++)
			check(c.peers[i].set.n_allowed_ips >= 1 &&
				  c.peers[i].set.n_allowed_ips <= PROXY_CONF_MAX_ALLOWED,
			      "allowed ips");
		for (size_t i = 0; i < c.n_listeners; i++) {
			const struct proxy_listener *l = &c.listeners[i];

			if (l->kind == PROXY_TCP_SERVER) {
				check(l->listen_port != 0, "listen port");
			} else {
				check(l->bind.is_ip && l->bind.port != 0, "bind");
			}
			if (l->kind != PROXY_SOCKS5 && l->kind != PROXY_HTTP)
				check(l->target.port != 0 && l->target.host[0], "target");
			if ((l->kind == PROXY_SOCKS5 || l->kind == PROXY_HTTP) && !l->has_auth &&
			    !l->allow_unauthenticated)
				check(proxy_ip_is_loopback(&l->bind.ip), "open proxy accepted");
			if (l->has_auth)
				check(l->username[0] && l->password[0], "empty credentials");
		}
		check_take_set(&c);
		proxy_conf_free(&c);
	} else {
		check(!strncmp(err, "dir/f.conf:", 11) || !strncmp(err, "dir/", 4) ||
			  strchr(err, ':') != NULL,
		      "error without FILE:LINE");
		check(strlen(err) < sizeof(err), "error not terminated");
		check(c.peers == NULL && c.listeners == NULL, "left allocated after an error");
	}
	free(text);
	return 0;
}
