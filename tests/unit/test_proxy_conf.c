// SPDX-License-Identifier: MIT
/* The proxy mode's configuration parser (proxy/proxy_conf.c): wireproxy's
 * format read right, and every kind of error reported as "FILE:LINE: what"
 * with its stable wording (base64 itself: test_base64). */
#include "test.h"

#include <sodium.h>

#include "../../daemon/base64.c"
#include "../../daemon/uapi_parse.c"

/* libsodium's encoder writes the keys of the test files */
static size_t b64enc(const uint8_t *in, size_t n, char *out, size_t cap)
{
	sodium_bin2base64(out, cap, in, n, sodium_base64_VARIANT_ORIGINAL);
	return strlen(out);
}
#include "../../proxy/proxy_conf.c"

#include <arpa/inet.h>

#define K1 "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
#define K2 "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8="
#define K3 "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8="
#define K4 "YGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn8="

/* [Interface] and one [Peer]: lines 1-6 */
#define WG_PART                                                                                    \
	"[Interface]\n"                                                                            \
	"PrivateKey = " K1 "\n"                                                                    \
	"Address = 10.0.0.2/32\n"                                                                  \
	"[Peer]\n"                                                                                 \
	"PublicKey = " K2 "\n"                                                                     \
	"Endpoint = 192.0.2.1:51820\n"

/* In-memory files for WGConfig. */
struct files {
	const char *path[4];
	const char *text[4];
	char asked[256]; /* the last path asked for */
};

static int read_file(void *ctx, const char *path, char **text, size_t *len)
{
	struct files *f = ctx;

	snprintf(f->asked, sizeof(f->asked), "%s", path);
	for (int i = 0; i < 4 && f->path[i]; i++) {
		if (strcmp(path, f->path[i]))
			continue;
		*len = strlen(f->text[i]);
		*text = malloc(*len + 1);
		if (!*text)
			return -ENOMEM;
		memcpy(*text, f->text[i], *len);
		return 0;
	}
	return -ENOENT;
}

static int parse(const char *text, struct proxy_conf *c, char *err)
{
	return proxy_conf_parse("t.conf", text, strlen(text), read_file, NULL, c, err,
				PROXY_CONF_ERR_LEN);
}

static bool is_ip4(const struct proxy_ip *ip, const char *text)
{
	struct in_addr a;

	return ip->family == AF_INET && inet_pton(AF_INET, text, &a) == 1 &&
	       a.s_addr == ip->in4.s_addr;
}

static bool is_ip6(const struct proxy_ip *ip, const char *text)
{
	struct in6_addr a;

	return ip->family == AF_INET6 && inet_pton(AF_INET6, text, &a) == 1 &&
	       !memcmp(&a, &ip->in6, sizeof(a));
}

/* An AllowedIPs prefix: its address as text, and cidr. */
static bool is_allowed(const struct uapi_allowed_ip *a, const char *text, int cidr)
{
	uint8_t b[16] = {0};
	int family = strchr(text, ':') ? AF_INET6 : AF_INET;

	return a->family == family && inet_pton(family, text, b) == 1 && !memcmp(a->addr, b, 16) &&
	       a->cidr == cidr;
}

static void key_bytes(uint8_t k[32], int first)
{
	for (int i = 0; i < 32; i++)
		k[i] = (uint8_t)(first + i);
}

static const char full[] = "# a comment\n"
			   "; another\n"
			   "[Interface]\n"
			   "privatekey = " K1 "   # the private key\n"
			   "Address = 10.200.200.2/32, fd00::2\n"
			   "Address = 10.9.0.1\n"
			   "DNS = 10.200.200.1,2001:db8::53\n"
			   "MTU = 1380\n"
			   "ListenPort = 51000\n"
			   "\n"
			   "[Peer]\n"
			   "PublicKey = " K2 "\n"
			   "PreSharedKey = " K3 "\n"
			   "Endpoint = vpn.example.com:51820\n"
			   "AllowedIPs = 10.200.200.0/24\n"
			   "AllowedIPs = fd00::/64, 192.168.7.0/24\n"
			   "PersistentKeepalive = 25\n"
			   "[peer]\n"
			   "PublicKey = " K4 "\n"
			   "Endpoint = [2001:db8::1]:4500\n"
			   "AllowedIPs = 0.0.0.0/0\n"
			   "PersistentKeepalive = off\n"
			   "[Socks5]\n"
			   "BindAddress = :1080\n"
			   "[SOCKS5]\n"
			   "BindAddress = 0.0.0.0:1081\n"
			   "Username = alice\n"
			   "Password = \"p#ss; word\"\n"
			   "[http]\n"
			   "BindAddress = [::]:3128\n"
			   "AllowUnauthenticated = true\n"
			   "[TCPClientTunnel]\n"
			   "BindAddress = 127.0.0.1:25565\n"
			   "Target = play.example.net:25565\n"
			   "[TCPServerTunnel]\n"
			   "ListenPort = 3422\n"
			   "Target = localhost:25545\n"
			   "[UDPProxyTunnel]\n"
			   "BindAddress = 5353\n"
			   "Target = 10.200.200.1:53\n"
			   "InactivityTimeout = 30\n"
			   "[tcpclienttunnel]\n"
			   "bindaddress = localhost:8080\n"
			   "target = [fd00::80]:80\n";

