/* The window scale lwIP's connections announce. Debian's lwIP is built
 * with TCP_RCV_SCALE 1, so a receive window can never exceed 128 KiB:
 * a download through one connection then moves at most 128 KiB per
 * round trip through both WireGuard ends. The SYNs and SYN-ACKs lwIP
 * sends pass through the proxy on their way to the data path (stack.c),
 * where the shift their window scale option announces is raised; the
 * connection's pcb is told the same once it is established
 * (rcvwnd_connected, from the connected and the accept callbacks), and
 * from then on lwIP scales every window it announces by it. */
#ifndef ZTP_SYNSCALE_H
#define ZTP_SYNSCALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* In an IPv4 or IPv6 TCP segment of len bytes with SYN (with or without
 * ACK) whose window scale option announces the shift from: announces to
 * instead,
 * with the TCP checksum updated to match. Returns whether it did;
 * anything else (not TCP, a fragment, another shift, no such option,
 * malformed headers or options) is left as it is. */
bool syn_scale_rewrite(uint8_t *pkt, size_t len, uint8_t from, uint8_t to);

#endif
