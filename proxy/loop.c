/* The epoll loop (see loop.h). */
#include "loop.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "log.h"
#include "stack.h"

enum { LOOP_BATCH = 64 };

static void loop_kicked(struct loop *l, struct loop_handler *h, uint32_t events)
{
	uint64_t v;

	(void)h;
	(void)events;
	if (read(l->kick_fd, &v, sizeof(v)) < 0)
		return; /* nothing pending: another batch took it */
}

static struct loop_handler kick_handler = {.fn = loop_kicked};

int loop_init(struct loop *l)
{
	memset(l, 0, sizeof(*l));
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0)
		return -errno;
	l->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->kick_fd < 0)
		return -errno;
	return loop_add(l, l->kick_fd, &kick_handler, EPOLLIN);
}

int loop_add(struct loop *l, int fd, struct loop_handler *h, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = h};

	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int loop_mod(struct loop *l, int fd, struct loop_handler *h, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = h};

	return epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
}

void loop_retire(struct loop *l, struct loop_handler *h)
{
	uint64_t one = 1;

	h->next_retired = l->retired;
	l->retired = h;
	if (write(l->kick_fd, &one, sizeof(one)) < 0) {
		/* the counter is non-zero already: the loop wakes anyway */
	}
}

static void loop_reap(struct loop *l)
{
	while (l->retired) {
		struct loop_handler *h = l->retired;

		l->retired = h->next_retired;
		h->free(h);
	}
}

void *loop_run(void *arg)
{
	struct loop *l = arg;
	struct epoll_event ev[LOOP_BATCH];
	int timeout = -1;

	for (;;) {
		int n = epoll_wait(l->epfd, ev, LOOP_BATCH, timeout);

		if (n < 0 && errno != EINTR) {
			log_err("proxy: epoll_wait: %s", strerror(errno));
			return NULL;
		}
		stack_lock(l->stack);
		for (int i = 0; i < n; i++) {
			struct loop_handler *h = ev[i].data.ptr;

			h->fn(l, h, ev[i].events);
		}
		loop_reap(l);
		timeout = -1;
		if (l->tick) {
			uint64_t ms = l->tick(l->tick_ctx);

			if (ms != UINT64_MAX)
				timeout = ms > 60000 ? 60000 : (int)ms;
		}
		stack_unlock(l->stack);
	}
}