static void test_full(void)
{
	struct proxy_conf c;
	char err[PROXY_CONF_ERR_LEN];
	uint8_t k[32];

	CHECK(parse(full, &c, err) == 0);
	if (err[0])
		fprintf(stderr, "unexpected: %s\n", err);
	key_bytes(k, 0);
	CHECK(!memcmp(c.iface.private_key, k, 32));
	CHECK(c.iface.n_addrs == 3);
	CHECK(is_ip4(&c.iface.addrs[0].ip, "10.200.200.2") && c.iface.addrs[0].cidr == 32);
	CHECK(is_ip6(&c.iface.addrs[1].ip, "fd00::2") && c.iface.addrs[1].cidr == 128);
	CHECK(is_ip4(&c.iface.addrs[2].ip, "10.9.0.1") && c.iface.addrs[2].cidr == 32);
	CHECK(c.iface.n_dns == 2 && is_ip4(&c.iface.dns[0], "10.200.200.1") &&
	      is_ip6(&c.iface.dns[1], "2001:db8::53"));
	CHECK(c.iface.mtu == 1380 && c.iface.listen_port == 51000);

	CHECK(c.n_peers == 2);
	key_bytes(k, 32);
	CHECK(!memcmp(c.peers[0].set.public_key, k, 32));
	key_bytes(k, 64);
	CHECK(c.peers[0].set.has_preshared_key && !memcmp(c.peers[0].set.preshared_key, k, 32));
	CHECK(c.peers[0].set.has_endpoint && !strcmp(c.peers[0].endpoint.host, "vpn.example.com") &&
	      !c.peers[0].endpoint.is_ip && c.peers[0].endpoint.port == 51820);
	CHECK(c.peers[0].set.n_allowed_ips == 3 && c.peers[0].set.allowed_ips[0].cidr == 24 &&
	      is_allowed(&c.peers[0].set.allowed_ips[1], "fd00::", 64) &&
	      is_allowed(&c.peers[0].set.allowed_ips[2], "192.168.7.0", 24));
	CHECK(c.peers[0].set.keepalive == 25 && c.peers[0].line == 11);
	CHECK(!c.peers[1].set.has_preshared_key && c.peers[1].set.keepalive == 0);
	CHECK(c.peers[1].endpoint.is_ip && is_ip6(&c.peers[1].endpoint.ip, "2001:db8::1") &&
	      !strcmp(c.peers[1].endpoint.host, "2001:db8::1") && c.peers[1].endpoint.port == 4500);

	CHECK(c.n_listeners == 7);
	const struct proxy_listener *l = c.listeners;
	CHECK(l[0].kind == PROXY_SOCKS5 && is_ip4(&l[0].bind.ip, "127.0.0.1") &&
	      l[0].bind.port == 1080 && !l[0].has_auth && l[0].line == 23);
	CHECK(l[1].kind == PROXY_SOCKS5 && is_ip4(&l[1].bind.ip, "0.0.0.0") && l[1].has_auth &&
	      !strcmp(l[1].username, "alice") && !strcmp(l[1].password, "p#ss; word"));
	CHECK(l[2].kind == PROXY_HTTP && is_ip6(&l[2].bind.ip, "::") && l[2].bind.port == 3128 &&
	      l[2].allow_unauthenticated);
	CHECK(l[3].kind == PROXY_TCP_CLIENT && l[3].bind.port == 25565 &&
	      !strcmp(l[3].target.host, "play.example.net") && l[3].target.port == 25565);
	CHECK(l[4].kind == PROXY_TCP_SERVER && l[4].listen_port == 3422 &&
	      !strcmp(l[4].target.host, "localhost") && !l[4].target.is_ip);
	CHECK(l[5].kind == PROXY_UDP && is_ip4(&l[5].bind.ip, "127.0.0.1") &&
	      l[5].bind.port == 5353 && l[5].target.is_ip &&
	      is_ip4(&l[5].target.ip, "10.200.200.1") && l[5].inactivity_timeout == 30);
	CHECK(l[6].kind == PROXY_TCP_CLIENT && is_ip4(&l[6].bind.ip, "127.0.0.1") &&
	      l[6].bind.port == 8080 && is_ip6(&l[6].target.ip, "fd00::80"));
	proxy_conf_free(&c);
	CHECK(c.peers == NULL && c.listeners == NULL && c.n_peers == 0);
	for (size_t i = 0; i < sizeof(c.iface.private_key); i++)
		CHECK(c.iface.private_key[i] == 0);
}

