/* Crypto workers: a fixed pool a data path thread hands slices of its
 * batch to (fork-join); results land by index, so order is kept. */
#ifndef ZT_WORKERS_H
#define ZT_WORKERS_H

#include <pthread.h>
#include <stdbool.h>

typedef void (*wpool_fn)(void *arg, int begin, int end);

struct wtask {
	wpool_fn fn;
	void *arg;
	int begin, end;
	int *pending; /* the caller's counter, under the pool lock */
};

enum { WPOOL_MAX_THREADS = 16, WPOOL_QUEUE = 64 };

/* lock, a leaf, guards q, head, count, stop and each caller's pending
 * count; wpool_run is never called under the engine lock. */
struct wpool {
	pthread_mutex_t lock;
	pthread_cond_t work; /* a task was queued, or stop */
	pthread_cond_t done; /* some caller's counter reached zero */
	struct wtask q[WPOOL_QUEUE];
	int head, count;
	bool stop;
	pthread_t threads[WPOOL_MAX_THREADS];
	int n_threads;
};

/* pthread_create into threads[*n], counted there; 0 or -errno. */
int zt_spawn(pthread_t *threads, int *n, void *(*fn)(void *), void *arg);

/* n threads (0 runs everything inline). */
int wpool_start(struct wpool *p, int n);
void wpool_stop(struct wpool *p);
/* Runs fn over [0, n) in slices of at least min_slice; the caller works on
 * slices too and returns when all are done. */
void wpool_run(struct wpool *p, wpool_fn fn, void *arg, int n, int min_slice);
/* Default thread count (ZINCTUN_WORKERS unset): online CPUs - 1 (the
 * caller is the last one), at most WPOOL_MAX_THREADS. */
int wpool_default_threads(void);

#endif
