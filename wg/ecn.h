/* ECN across the tunnel as the Linux module does it (RFC 6040). Internal. */
#ifndef WG_ECN_H
#define WG_ECN_H

#include <stddef.h>
#include <stdint.h>

/* The outer DS field for a data message carrying the IP packet pkt. */
uint8_t wg_ecn_encap(const uint8_t *pkt, size_t len);
/* Marks the inner IP packet pkt (in place) from the outer DS field. */
void wg_ecn_decap(uint8_t *pkt, size_t len, uint8_t outer);

#endif