static void test_defaults(void)
{
	struct proxy_conf c;
	char err[PROXY_CONF_ERR_LEN];

	/* CRLF line ends, no final newline */
	CHECK(parse("[Interface]\r\nPrivateKey = " K1 "\r\nAddress = 10.0.0.2\r\n"
		    "[Peer]\r\nPublicKey = " K2,
		    &c, err) == 0);
	CHECK(c.iface.mtu == PROXY_DEFAULT_MTU && c.iface.listen_port == 0 && c.iface.n_dns == 0);
	/* the only peer, without AllowedIPs: everything */
	CHECK(c.n_peers == 1 && c.peers[0].set.n_allowed_ips == 2 && !c.peers[0].set.has_endpoint);
	CHECK(is_allowed(&c.peers[0].set.allowed_ips[0], "0.0.0.0", 0));
	CHECK(is_allowed(&c.peers[0].set.allowed_ips[1], "::", 0));
	CHECK(c.n_listeners == 0);
	proxy_conf_free(&c);

	/* bind forms, loopback rule satisfied in several ways */
	CHECK(parse(WG_PART "[Socks5]\nBindAddress = 1080\n"
			    "[http]\nBindAddress = [::1]:8080\n"
			    "[http]\nBindAddress = 127.1.2.3:8081\n"
			    "[Socks5]\nBindAddress = 10.1.1.1:1080\nUsername = u\nPassword = p\n"
			    "[Socks5]\nBindAddress = 10.1.1.1:1081\nAllowUnauthenticated = yes\n"
			    "[TCPClientTunnel]\nBindAddress = 0.0.0.0:9000\nTarget = a.b:1\n"
			    "[UDPProxyTunnel]\nBindAddress = 0.0.0.0:1080\nTarget = c:53\n",
		    &c, err) == 0);
	if (c.n_listeners == 7) {
		CHECK(is_ip4(&c.listeners[0].bind.ip, "127.0.0.1") &&
		      c.listeners[0].bind.port == 1080);
		CHECK(is_ip6(&c.listeners[1].bind.ip, "::1"));
		CHECK(c.listeners[4].allow_unauthenticated);
		CHECK(c.listeners[6].inactivity_timeout == 0);
	} else {
		CHECK(!"seven listeners");
	}
	proxy_conf_free(&c);
	CHECK(parse(WG_PART "[Socks5]\nBindAddress = 1080\nAllowUnauthenticated = false\n", &c,
		    err) == 0);
	proxy_conf_free(&c);

	struct proxy_ip ip = {.family = AF_INET6};
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &ip.in6);
	CHECK(proxy_ip_is_loopback(&ip));
	inet_pton(AF_INET6, "::ffff:10.0.0.1", &ip.in6);
	CHECK(!proxy_ip_is_loopback(&ip));
	inet_pton(AF_INET6, "::2", &ip.in6);
	CHECK(!proxy_ip_is_loopback(&ip));
}

static void test_wgconfig(void)
{
	struct files f = {
	    .path = {"/etc/zt/wg0.conf", "/abs/wg1.conf", "/etc/zt/bad.conf", "/etc/zt/nest.conf"},
	    .text = {"[Interface]\nPrivateKey = " K1 "\nAddress = 10.0.0.2/32\n"
		     "PostUp = iptables -A foo\nTable = off\nFwMark = 0x10\n"
		     "[Peer]\nPublicKey = " K2 "\nAllowedIPs = 10.0.0.0/8\n",
		     "[Interface]\nPrivateKey = " K3 "\nAddress = fd00::9\n[Peer]\nPublicKey = " K4
		     "\n",
		     "[Interface]\nPrivateKey = " K1 "\nAddress = 10.0.0.2/32\n[Socks5]\n",
		     "WGConfig = wg0.conf\n"},
	};
	struct proxy_conf c;
	char err[PROXY_CONF_ERR_LEN];
	const char *text = "# wireproxy\nWGConfig = wg0.conf\n[Socks5]\nBindAddress = 1080\n";
	uint8_t k[32];

	CHECK(proxy_conf_parse("/etc/zt/proxy.conf", text, strlen(text), read_file, &f, &c, err,
			       sizeof(err)) == 0);
	CHECK(!strcmp(f.asked, "/etc/zt/wg0.conf"));
	key_bytes(k, 0);
	CHECK(!memcmp(c.iface.private_key, k, 32) && c.n_peers == 1 &&
	      c.peers[0].set.n_allowed_ips == 1 && c.n_listeners == 1);
	proxy_conf_free(&c);

	text = "WGConfig = /abs/wg1.conf\n";
	CHECK(proxy_conf_parse("rel/proxy.conf", text, strlen(text), read_file, &f, &c, err,
			       sizeof(err)) == 0);
	key_bytes(k, 64);
	CHECK(!memcmp(c.iface.private_key, k, 32) && c.iface.addrs[0].ip.family == AF_INET6);
	proxy_conf_free(&c);

	/* a file name without a directory: the path as written */
	text = "WGConfig = \"wg9.conf\"\n";
	CHECK(proxy_conf_parse("proxy.conf", text, strlen(text), read_file, &f, &c, err,
			       sizeof(err)) == -1);
	CHECK(!strcmp(f.asked, "wg9.conf"));
	CHECK(
	    !strcmp(err, "proxy.conf:1: cannot read WGConfig wg9.conf: No such file or directory"));

	/* errors inside the included file name it */
	text = "WGConfig = bad.conf\n";
	CHECK(proxy_conf_parse("/etc/zt/p.conf", text, strlen(text), read_file, &f, &c, err,
			       sizeof(err)) == -1);
	CHECK(!strcmp(err, "/etc/zt/bad.conf:4: [Socks5] is not allowed in a WGConfig file"));
	text = "WGConfig = nest.conf\n";
	CHECK(proxy_conf_parse("/etc/zt/p.conf", text, strlen(text), read_file, &f, &c, err,
			       sizeof(err)) == -1);
	CHECK(!strcmp(err, "/etc/zt/nest.conf:1: WGConfig inside a WGConfig file"));
	text = "WGConfig = wg0.conf\n[Interface]\n";
	CHECK(proxy_conf_parse("/etc/zt/p.conf", text, strlen(text), read_file, &f, &c, err,
			       sizeof(err)) == -1);
	CHECK(!strcmp(err, "/etc/zt/p.conf:2: [Interface] belongs in the WGConfig file, not here"));
	text = "WGConfig = wg0.conf\n[Peer]\n";
	CHECK(proxy_conf_parse("/etc/zt/p.conf", text, strlen(text), read_file, &f, &c, err,
			       sizeof(err)) == -1);
	CHECK(!strcmp(err, "/etc/zt/p.conf:2: [Peer] belongs in the WGConfig file, not here"));
	text = "WGConfig = wg0.conf\nWGConfig = wg0.conf\n";
	CHECK(proxy_conf_parse("/etc/zt/p.conf", text, strlen(text), read_file, &f, &c, err,
			       sizeof(err)) == -1);
	CHECK(!strcmp(err, "/etc/zt/p.conf:2: WGConfig given twice"));
	text = "WGConfig = wg0.conf\n";
	CHECK(proxy_conf_parse("/etc/zt/p.conf", text, strlen(text), NULL, NULL, &c, err,
			       sizeof(err)) == -1);
	CHECK(!strcmp(err, "/etc/zt/p.conf:1: WGConfig is not supported here"));
	/* wg-quick's own keys are for wg-quick files only */
	CHECK(parse("[Interface]\nPostUp = true\n", &c, err) == -1);
	CHECK(!strcmp(err, "t.conf:2: unknown key PostUp in [Interface]"));
}

