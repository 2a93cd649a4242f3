/* [http]: the front end of a conn that reads an HTTP proxy request
 * (http_proto.h): CONNECT, or a plain request forwarded in origin form. */
#ifndef ZTP_HTTP_FRONT_H
#define ZTP_HTTP_FRONT_H

#include "conn.h"

extern const struct conn_front http_front;

#endif
