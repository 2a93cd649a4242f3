#include "workers.h"

#include <unistd.h>

#include "enginelock.h"

static bool pop(struct wpool *p, struct wtask *t)
{
	if (!p->count)
		return false;
	*t = p->q[p->head];
	p->head = (p->head + 1) % WPOOL_QUEUE;
	p->count--;
	return true;
}

/* Runs t without the lock, then accounts for it. Called with the lock held. */
static void run_task(struct wpool *p, struct wtask *t)
{
	zt_assert_held(&p->lock);
	zt_mutex_unlock(&p->lock);
	t->fn(t->arg, t->begin, t->end);
	zt_mutex_lock(&p->lock);
	if (--*t->pending == 0)
		pthread_cond_broadcast(&p->done);
}

static void *worker_main(void *arg)
{
	struct wpool *p = arg;
	struct wtask t;

	zt_mutex_lock(&p->lock);
	while (!p->stop) {
		if (pop(p, &t))
			run_task(p, &t);
		else
			pthread_cond_wait(&p->work, &p->lock);
	}
	zt_mutex_unlock(&p->lock);
	return NULL;
}

int zt_spawn(pthread_t *threads, int *n, void *(*fn)(void *), void *arg)
{
	int ret = pthread_create(&threads[*n], NULL, fn, arg);

	if (ret)
		return -ret;
	(*n)++;
	return 0;
}

int wpool_default_threads(void)
{
	/* the calling thread works too: together one per CPU */
	long n = sysconf(_SC_NPROCESSORS_ONLN) - 1;

	if (n < 0)
		n = 0;
	return n > WPOOL_MAX_THREADS ? WPOOL_MAX_THREADS : (int)n;
}

int wpool_start(struct wpool *p, int n)
{
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->head = p->count = 0;
	p->stop = false;
	p->n_threads = 0;
	for (int i = 0; i < n && i < WPOOL_MAX_THREADS; i++) {
		int ret = zt_spawn(p->threads, &p->n_threads, worker_main, p);

		if (ret)
			return ret;
	}
	return 0;
}

void wpool_stop(struct wpool *p)
{
	zt_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	zt_mutex_unlock(&p->lock);
	for (int i = 0; i < p->n_threads; i++)
		pthread_join(p->threads[i], NULL);
	p->n_threads = 0;
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
}

void wpool_run(struct wpool *p, wpool_fn fn, void *arg, int n, int min_slice)
{
	int slices, per, pending = 0, queued_end;
	struct wtask t;

	if (min_slice < 1)
		min_slice = 1;
	slices = p->n_threads + 1;
	if (slices > n / min_slice)
		slices = n / min_slice;
	if (slices <= 1 || !p->n_threads) {
		if (n > 0)
			fn(arg, 0, n);
		return;
	}
	per = (n + slices - 1) / slices;
	zt_mutex_lock(&p->lock);
	for (int b = per; b < n && p->count < WPOOL_QUEUE; b += per) {
		struct wtask *q = &p->q[(p->head + p->count) % WPOOL_QUEUE];

		q->fn = fn;
		q->arg = arg;
		q->begin = b;
		q->end = b + per < n ? b + per : n;
		q->pending = &pending;
		p->count++;
		pending++;
	}
	queued_end = per + pending * per;
	pthread_cond_broadcast(&p->work);
	zt_mutex_unlock(&p->lock);
	fn(arg, 0, per);
	/* whatever did not fit in the queue the caller does itself */
	if (queued_end < n)
		fn(arg, queued_end, n);
	zt_mutex_lock(&p->lock);
	/* help with queued slices (ours or another caller's), then wait */
	while (pending) {
		if (pop(p, &t))
			run_task(p, &t);
		else
			pthread_cond_wait(&p->done, &p->lock);
	}
	zt_mutex_unlock(&p->lock);
}
