/* SIGINT, SIGTERM and SIGHUP stop both programs, SIGUSR1 logs their state. */
#ifndef ZT_SIGNALS_H
#define ZT_SIGNALS_H

#include <stdbool.h>

/* Before any thread (they inherit the mask): blocks them, ignores SIGPIPE,
 * returns a non-blocking signalfd for them, or -1 with errno set. */
int signals_open(void);
/* Reads what fd has: on SIGUSR1 calls on_usr1(arg) and returns true; on a
 * stop signal logs it and returns false (the caller shuts down). */
bool signals_handle(int fd, void (*on_usr1)(void *arg), void *arg);

#endif
