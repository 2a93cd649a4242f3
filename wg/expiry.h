/* Timer expiry (expiry.c). Internal. */
#ifndef WG_EXPIRY_H
#define WG_EXPIRY_H

struct wg_device;

/* From the tick: runs the action of every due timer at dev->now. */
void wg_expiry_run(struct wg_device *dev);

#endif