struct bad {
	const char *text;
	const char *err;
};

static const struct bad bad[] = {
    /* lines and sections */
    {"[Interface\n", "t.conf:1: bad section header (no closing ']')"},
    {"[Interface] x\n", "t.conf:1: text after the section header"},
    {"[Interface] # fine\n[Wat]\n", "t.conf:2: unknown section [Wat]"},
    {"[]\n", "t.conf:1: unknown section []"},
    {"[Interface]\nPrivateKey\n", "t.conf:2: expected Key = Value"},
    {"[Interface]\n = 5\n", "t.conf:2: expected Key = Value"},
    {"[Socks5]\nPassword = \"abc\n", "t.conf:2: unterminated quoted value"},
    {"[Socks5]\nPassword = \"abc\" x\n", "t.conf:2: text after the quoted value"},
    {"PrivateKey = " K1 "\n", "t.conf:1: key PrivateKey outside a section"},
    {"[Socks5]\nWGConfig = x\n", "t.conf:2: WGConfig must come before the first section"},
    {"[Interface]\nMTU = \x1b[2J\tx\n", "t.conf:2: bad MTU '?[2J?x' (576..65455)"},
    {"[Interface]\nListenPort = 1\nCheckAlives = 1.1.1.1\n",
     "t.conf:3: unknown key CheckAlives in [Interface]"},
    {"[Interface]\nCheckAlive = 1.1.1.1, host.example\n",
     "t.conf:2: bad CheckAlive 'host.example' (an IP address)"},
    {"[Interface]\nCheckAliveInterval = 0\n",
     "t.conf:2: bad CheckAliveInterval '0' (seconds, 1..65535)"},
    {"[STDIOTunnel]\nTarget = a:22\n[STDIOTunnel]\nTarget = b:22\n",
     "t.conf:3: [STDIOTunnel] given twice (first on line 1)"},
    {"[STDIOTunnel]\nBindAddress = 1\n", "t.conf:2: unknown key BindAddress in [STDIOTunnel]"},
    {"[STDIOTunnel]\n[Socks5]\n", "t.conf:1: [STDIOTunnel] has no Target"},
    {"[Socks5]\nTarget = a:1\n", "t.conf:2: unknown key Target in [Socks5]"},
    {"[TCPServerTunnel]\nBindAddress = 1\n",
     "t.conf:2: unknown key BindAddress in [TCPServerTunnel]"},
    {"[Interface]\nMTU = 1400\nmtu = 1400\n", "t.conf:3: MTU given twice in [Interface]"},
    {"[Socks5]\nUsername = a\nUSERNAME = b\n", "t.conf:3: Username given twice in [Socks5]"},
    {"[Interface]\nDNS =\n", "t.conf:2: DNS has an empty value"},
    {"[Socks5]\nPassword = # only a comment\n", "t.conf:2: Password has an empty value"},
    {"[Interface]\n[Interface]\n", "t.conf:1: [Interface] has no PrivateKey"},
    {"[Interface]\nPrivateKey = " K1 "\nAddress = 10.0.0.1\n[Interface]\n",
     "t.conf:4: [Interface] given twice (first on line 1)"},
    /* values */
    {"[Interface]\nPrivateKey = abc\n", "t.conf:2: bad PrivateKey (not a base64 32-byte key)"},
    {"[Peer]\nPublicKey = " K1 "x\n", "t.conf:2: bad PublicKey (not a base64 32-byte key)"},
    {"[Peer]\nPresharedKey = =\n", "t.conf:2: bad PresharedKey (not a base64 32-byte key)"},
    {"[Interface]\nAddress = 10.0.0.1, 10.0.0.300\n",
     "t.conf:2: bad Address '10.0.0.300' (an IP address, /prefix optional)"},
    {"[Interface]\nAddress = 10.0.0.1/33\n",
     "t.conf:2: bad Address '10.0.0.1/33' (an IP address, /prefix optional)"},
    {"[Interface]\nAddress = 10.0.0.1,\n",
     "t.conf:2: bad Address '' (an IP address, /prefix optional)"},
    {"[Interface]\nAddress = fd00::1/129\n",
     "t.conf:2: bad Address 'fd00::1/129' (an IP address, /prefix optional)"},
    {"[Interface]\nDNS = 1.1.1.1, dns.example\n",
     "t.conf:2: bad DNS 'dns.example' (an IP address)"},
    {"[Interface]\nMTU = 500\n", "t.conf:2: bad MTU '500' (576..65455)"},
    {"[Interface]\nMTU = 99999\n", "t.conf:2: bad MTU '99999' (576..65455)"},
    {"[Interface]\nMTU = -1\n", "t.conf:2: bad MTU '-1' (576..65455)"},
    {"[Interface]\nListenPort = 65536\n", "t.conf:2: bad ListenPort '65536' (0..65535)"},
    {"[TCPServerTunnel]\nListenPort = 0\n", "t.conf:2: bad ListenPort '0' (1..65535)"},
    {"[Peer]\nEndpoint = 192.0.2.1\n",
     "t.conf:2: bad Endpoint '192.0.2.1' (host:port or [IPv6]:port)"},
    {"[Peer]\nEndpoint = 2001:db8::1:51820\n",
     "t.conf:2: bad Endpoint '2001:db8::1:51820' (host:port or [IPv6]:port)"},
    {"[Peer]\nEndpoint = [10.0.0.1]:1\n",
     "t.conf:2: bad Endpoint '[10.0.0.1]:1' (host:port or [IPv6]:port)"},
    {"[Peer]\nEndpoint = host:0\n", "t.conf:2: bad Endpoint 'host:0' (host:port or [IPv6]:port)"},
    {"[Peer]\nEndpoint = ho st:1\n", "t.conf:2: bad Endpoint 'ho st:1' (host:port or [IPv6]:port)"},
    {"[Peer]\nAllowedIPs = 10.0.0.0/8, 300.0.0.0/8\n",
     "t.conf:2: bad AllowedIPs '300.0.0.0/8' (IP/prefix)"},
    {"[Peer]\nPersistentKeepalive = never\n",
     "t.conf:2: bad PersistentKeepalive 'never' (0..65535 or off)"},
    {"[Socks5]\nBindAddress = example.com:1080\n",
     "t.conf:2: bad BindAddress 'example.com:1080' (IP:port, [IPv6]:port or port)"},
    {"[Socks5]\nBindAddress = :0\n",
     "t.conf:2: bad BindAddress ':0' (IP:port, [IPv6]:port or port)"},
    {"[Socks5]\nBindAddress = 127.0.0.1\n",
     "t.conf:2: bad BindAddress '127.0.0.1' (IP:port, [IPv6]:port or port)"},
    {"[TCPClientTunnel]\nTarget = nohost\n",
     "t.conf:2: bad Target 'nohost' (host:port or [IPv6]:port)"},
    {"[TCPClientTunnel]\nTarget = a:65536\n",
     "t.conf:2: bad Target 'a:65536' (host:port or [IPv6]:port)"},
    {"[UDPProxyTunnel]\nInactivityTimeout = 1.5\n",
     "t.conf:2: bad InactivityTimeout '1.5' (seconds, 0 = never)"},
    {"[UDPProxyTunnel]\nInactivityTimeout = 99999999999\n",
     "t.conf:2: bad InactivityTimeout '99999999999' (seconds, 0 = never)"},
    {"[http]\nAllowUnauthenticated = maybe\n",
     "t.conf:2: bad AllowUnauthenticated 'maybe' (true or false)"},
    /* sections incomplete or in conflict */
    {"[Interface]\nAddress = 10.0.0.1\n[Peer]\n", "t.conf:1: [Interface] has no PrivateKey"},
    {"[Interface]\nPrivateKey = " K1 "\n", "t.conf:1: [Interface] has no Address"},
    {WG_PART "[Peer]\nEndpoint = 1.2.3.4:5\n", "t.conf:7: [Peer] has no PublicKey"},
    {WG_PART "AllowedIPs = 10.0.0.0/8\n[Peer]\nPublicKey = " K2 "\nAllowedIPs = 10.1.0.0/16\n",
     "t.conf:8: [Peer] has the same PublicKey as the one on line 4"},
    {WG_PART "[Socks5]\n", "t.conf:7: [Socks5] has no BindAddress"},
    {WG_PART "[http]\nUsername = u\n", "t.conf:7: [http] has no BindAddress"},
    {WG_PART "[TCPClientTunnel]\nBindAddress = 1\n", "t.conf:7: [TCPClientTunnel] has no Target"},
    {WG_PART "[TCPServerTunnel]\nTarget = a:1\n", "t.conf:7: [TCPServerTunnel] has no ListenPort"},
    {WG_PART "[UDPProxyTunnel]\nBindAddress = 53\n", "t.conf:7: [UDPProxyTunnel] has no Target"},
    {WG_PART "[Socks5]\nBindAddress = 1\nUsername = u\n",
     "t.conf:7: [Socks5] has a Username but no Password"},
    {WG_PART "[http]\nBindAddress = 1\nPassword = p\n",
     "t.conf:7: [http] has a Password but no Username"},
    {WG_PART "[http]\nBindAddress = 1\nUsername = a:b\nPassword = p\n",
     "t.conf:7: [http] Username contains ':', which Basic authentication cannot carry"},
    {WG_PART "[Socks5]\nBindAddress = 0.0.0.0:1080\n",
     "t.conf:7: [Socks5] on 0.0.0.0 port 1080 is not loopback and has no Username and Password"
     " (set AllowUnauthenticated = true to allow it)"},
    {WG_PART "[http]\nBindAddress = [::]:3128\nAllowUnauthenticated = false\n",
     "t.conf:7: [http] on :: port 3128 is not loopback and has no Username and Password"
     " (set AllowUnauthenticated = true to allow it)"},
    {WG_PART "[Socks5]\nBindAddress = 1080\n[http]\nBindAddress = 127.0.0.1:1080\n",
     "t.conf:9: BindAddress 127.0.0.1 port 1080 is also used on line 7"},
    {WG_PART "[TCPServerTunnel]\nListenPort = 80\nTarget = a:1\n"
	     "[TCPServerTunnel]\nListenPort = 80\nTarget = b:1\n",
     "t.conf:10: ListenPort 80 is also used on line 7"},
    {WG_PART "[Socks5]\nUsername = " /* 256 bytes */
	     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
     "t.conf:8: Username longer than 255 bytes"},
    /* the whole configuration */
    {"# nothing\n\n", "t.conf:2: no [Interface] section"},
    {"", "t.conf:1: no [Interface] section"},
    {"[Interface]\nPrivateKey = " K1 "\nAddress = 10.0.0.1\n", "t.conf:3: no [Peer] section"},
    {WG_PART "[Peer]\nPublicKey = " K3 "\nAllowedIPs = 10.0.0.0/8\n",
     "t.conf:4: [Peer] has no AllowedIPs (needed when there is more than one peer)"},
};

