/* The health endpoint and CheckAlive's pings (health.h). */
#include "health.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lwip/inet_chksum.h"
#include "lwip/prot/icmp.h"
#include "lwip/prot/icmp6.h"
#include "lwip/prot/ip4.h"
#include "lwip/prot/ip6.h"
#include "lwip/raw.h"
#include "lwip/tcpip.h"
#include "lwip/timeouts.h"

#include <zinc/memzero.h>

#include "addr.h"
#include "be.h"
#include "cli.h"
#include "config.h"
#include "log.h"
#include "proxy.h"

enum {
	ECHO_LEN = 8,	    /* type, code, checksum, identifier, sequence */
	ECHO_ID = 0x7a74,   /* "zt": our echoes among the replies */
	READY_LEEWAY_S = 2, /* wireproxy's allowance for the round trip */
	ICMP6_CSUM_OFF = 2, /* where lwIP puts the pseudo-header checksum */
	MS_PER_S = 1000,
};

static void ping(struct health *hl, const struct proxy_ip *to)
{
	bool v6 = to->family == AF_INET6;
	struct raw_pcb *pcb = v6 ? hl->raw6 : hl->raw4;
	struct pbuf *p = pcb ? pbuf_alloc(PBUF_IP, ECHO_LEN, PBUF_RAM) : NULL;
	uint8_t echo[ECHO_LEN] = {v6 ? ICMP6_TYPE_EREQ : ICMP_ECHO};
	ip_addr_t dst;

	if (!p)
		return;
	put_be16(echo + 4, ECHO_ID);
	put_be16(echo + 6, hl->seq);
	if (!v6) {
		u16_t sum = inet_chksum(echo, ECHO_LEN);

		memcpy(echo + 2, &sum, sizeof(sum));
	}
	memcpy(p->payload, echo, ECHO_LEN);
	proxy_ip_to_lwip(to, &dst);
	raw_sendto(pcb, p, &dst);
	pbuf_free(p);
}

/* lwIP's timer thread, core lock held: one echo to each address. */
static void ping_round(void *arg)
{
	struct health *hl = arg;

	hl->seq++;
	for (size_t i = 0; i < hl->ifc->n_check_alive; i++)
		ping(hl, &hl->ifc->check_alive[i]);
	sys_timeout(hl->ifc->check_alive_interval * MS_PER_S, ping_round, hl);
}

/* A reply to this round's echo (raw pcbs see the IP header): its source's
 * pong time. Other ICMP goes on to lwIP. */
static u8_t pong(void *arg, struct raw_pcb *pcb, struct pbuf *p, const ip_addr_t *from)
{
	struct health *hl = arg;
	bool v6 = IP_IS_V6(from);
	uint8_t b[ECHO_LEN];
	u16_t off = v6 ? IP6_HLEN : IPH_HL_BYTES((const struct ip_hdr *)p->payload);

	(void)pcb;
	if (pbuf_copy_partial(p, b, ECHO_LEN, off) != ECHO_LEN ||
	    b[0] != (v6 ? ICMP6_TYPE_EREP : ICMP_ER) || get_be16(b + 4) != ECHO_ID ||
	    get_be16(b + 6) != hl->seq)
		return 0;
	for (size_t i = 0; i < hl->ifc->n_check_alive; i++) {
		ip_addr_t a;

		proxy_ip_to_lwip(&hl->ifc->check_alive[i], &a);
		if (ip_addr_cmp(&a, from))
			__atomic_store_n(&hl->last_pong[i], (uint64_t)time(NULL), __ATOMIC_RELAXED);
	}
	pbuf_free(p);
	return 1;
}

