/* The one place the engine's handshake X25519 work goes through. */
#include <zinc/curve25519.h>

#include "dhbatch.h"

const uint8_t wg_dh_basepoint[WG_PUBLIC_KEY_LEN] = {9};

void wg_dh_batch(size_t n, uint8_t *const out[], const uint8_t *const secret[],
		 const uint8_t *const point[])
{
	/* One at a time until zinc_curve25519_batch(n, out, secret, point)
	 * (issue 28, branch zinc28) is on main: that call replaces this loop. */
	for (size_t i = 0; i < n; i++)
		zinc_curve25519(out[i], secret[i], point[i]);
}