static void test_errors(void)
{
	struct proxy_conf c;
	char err[PROXY_CONF_ERR_LEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i].text, &c, err);

		CHECK(rc == -1);
		CHECK(c.peers == NULL && c.listeners == NULL && c.n_peers == 0);
		if (strcmp(err, bad[i].err)) {
			test_failures++;
			fprintf(stderr, "case %zu:\n  got  %s\n  want %s\n", i, err, bad[i].err);
		}
		test_checks++;
	}
}

/* Errors that need big inputs, built here. */
static void test_limits(void)
{
	struct proxy_conf c;
	char err[PROXY_CONF_ERR_LEN], want[PROXY_CONF_ERR_LEN];
	size_t cap = PROXY_CONF_MAX_BYTES + 4096;
	char *t = malloc(cap);
	size_t n;

	if (!t) {
		CHECK(!"malloc");
		return;
	}
	/* a long line */
	n = (size_t)sprintf(t, "[Interface]\n# ");
	memset(t + n, 'x', PROXY_CONF_MAX_LINE);
	t[n + PROXY_CONF_MAX_LINE] = '\0';
	CHECK(parse(t, &c, err) == -1 && !strcmp(err, "t.conf:2: line longer than 4096 bytes"));
	/* a NUL byte */
	static const char nul[] = "[Interface]\nMTU = 14\0"
				  "00\n";
	CHECK(proxy_conf_parse("t.conf", nul, sizeof(nul) - 1, NULL, NULL, &c, err, sizeof(err)) ==
		  -1 &&
	      !strcmp(err, "t.conf:2: NUL byte in the line"));
	/* a big file: the error names its last line */
	memset(t, '\n', PROXY_CONF_MAX_BYTES + 1);
	CHECK(proxy_conf_parse("t.conf", t, PROXY_CONF_MAX_BYTES + 1, NULL, NULL, &c, err,
			       sizeof(err)) == -1);
	snprintf(want, sizeof(want), "t.conf:%d: file larger than 1048576 bytes",
		 PROXY_CONF_MAX_BYTES + 1);
	CHECK(!strcmp(err, want));
	/* too many of a kind */
	n = (size_t)sprintf(t, "[Interface]\n");
	for (int i = 0; i <= PROXY_CONF_MAX_ADDRS; i++)
		n += (size_t)sprintf(t + n, "Address = 10.0.0.%d\n", i);
	CHECK(parse(t, &c, err) == -1 &&
	      !strcmp(err, "t.conf:18: too many Address entries (at most 16)"));
	n = (size_t)sprintf(t, "[Interface]\nDNS = 1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,"
			       "1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1\n");
	CHECK(parse(t, &c, err) == -1 &&
	      !strcmp(err, "t.conf:2: too many DNS entries (at most 8)"));
	n = (size_t)sprintf(t, "[Peer]\n");
	for (int i = 0; i <= PROXY_CONF_MAX_ALLOWED; i++)
		n += (size_t)sprintf(t + n, "AllowedIPs = 10.%d.%d.0/24\n", i >> 8, i & 255);
	CHECK(parse(t, &c, err) == -1 &&
	      !strcmp(err, "t.conf:1026: too many AllowedIPs for one peer (at most 1024)"));
	n = (size_t)sprintf(t, "[Interface]\nPrivateKey = " K1 "\nAddress = 10.0.0.1\n");
	for (int i = 0; i <= PROXY_CONF_MAX_PEERS; i++) {
		uint8_t k[32] = {(uint8_t)i, (uint8_t)(i >> 8), 1};
		char b64[45];
		b64enc(k, 32, b64, sizeof(b64));
		n += (size_t)sprintf(t + n, "[Peer]\nPublicKey = %s\nAllowedIPs = 10.0.0.%d/32\n",
				     b64, i & 255);
	}
	CHECK(parse(t, &c, err) == -1 &&
	      !strcmp(err, "t.conf:772: too many [Peer] sections (at most 256)"));
	n = (size_t)sprintf(t, WG_PART);
	for (int i = 0; i <= PROXY_CONF_MAX_LISTENERS; i++)
		n += (size_t)sprintf(t + n, "[Socks5]\nBindAddress = %d\n", 1000 + i);
	CHECK(parse(t, &c, err) == -1 &&
	      !strcmp(err, "t.conf:519: too many proxy and tunnel sections (at most 256)"));
	/* the most of each is fine */
	n = (size_t)sprintf(t, WG_PART);
	for (int i = 0; i < PROXY_CONF_MAX_ALLOWED; i++)
		n += (size_t)sprintf(t + n, "AllowedIPs = 10.%d.%d.0/24\n", i >> 8, i & 255);
	CHECK(parse(t, &c, err) == 0 && c.peers[0].set.n_allowed_ips == PROXY_CONF_MAX_ALLOWED);
	proxy_conf_free(&c);
	/* a short error buffer is still a terminated string */
	CHECK(proxy_conf_parse("t.conf", "[x]", 3, NULL, NULL, &c, err, 8) == -1 &&
	      !strcmp(err, "t.conf:"));
	free(t);
}

