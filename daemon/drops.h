/* Packets dropped around the engine (it counts its own): relaxed atomics,
 * touched on error paths only. */
#ifndef ZT_DROPS_H
#define ZT_DROPS_H

#include <stdatomic.h>
#include <stdint.h>

struct zt_drops {
	atomic_uint_least64_t tun_full;	     /* a TUN write refused (queue full, link down) */
	atomic_uint_least64_t stack_refused; /* packets an in-process stack did not take */
	atomic_uint_least64_t socket_error;  /* datagrams the UDP socket did not send */
	atomic_uint_least64_t
	    handshake_queue_full;	    /* handshake messages the queue had no room for */
	atomic_uint_least64_t unrecognised; /* datagrams of no message type (junk, mismatch) */
};

static inline void zt_drops_add(atomic_uint_least64_t *counter, uint64_t n)
{
	atomic_fetch_add_explicit(counter, n, memory_order_relaxed);
}

static inline uint64_t zt_drops_read(atomic_uint_least64_t *counter)
{
	return atomic_load_explicit(counter, memory_order_relaxed);
}

#endif
