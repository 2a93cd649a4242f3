/* [STDIOTunnel] (stdio_tunnel.h). */
#include "stdio_tunnel.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "forward.h"
#include "proxy.h"

enum { STDIO_CHUNK = 16384 };

struct pump {
	int from, to;
	bool to_socket; /* at the end: a FIN to the tunnel, else stdout closes */
};

static struct {
	const struct proxy_listener *svc;
	int fd; /* the connection's end, until stdio_tunnel_start */
	struct pump in, out;
} st;

static bool write_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno != EINTR)
			return false;
		if (w > 0) {
			b += w;
			n -= (size_t)w;
		}
	}
	return true;
}

static void *pump(void *arg)
{
	struct pump *p = arg;
	char buf[STDIO_CHUNK];

	for (;;) {
		ssize_t r = read(p->from, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || !write_all(p->to, buf, (size_t)r))
			break;
	}
	if (p->to_socket)
		shutdown(p->to, SHUT_WR);
	else
		close(p->to);
	return NULL;
}

int stdio_tunnel_open(const struct proxy_listener *svc)
{
	struct pump *pumps[] = {&st.in, &st.out};
	int sv[2], ret = 0;
	pthread_t t;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	st.svc = svc;
	st.fd = sv[0];
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	st.in = (struct pump){.from = STDIN_FILENO, .to = sv[1], .to_socket = true};
	st.out = (struct pump){.from = sv[1], .to = STDOUT_FILENO};
	/* they end with the process, or before it */
	for (int i = 0; i < 2 && !ret; i++)
		if (!(ret = pthread_create(&t, NULL, pump, pumps[i])))
			pthread_detach(t);
	return -ret;
}

void stdio_tunnel_start(struct proxy *px)
{
	if (!st.svc)
		return;
	stack_lock(&px->stack);
	conn_new(px, st.fd, &forward_front, st.svc);
	stack_unlock(&px->stack);
}
