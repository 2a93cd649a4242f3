/* The TUN interface: creation, adoption of an inherited fd, MTU. */
#ifndef ZT_TUN_H
#define ZT_TUN_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

enum { TUN_DEFAULT_MTU = 1420 };

/* Creates (or attaches to) the TUN interface "name" with IFF_TUN|IFF_NO_PI
 * and sets the default MTU. Returns the fd or a negative errno. */
int tun_create(const char *name);
/* Adopts an fd from WG_TUN_FD: fills the interface name. */
int tun_adopt(int fd, char name[IF_NAMESIZE]);
int tun_get_mtu(const char *name, uint32_t *mtu);
int tun_set_mtu(const char *name, uint32_t mtu);
/* ZINCTUN_NO_TUN_OFFLOAD=1: plain TUN without the virtio-net header. */
bool tun_offload_disabled(void);
/* If the device has IFF_VNET_HDR (tun_create sets it), sets the header
 * size and the richest offload set the kernel accepts (TUN_F_* bits in
 * *offloads; 0 if none). *vnet_hdr tells whether reads and writes carry
 * the 10-byte header. */
int tun_setup_offload(int fd, bool *vnet_hdr, unsigned int *offloads);

#endif
