/* The proxy's event loop: one thread, epoll over the host sockets
 * (listeners, clients, UDP sockets). It runs every handler with lwIP's core
 * lock held, as lwIP runs its callbacks: the two sides of a connection never
 * race. lwIP callbacks never free what an event may still point to: they
 * retire it (loop_retire), and the loop frees it after the batch. */
#ifndef ZTP_LOOP_H
#define ZTP_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct loop;
struct stack;

struct loop_handler {
	void (*fn)(struct loop *l, struct loop_handler *h, uint32_t events);
	struct loop_handler *next_retired;
	void (*free)(struct loop_handler *h);
};

struct loop {
	int epfd;
	int kick_fd;		      /* eventfd: a callback retired something */
	struct loop_handler *retired; /* freed after the current batch */
	uint64_t (*tick)(void *ctx);  /* ms until it wants to run again, UINT64_MAX: never */
	void *tick_ctx;
	/* its core lock around each batch of events (stack_lock: what lwIP
	 * sends meanwhile goes out as one batch at the unlock) */
	struct stack *stack;
};

int loop_init(struct loop *l);
/* fd's events go to h (EPOLL* bits); mod changes them; del is implied by close. */
int loop_add(struct loop *l, int fd, struct loop_handler *h, uint32_t events);
int loop_mod(struct loop *l, int fd, struct loop_handler *h, uint32_t events);
/* Under the core lock: h->free(h) runs after the batch in progress. */
void loop_retire(struct loop *l, struct loop_handler *h);
/* The loop's thread (arg: the loop): runs until the process ends. */
void *loop_run(void *arg);

#endif
