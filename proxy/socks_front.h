/* [Socks5]: the front end of a conn that speaks RFC 1928 (socks_proto.h):
 * CONNECT through the conn, UDP ASSOCIATE through socks_udp.h. */
#ifndef ZTP_SOCKS_FRONT_H
#define ZTP_SOCKS_FRONT_H

#include "conn.h"

extern const struct conn_front socks_front;

#endif