static void test_hostport(void)
{
	struct proxy_hostport hp;

	CHECK(proxy_parse_hostport("a-b_c.d:1", 9, &hp) && !strcmp(hp.host, "a-b_c.d") &&
	      hp.port == 1 && !hp.is_ip);
	CHECK(proxy_parse_hostport("[::1]:65535", 11, &hp) && hp.is_ip && hp.port == 65535);
	CHECK(!proxy_parse_hostport("[::1]", 5, &hp));
	CHECK(!proxy_parse_hostport("[::1]:", 6, &hp));
	CHECK(!proxy_parse_hostport(":80", 3, &hp));
	CHECK(!proxy_parse_hostport("a:+80", 5, &hp));
	CHECK(!proxy_parse_hostport("a:080000", 8, &hp));
	CHECK(!proxy_parse_hostport("", 0, &hp));
}

/* The example file in README.md's "Without root" parses and has every
 * kind of section (make check runs the tests from the top directory). */
static void test_readme_example(void)
{
	FILE *f = fopen("README.md", "r");
	static char text[1 << 16];
	size_t n;
	char *start, *end, err[PROXY_CONF_ERR_LEN];
	struct proxy_conf c;
	bool kinds[PROXY_UDP + 1] = {false};

	CHECK(f != NULL);
	if (!f)
		return;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	start = strstr(text, "## Without root");
	start = start ? strstr(start, "```ini\n") : NULL;
	end = start ? strstr(start + 7, "\n```\n") : NULL;
	CHECK(start && end);
	if (!start || !end)
		return;
	start += 7;
	CHECK(proxy_conf_parse("README.md", start, (size_t)(end - start) + 1, NULL, NULL, &c, err,
			       sizeof(err)) == 0);
	if (err[0])
		fprintf(stderr, "README example: %s\n", err);
	for (size_t i = 0; i < c.n_listeners; i++)
		kinds[c.listeners[i].kind] = true;
	for (int k = 0; k <= PROXY_UDP; k++)
		CHECK(kinds[k]);
	proxy_conf_free(&c);
}

