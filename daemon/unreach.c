/* ICMP errors for packets with no peer (unreach.h). */
#include "unreach.h"

#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "datapath.h"
#include "icmp.h"
#include "ip.h"
#include "log.h"
#include "runtime.h"

void zt_send_unreachable(struct zt_runtime *zt, struct unreach_rate *rate, const uint8_t *pkt,
			 size_t len)
{
	uint8_t msg[ICMP_REPLY_MAX];
	struct if_addrs from;
	uint64_t now = zt_now_ns();
	size_t n;

	if (now - rate->window >= 1000000000ULL) {
		rate->window = now;
		rate->count = 0;
	}
	if (rate->count >= UNREACH_PER_SECOND)
		return;
	zt_engine_lock(zt);
	from = zt->addrs;
	zt_engine_unlock(zt);
	/* an IPv4 packet from one of our own addresses written to the TUN is
	 * dropped as a martian: it leaves through the raw socket instead, as
	 * the kernel's own errors do (IPv6 takes it from the TUN) */
	if (zt->dp.icmp_fd < 0)
		from.has4 = false;
	n = icmp_unreachable(pkt, len, &from, msg);
	if (!n)
		return;
	rate->count++;
	if (ip_version(msg) == 4 && from.has4) {
		struct sockaddr_in to = {.sin_family = AF_INET};

		memcpy(&to.sin_addr, msg + IP4_OFF_DST, sizeof(to.sin_addr));
		if (sendto(zt->dp.icmp_fd, msg, n, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			log_debug("icmp send: %s", strerror(errno));
		return;
	}
	zt_tun_write(zt, msg, n);
}
