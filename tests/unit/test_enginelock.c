/* The lock checks (daemon/enginelock.h), as a debug build has them: an
 * assertion passes in the thread that holds the lock, and aborts, naming
 * the lock and the place, in a thread that does not (never taken, or held
 * by another thread); an engine whose clock callback asserts, as
 * daemon/runtime.c's does, aborts on a call made without the lock. */
#define ZT_DEBUG 1
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "../../daemon/enginelock.c"
#include "wg/wg.h"

struct fake_zt {
	pthread_mutex_t lock;
	uint64_t lock_now; /* zt_engine_lock resets it */
};

static struct fake_zt z = {PTHREAD_MUTEX_INITIALIZER, 0};

/* Runs fn in a child with stderr in a pipe: whether it died of SIGABRT,
 * and what it wrote. */
static bool aborts(void (*fn)(void), char *msg, size_t cap)
{
	int fd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		return false;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 2);
		fn();
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], msg, cap - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void assert_unlocked(void)
{
	zt_engine_assert_held(&z);
}

static void assert_locked(void)
{
	zt_engine_lock(&z);
	zt_engine_assert_held(&z);
	zt_engine_unlock_no_rearm(&z);
	/* after the release, the same check fails */
	zt_engine_assert_held(&z);
}

static pthread_mutex_t started_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;
static bool holding;

static void *holder(void *arg)
{
	(void)arg;
	zt_engine_lock(&z);
	pthread_mutex_lock(&started_lock);
	holding = true;
	pthread_cond_signal(&started);
	pthread_mutex_unlock(&started_lock);
	pause(); /* keeps the lock until the process ends */
	return NULL;
}

static void assert_held_elsewhere(void)
{
	pthread_t t;

	pthread_create(&t, NULL, holder, NULL);
	pthread_mutex_lock(&started_lock);
	while (!holding)
		pthread_cond_wait(&started, &started_lock);
	pthread_mutex_unlock(&started_lock);
	zt_engine_assert_held(&z);
}

static uint64_t locked_now(void *ctx)
{
	zt_engine_assert_held((struct fake_zt *)ctx);
	return 1;
}

static void ignore_send(void *ctx, const struct wg_endpoint *to, const uint8_t *pkt, size_t len,
			uint8_t ds)
{
	(void)ds;
	(void)ctx, (void)to, (void)pkt, (void)len;
}

static struct wg_device *device(void)
{
	struct wg_env env = {.now_ns = locked_now, .wall_ns = locked_now, .ctx = &z};
	struct wg_io io = {.send = ignore_send};
	struct wg_device *dev;

	zt_engine_lock(&z);
	dev = wg_device_new(&env, &io);
	zt_engine_unlock_no_rearm(&z);
	return dev;
}

static void engine_locked(void)
{
	struct wg_device *dev = device();

	zt_engine_lock(&z);
	wg_device_tick(dev);
	zt_engine_unlock_no_rearm(&z);
}

static void engine_unlocked(void)
{
	wg_device_tick(device());
}

int main(void)
{
	char msg[256];

	CHECK(aborts(assert_unlocked, msg, sizeof(msg)));
	CHECK(strstr(msg, "the engine lock is not held") && strstr(msg, "test_enginelock.c:"));
	CHECK(aborts(assert_locked, msg, sizeof(msg)));
	CHECK(strstr(msg, "is not held") != NULL);
	CHECK(aborts(assert_held_elsewhere, msg, sizeof(msg)));
	CHECK(strstr(msg, "is not held") != NULL);
	CHECK(!aborts(engine_locked, msg, sizeof(msg)) && msg[0] == '\0');
	CHECK(aborts(engine_unlocked, msg, sizeof(msg)));
	CHECK(strstr(msg, "is not held") != NULL);
	return test_finish("test_enginelock");
}
