/* The start-up, main loop and shutdown of both programs (see host.h). */
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <zinc/impl.h>

#include "config.h"
#include "datapath.h"
#include "log.h"
#include "version.h"

int host_fail(const struct host *h, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", h->ops->name, msg);
	return 1;
}

const char *host_env(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

int host_cli(const struct host *h, const char *prog)
{
	const char *name = h->ops->name;

	switch (h->opt->action) {
	case ZT_CLI_VERSION:
		printf("%s v%s\n%s", name, ZINCTUN_VERSION, h->ops->about);
		printf("Zinc: %s\nZinc choice: %s\n", zinc_impl_describe(), zinc_impl_choice());
		return 0;
	case ZT_CLI_HELP:
		h->ops->usage(stdout, prog);
		return 0;
	case ZT_CLI_ERROR:
		fprintf(stderr, "%s: %s (see %s --help)\n", name, h->opt->err, name);
		return 1;
	case ZT_CLI_USAGE:
		h->ops->usage(stderr, prog);
		return 1;
	default:
		return -1;
	}
}

static int open_uapi(struct host *h)
{
	const struct uapi_ops ops = {.get = config_get, .set = config_set, .ctx = &h->zt};
	int ret = h->uapi_path ? uapi_open_path(&h->uapi, h->uapi_path, &ops)
			       : uapi_open(&h->uapi, h->zt.ifname, &ops, h->opt->uapi_fd);

	if (ret == -EADDRINUSE)
		return host_fail(h, "another daemon holds interface %s (%s answers)", h->zt.ifname,
				 h->uapi.path);
	if (ret)
		return host_fail(h, "cannot open the configuration socket %s: %s", h->uapi.path,
				 strerror(-ret));
	return 0;
}

/* The engine, then its data path on the program's device; zt_destroy
 * undoes even a failed zt_init. */
static int open_device(struct host *h)
{
	int ret = zt_init(&h->zt, h->ifname, &h->opt->dp);

	if (ret)
		return host_fail(h, "cannot start the device %s: %s", h->ifname, strerror(-ret));
	ret =
	    h->sink ? zt_datapath_init_sink(&h->zt, h->sink) : zt_datapath_init(&h->zt, h->tun_fd);
	if (ret) {
		zt_datapath_destroy(&h->zt);
		return host_fail(h, "cannot start the device %s: %s", h->ifname, strerror(-ret));
	}
	return 0;
}

static int start_threads(struct host *h)
{
	int ret = zt_start(&h->zt);

	if (!ret) {
		ret = zt_datapath_start(&h->zt);
		if (ret)
			zt_stop(&h->zt);
	}
	if (ret)
		return host_fail(h, "cannot start threads: %s", strerror(-ret));
	h->started = true;
	return 0;
}

/* SIGINT, SIGTERM and SIGHUP stop both programs, SIGUSR1 logs their state.
 * Before any thread (they inherit the mask): blocks them, ignores SIGPIPE,
 * returns a non-blocking signalfd for them, or -1 with errno set. */
static int signals_open(void)
{
	sigset_t set;
	int err;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	err = pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (err) {
		errno = err;
		return -1;
	}
	signal(SIGPIPE, SIG_IGN); /* a peer that closes gives EPIPE instead */
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* What the signalfd has: false on a stop signal (logged; shut down). */
static bool signal_received(struct host *h)
{
	struct signalfd_siginfo si;

	if (read(h->sig_fd, &si, sizeof(si)) != sizeof(si))
		return true; /* already taken: nothing to do */
	if (si.ssi_signo == SIGUSR1) {
		if (h->ops->on_usr1)
			h->ops->on_usr1(h);
		return true;
	}
	log_info("received signal %u, shutting down", si.ssi_signo);
	return false;
}

/* Until a stop signal, a stop request (zt_request_stop) or the program's
 * descriptors say so; the configuration socket is served meanwhile. */
static void run(struct host *h)
{
	enum { N_FIXED = 2 };
	struct pollfd pfd[N_FIXED + HOST_MAX_OWN_FDS + 1 + UAPI_MAX_CLIENTS];
	const size_t max = sizeof(pfd) / sizeof(pfd[0]);

	for (;;) {
		size_t n_own = h->ops->pollfds ? h->ops->pollfds(h, pfd + N_FIXED) : 0, n_uapi;
		int timeout = uapi_timeout_ms(&h->uapi),
		    own = h->ops->timeout_ms ? h->ops->timeout_ms(h) : -1;

		pfd[0] = (struct pollfd){.fd = h->sig_fd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = h->zt.stop_fd, .events = POLLIN};
		n_uapi = uapi_pollfds(&h->uapi, pfd + N_FIXED + n_own, max - N_FIXED - n_own);
		if (own >= 0 && (timeout < 0 || own < timeout))
			timeout = own;
		if (poll(pfd, N_FIXED + n_own + n_uapi, timeout) < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %s", strerror(errno));
			return;
		}
		if (pfd[0].revents && !signal_received(h))
			return;
		if (pfd[1].revents || (n_own && !h->ops->handle(h, pfd + N_FIXED)))
			return;
		uapi_handle(&h->uapi, pfd + N_FIXED + n_own, n_uapi);
	}
}

int host_daemonize(void)
{
	int p[2];
	pid_t pid;
	char status = 1;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &status, 1) != 1)
			status = 1;
		_exit(status);
	}
	close(p[0]);
	setsid();
	if (chdir("/") < 0)
		log_debug("chdir: %s", strerror(errno));
	return p[1];
}

#define STEP(fn) (h->ops->fn ? h->ops->fn(h) : 0)

int host_run(struct host *h)
{
	int ret = zinc_impl_select(h->opt->zinc_impl); /* before Zinc's first use */

	if (ret)
		return host_fail(h, "ZINC_IMPL=%s: %s", h->opt->zinc_impl, strerror(-ret));
	ret = h->opt->log_file ? log_open_file(h->opt->log_file) : 0;
	if (ret)
		return host_fail(h, "cannot open the log file %s: %s", h->opt->log_file,
				 strerror(-ret));
	h->sig_fd = signals_open();
	if (h->sig_fd < 0)
		return host_fail(h, "signalfd: %s", strerror(errno));
	ret = h->ops->open(h);
	if (ret)
		goto out_signals;
	ret = open_device(h);
	if (ret)
		goto out_device;
	ret = STEP(configure);
	if (!ret)
		ret = open_uapi(h);
	if (ret)
		goto out_datapath;
	ret = STEP(prepare);
	if (ret)
		goto out_uapi;
	ret = STEP(sandbox);
	if (!ret)
		ret = start_threads(h);
	if (ret)
		goto out_prepared;
	ret = STEP(start);
	if (!ret)
		run(h);
	zt_request_stop(&h->zt);
	if (h->ops->stop)
		h->ops->stop(h);
	zt_datapath_stop(&h->zt);
	zt_stop(&h->zt);
out_prepared:
	if (h->ops->close)
		h->ops->close(h);
out_uapi:
	uapi_close(&h->uapi);
out_datapath:
	zt_datapath_destroy(&h->zt);
out_device:
	zt_destroy(&h->zt);
out_signals:
	close(h->sig_fd);
	if (!ret)
		log_info("Shutting down");
	return ret;
}
