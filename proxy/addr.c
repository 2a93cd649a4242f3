/* Address conversions and refused destinations (see addr.h). */
#include "addr.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "proxy.h"

void proxy_ip_to_lwip(const struct proxy_ip *in, ip_addr_t *out)
{
	if (in->family == AF_INET6) {
		IP_ADDR6(out, 0, 0, 0, 0);
		memcpy(ip_2_ip6(out)->addr, &in->in6, sizeof(in->in6));
		ip6_addr_clear_zone(ip_2_ip6(out));
	} else {
		IP_ADDR4(out, 0, 0, 0, 0);
		ip_2_ip4(out)->addr = in->in4.s_addr;
	}
}

int proxy_bind(const struct proxy_hostport *hp, int type)
{
	bool v6 = hp->ip.family == AF_INET6, stream = type == SOCK_STREAM;
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons(hp->port)};
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons(hp->port)};
	int one = 1, fd = socket(v6 ? AF_INET6 : AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	s6.sin6_addr = hp->ip.in6;
	s4.sin_addr = hp->ip.in4;
	if (stream) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (v6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	}
	if (!bind(fd, v6 ? (struct sockaddr *)&s6 : (struct sockaddr *)&s4,
		  v6 ? sizeof(s6) : sizeof(s4)) &&
	    (!stream || !listen(fd, PROXY_CONNECT_BACKLOG)))
		return fd;
	one = -errno;
	close(fd);
	return one;
}

void addr_from_sockaddr(const struct sockaddr_storage *ss, ip_addr_t *ip, uint16_t *port)
{
	struct proxy_ip p = {.family = ss->ss_family};

	if (ss->ss_family == AF_INET6) {
		p.in6 = ((const struct sockaddr_in6 *)ss)->sin6_addr;
		*port = ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	} else {
		p.in4 = ((const struct sockaddr_in *)ss)->sin_addr;
		*port = ntohs(((const struct sockaddr_in *)ss)->sin_port);
	}
	proxy_ip_to_lwip(&p, ip);
}

bool addr_from_socks(const struct socks5_addr *in, ip_addr_t *out)
{
	struct proxy_ip p = {.family = AF_INET};

	if (in->atyp == SOCKS5_ATYP_DOMAIN)
		return ipaddr_aton(in->domain, out);
	if (in->atyp == SOCKS5_ATYP_IPV6) {
		p.family = AF_INET6;
		memcpy(&p.in6, in->ipv6, sizeof(in->ipv6));
	} else {
		memcpy(&p.in4, in->ipv4, sizeof(in->ipv4));
	}
	proxy_ip_to_lwip(&p, out);
	return true;
}

void addr_to_socks(const ip_addr_t *ip, uint16_t port, struct socks5_addr *out)
{
	out->port = port;
	if (IP_IS_V6(ip)) {
		out->atyp = SOCKS5_ATYP_IPV6;
		memcpy(out->ipv6, ip_2_ip6(ip)->addr, sizeof(out->ipv6));
	} else {
		out->atyp = SOCKS5_ATYP_IPV4;
		memcpy(out->ipv4, &ip_2_ip4(ip)->addr, sizeof(out->ipv4));
	}
}

bool addr_forbidden(const struct proxy_interface *ifc, const ip_addr_t *ip)
{
	const ip6_addr_t *a6 = ip_2_ip6(ip);
	struct proxy_ip p = {.family = AF_INET};

	if (!IP_IS_V6(ip)) {
		p.in4.s_addr = ip_2_ip4(ip)->addr;
	} else if (ip6_addr_isipv4mappedipv6(a6)) {
		p.in4.s_addr = a6->addr[3]; /* its IPv4 form */
	} else {
		if (ip6_addr_isany(a6))
			return true;
		p.family = AF_INET6;
		memcpy(&p.in6, a6->addr, sizeof(p.in6));
	}
	if (proxy_ip_is_loopback(&p) || (p.family == AF_INET && !((uint8_t *)&p.in4)[0]))
		return true; /* 127/8, ::1, 0/8 */
	for (size_t i = 0; i < ifc->n_addrs; i++)
		if (proxy_ip_equal(&ifc->addrs[i].ip, &p))
			return true;
	return false;
}