/* wireproxy v1.0.9's CheckAlive, CheckAliveInterval and [STDIOTunnel]. */
static void test_wireproxy_keys(void)
{
	struct proxy_conf c;
	char err[PROXY_CONF_ERR_LEN];
	const char *base = "[Interface]\nPrivateKey = " K1 "\nAddress = 10.0.0.2/32\n"
			   "[Peer]\nPublicKey = " K2 "\n";
	char text[512];

	snprintf(text, sizeof(text), "%s[STDIOTunnel]\nTarget = ssh.example:22\n", base);
	CHECK(parse(text, &c, err) == 0);
	CHECK(c.iface.n_check_alive == 0 && c.iface.check_alive_interval == 5);
	CHECK(c.n_listeners == 1 && c.listeners[0].kind == PROXY_STDIO &&
	      !strcmp(c.listeners[0].target.host, "ssh.example") &&
	      c.listeners[0].target.port == 22);
	proxy_conf_free(&c);
	snprintf(text, sizeof(text),
		 "[Interface]\nPrivateKey = " K1 "\nAddress = 10.0.0.2/32\n"
		 "CheckAlive = 1.1.1.1, fd00::1\nCheckAlive = 3.3.3.3\nCheckAliveInterval = 3\n"
		 "[Peer]\nPublicKey = " K2 "\n");
	CHECK(parse(text, &c, err) == 0);
	CHECK(c.iface.n_check_alive == 3 && c.iface.check_alive_interval == 3);
	CHECK(is_ip4(&c.iface.check_alive[0], "1.1.1.1") &&
	      is_ip6(&c.iface.check_alive[1], "fd00::1"));
	CHECK(is_ip4(&c.iface.check_alive[2], "3.3.3.3"));
	proxy_conf_free(&c);
}