static int readyz(struct health *hl, struct buf *body)
{
	uint64_t now = (uint64_t)time(NULL), late = hl->ifc->check_alive_interval + READY_LEEWAY_S;
	int status = 200;
	bool ok = buf_printf(body, "{");

	for (size_t i = 0; i < hl->ifc->n_check_alive; i++) {
		const struct proxy_ip *ip = &hl->ifc->check_alive[i];
		uint64_t t = __atomic_load_n(&hl->last_pong[i], __ATOMIC_RELAXED);
		char a[INET6_ADDRSTRLEN];

		inet_ntop(ip->family, &ip->in6, a, sizeof(a));
		ok =
		    ok && buf_printf(body, "%s\"%s\":%llu", i ? "," : "", a, (unsigned long long)t);
		if (now > t + late)
			status = 503;
	}
	return ok && buf_printf(body, "}\n") ? status : 500;
}

static bool is_key(const char *line, const char *eq, const char *key)
{
	return (size_t)(eq - line) == strlen(key) && !memcmp(line, key, strlen(key));
}

/* wireproxy's /metrics: the configuration socket's get, keys REDACTED. */
static int get_redacted(struct health *hl, struct buf *body)
{
	struct buf get;
	bool ok;

	buf_init(&get, METRICS_MAX_RESPONSE);
	ok = !config_get(hl->info.zt, &get);
	for (const char *l = get.data, *end = l + get.len; ok && l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = nl ? (size_t)(nl + 1 - l) : (size_t)(end - l);
		const char *eq = memchr(l, '=', n);

		if (eq && (is_key(l, eq, "private_key") || is_key(l, eq, "preshared_key")))
			ok = buf_printf(body, "%.*sREDACTED\n", (int)(eq + 1 - l), l);
		else
			ok = buf_append(body, l, n);
		l += n;
	}
	zinc_memzero(get.data, get.len);
	buf_free(&get);
	return ok ? 200 : 500;
}

static int serve(void *ctx, const char *path, size_t len, struct buf *body)
{
	if (len == strlen("/readyz") && !memcmp(path, "/readyz", len))
		return readyz(ctx, body);
	if (len == strlen("/metrics") && !memcmp(path, "/metrics", len))
		return get_redacted(ctx, body);
	return 404;
}

/* One endpoint's listener, if asked for (else off: -1). */
static int open_one(struct metrics *m, const char *what, const char *text,
		    const struct sockaddr_storage *addr, socklen_t len)
{
	int ret = text ? metrics_open(m, (const struct sockaddr *)addr, len) : 0;

	if (!text)
		m->listen_fd = m->proc.stat_fd = -1;
	if (ret)
		fprintf(stderr, "zinctun-proxy: cannot open the %s endpoint %s: %s\n", what, text,
			strerror(-ret));
	return ret ? 1 : 0;
}

int health_open(struct health *hl, const struct proxy *px, const struct zt_options *opt)
{
	hl->ifc = &px->conf.iface;
	hl->info.serve = serve;
	hl->info.serve_ctx = hl;
	if (open_one(&hl->info, "health (-i)", opt->info, &opt->info_addr, opt->info_addr_len) ||
	    open_one(&hl->prom, "metrics", opt->metrics, &opt->metrics_addr, opt->metrics_addr_len))
		return 1;
	if (opt->metrics)
		metrics_open_proc(&hl->prom);
	return 0;
}

int health_start(struct health *hl, struct zt_runtime *zt)
{
	int ret = metrics_start(&hl->info, zt);

	if (!ret)
		ret = metrics_start(&hl->prom, zt);
	if (ret)
		return ret;
	if (!hl->ifc->n_check_alive)
		return 0;
	LOCK_TCPIP_CORE();
	hl->raw4 = raw_new_ip_type(IPADDR_TYPE_V4, IP_PROTO_ICMP);
	hl->raw6 = raw_new_ip_type(IPADDR_TYPE_V6, IP6_NEXTH_ICMP6);
	if (hl->raw4)
		raw_recv(hl->raw4, pong, hl);
	if (hl->raw6) {
		raw_recv(hl->raw6, pong, hl);
		hl->raw6->chksum_reqd = 1;
		hl->raw6->chksum_offset = ICMP6_CSUM_OFF;
	}
	ping_round(hl);
	UNLOCK_TCPIP_CORE();
	return 0;
}

void health_stop(struct health *hl)
{
	metrics_stop(&hl->info);
	metrics_stop(&hl->prom);
}
