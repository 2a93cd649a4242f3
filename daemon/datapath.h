/* The data path threads: TUN -> encrypt -> UDP and UDP -> decrypt -> TUN,
 * in batches, with the TUN and UDP offloads. */
#ifndef ZT_DATAPATH_H
#define ZT_DATAPATH_H

#include <stddef.h>
#include <stdint.h>

struct zt;

/* arg: the struct zt_tunq of the queue this thread reads. */
void *zt_tun_main(void *arg);
void *zt_udp_main(void *arg);
/* One IP packet to TUN (adds the virtio-net header when the device has one). */
void zt_tun_write(struct zt *zt, const uint8_t *pkt, size_t len);
/* Sets the TUN offloads (as zt->opt allows); at zt_init. */
int zt_datapath_init(struct zt *zt);
/* Which work goes to the crypto workers, once the pool runs (zt_start). */
void zt_datapath_policy(struct zt *zt);

#endif
