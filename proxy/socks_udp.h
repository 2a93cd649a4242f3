/* SOCKS5 UDP ASSOCIATE: a relay socket per association, its datagrams
 * carrying RFC 1928's header. It takes datagrams only from the TCP
 * client's address (and from the address and port the client declared in
 * its request, where not zero), and ends with the TCP connection. */
#ifndef ZTP_SOCKS_UDP_H
#define ZTP_SOCKS_UDP_H

struct conn;
struct socks5_addr;
struct socks_udp;

/* Opens the relay for the conn c, whose client declared it sends from
 * from, and sends c its reply. 0, or -1 (nothing sent). */
int socks_udp_open(struct conn *c, const struct socks5_addr *from, struct socks_udp **out);
void socks_udp_close(struct socks_udp *r);

#endif
