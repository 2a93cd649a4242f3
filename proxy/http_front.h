/* [http]: the front end of a conn that reads an HTTP proxy request
 * (http_proto.h): CONNECT, or a plain request forwarded in origin form. */
#ifndef ZTP_HTTP_FRONT_H
#define ZTP_HTTP_FRONT_H

struct conn;
struct proxy;
struct proxy_listener;

/* A conn for the accepted host socket fd, or NULL (fd closed). */
struct conn *http_accepted(struct proxy *px, int fd, const struct proxy_listener *svc);

#endif
