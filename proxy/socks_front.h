/* [Socks5]: the front end of a conn that speaks RFC 1928 (socks_proto.h):
 * CONNECT through the conn, UDP ASSOCIATE through socks_udp.h. */
#ifndef ZTP_SOCKS_FRONT_H
#define ZTP_SOCKS_FRONT_H

struct conn;
struct proxy;
struct proxy_listener;

/* A conn for the accepted host socket fd, or NULL (fd closed). */
struct conn *socks_accepted(struct proxy *px, int fd, const struct proxy_listener *svc);

#endif
