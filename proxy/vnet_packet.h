/* A packet from the data path with its virtio-net header, made one plain
 * IP packet for lwIP. The daemon's receive path coalesces a batch's TCP
 * segments of one flow into a super-packet (daemon/gro_write.c): one IP
 * and TCP header, the members' payloads behind it, the TCP checksum left
 * partial (NEEDS_CSUM: the pseudo header's sum in the field). Handed to lwIP
 * as ONE segment, it is processed and acknowledged once instead of once
 * per member. */
#ifndef ZTP_VNET_PACKET_H
#define ZTP_VNET_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "offload.h"

/* Completes pkt (len bytes, the header h was in front of it) in place:
 * the TCP checksum a NEEDS_CSUM header left partial is filled in. Returns
 * 0 when pkt is for lwIP: a plain packet (no flags, no gso type) as it
 * came, an offloaded one only when whole (its IP length fields agree with
 * len); -1 when it is to be dropped (malformed, or an offload lwIP cannot
 * take: coalesced UDP). */
int vnet_packet_finish(const struct vnet_hdr *h, uint8_t *pkt, size_t len);

#endif
