/* Stop and status signals through a signalfd (see signals.h). */
#include "signals.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "log.h"

int signals_open(void)
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

bool signals_handle(int fd, void (*on_usr1)(void *arg), void *arg)
{
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return true; /* already taken: nothing to do */
	if (si.ssi_signo == SIGUSR1) {
		on_usr1(arg);
		return true;
	}
	log_info("received signal %u, shutting down", si.ssi_signo);
	return false;
}