/* A test resolver: the literal's address; "fail.example" does not resolve. */
static int resolve_literal(void *ctx, const struct proxy_peer *p, union uapi_sockaddr *out)
{
	(void)ctx;
	memset(out, 0, sizeof(*out));
	if (!p->endpoint.is_ip)
		return -1;
	out->in4.sin_family = AF_INET;
	out->in4.sin_addr = p->endpoint.ip.in4;
	out->in4.sin_port = htons(p->endpoint.port);
	return 0;
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* The file becomes the set wg(8) would send, and its keys leave the
 * in-memory conf (issue 24: no key kept for the life of the process). */
static void test_take_set(void)
{
	struct proxy_conf c;
	struct uapi_set set;
	char err[PROXY_CONF_ERR_LEN];
	uint8_t k[32];

	CHECK(parse("[Interface]\nPrivateKey = " K1 "\nAddress = 10.0.0.2/32\nListenPort = 4000\n"
		    "[Peer]\nPublicKey = " K2 "\nPresharedKey = " K3 "\n"
		    "Endpoint = 192.0.2.1:51820\nAllowedIPs = 10.0.0.0/8, fd00::/64, 192.0.2.7\n"
		    "PersistentKeepalive = 25\n[Peer]\nPublicKey = " K4 "\nAllowedIPs = ::/0\n",
		    &c, err) == 0);
	CHECK(proxy_conf_take_set(&c, resolve_literal, NULL, &set) == 0);
	key_bytes(k, 0);
	CHECK(set.has_private_key && !memcmp(set.private_key, k, 32));
	CHECK(set.has_listen_port && set.listen_port == 4000 && set.replace_peers);
	CHECK(set.n_peers == 2);
	key_bytes(k, 0x40);
	CHECK(set.peers[0].has_preshared_key && !memcmp(set.peers[0].preshared_key, k, 32));
	CHECK(set.peers[0].has_endpoint && set.peers[0].endpoint.in4.sin_port == htons(51820));
	CHECK(set.peers[0].has_keepalive && set.peers[0].keepalive == 25);
	CHECK(set.peers[0].replace_allowed_ips && set.peers[0].n_allowed_ips == 3);
	CHECK(set.peers[0].allowed_ips[2].family == AF_INET &&
	      set.peers[0].allowed_ips[2].cidr == 32);
	CHECK(set.peers[0].allowed_ips[0].family == AF_INET &&
	      set.peers[0].allowed_ips[0].cidr == 8 && set.peers[0].allowed_ips[0].addr[0] == 10);
	CHECK(set.peers[0].allowed_ips[1].family == AF_INET6 &&
	      set.peers[0].allowed_ips[1].cidr == 64);
	CHECK(!set.peers[1].has_preshared_key && !set.peers[1].has_endpoint);
	/* the conf keeps what lwIP needs, not the keys */
	CHECK(all_zero(c.iface.private_key, sizeof(c.iface.private_key)));
	CHECK(!c.peers && !c.n_peers);
	CHECK(c.iface.n_addrs == 1 && c.iface.listen_port == 4000);
	uapi_set_free(&set);
	CHECK(all_zero(&set, sizeof(set)));
	proxy_conf_free(&c);
	/* without ListenPort the port bound at start stays (no second bind) */
	CHECK(parse("[Interface]\nPrivateKey = " K1 "\nAddress = 10.0.0.2/32\n"
		    "[Peer]\nPublicKey = " K2 "\n",
		    &c, err) == 0);
	CHECK(proxy_conf_take_set(&c, resolve_literal, NULL, &set) == 0 && !set.has_listen_port);
	uapi_set_free(&set);
	proxy_conf_free(&c);

	/* an Endpoint that does not resolve: nothing set, nothing kept */
	CHECK(parse("[Interface]\nPrivateKey = " K1
		    "\nAddress = 10.0.0.2/32\n[Peer]\nPublicKey = " K3
		    "\nEndpoint = fail.example:1\n",
		    &c, err) == 0);
	CHECK(proxy_conf_take_set(&c, resolve_literal, NULL, &set) == -1);
	CHECK(!set.peers && !set.n_peers && !set.has_private_key);
	CHECK(all_zero(c.iface.private_key, sizeof(c.iface.private_key)) && !c.peers);
	proxy_conf_free(&c);
}

int main(void)
{
	test_full();
	test_defaults();
	test_wgconfig();
	test_errors();
	test_limits();
	test_hostport();
	test_readme_example();
	test_take_set();
	test_wireproxy_keys();
	return test_finish("test_proxy_conf");
}
