/* DNS through the tunnel (see resolve.h): one lwIP UDP pcb per lookup, an
 * A query first when the tunnel has an IPv4 address (AAAA else, and as the
 * fallback when the name has no A record), PROXY_DNS_TRIES tries. */
#include "resolve.h"

#include <stdlib.h>
#include <string.h>

#include <zinc/random.h>

#include "lwip/timeouts.h"
#include "lwip/udp.h"

#include "addr.h"
#include "dgram.h"
#include "dns.h"
#include "proxy.h"
#include "stack.h"

struct resolve {
	struct stack *s;
	struct udp_pcb *pcb;
	resolve_cb cb;
	void *arg;
	uint16_t id, qtype;
	int tries;
	char name[PROXY_HOST_MAX + 1];
};

static void resolve_timeout(void *arg);

static void resolve_end(struct resolve *r, const ip_addr_t *addr)
{
	resolve_cb cb = r->cb;
	void *arg = r->arg;

	resolve_cancel(r);
	cb(arg, addr);
}

static bool resolve_send(struct resolve *r)
{
	uint8_t q[DNS_QUERY_MAX];
	size_t len;
	err_t err;

	if (!zinc_get_random_bytes(&r->id, sizeof(r->id)))
		return false;
	len = dns_build_query(q, sizeof(q), r->id, r->name, r->qtype);
	if (!len)
		return false;
	err = dgram_send(r->pcb, q, len, &r->s->dns, PROXY_DNS_PORT);
	sys_timeout(PROXY_DNS_TIMEOUT_MS, resolve_timeout, r);
	return err == ERR_OK || err == ERR_MEM || err == ERR_RTE;
}

static void resolve_next_type(struct resolve *r)
{
	if (r->qtype == DNS_TYPE_A && r->s->has6) {
		r->qtype = DNS_TYPE_AAAA;
		r->tries = 0;
		sys_untimeout(resolve_timeout, r);
		if (resolve_send(r))
			return;
	}
	resolve_end(r, NULL);
}

static void resolve_timeout(void *arg)
{
	struct resolve *r = arg;

	if (++r->tries < PROXY_DNS_TRIES && resolve_send(r))
		return;
	resolve_next_type(r);
}

static void resolve_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *from,
			 u16_t port)
{
	struct resolve *r = arg;
	uint8_t buf[1500];
	struct proxy_ip out[1];
	ip_addr_t addr;
	u16_t len;
	int n;

	(void)pcb;
	if (port != PROXY_DNS_PORT || !ip_addr_cmp(from, &r->s->dns)) {
		pbuf_free(p);
		return;
	}
	len = pbuf_copy_partial(p, buf, sizeof(buf), 0);
	pbuf_free(p);
	n = dns_parse_response(buf, len, r->id, r->name, r->qtype, out, 1);
	if (n == DNS_E_MISMATCH || n == DNS_E_MALFORMED)
		return; /* not ours: keep waiting */
	if (n <= 0) {
		resolve_next_type(r);
		return;
	}
	proxy_ip_to_lwip(&out[0], &addr);
	resolve_end(r, &addr);
}

struct resolve *resolve_start(struct stack *s, const char *name, resolve_cb cb, void *arg)
{
	ip_addr_t lit;
	struct resolve *r = NULL;

	if (ipaddr_aton(name, &lit)) {
		cb(arg, &lit);
		return NULL;
	}
	if (s->has_dns && strlen(name) <= PROXY_HOST_MAX)
		r = calloc(1, sizeof(*r));
	if (r) {
		r->s = s;
		r->cb = cb;
		r->arg = arg;
		r->qtype = s->has4 ? DNS_TYPE_A : DNS_TYPE_AAAA;
		strcpy(r->name, name);
		r->pcb = udp_new_ip_type(IP_GET_TYPE(&s->dns));
	}
	if (r && r->pcb) {
		udp_recv(r->pcb, resolve_recv, r);
		if (resolve_send(r))
			return r;
	}
	if (r)
		resolve_cancel(r);
	cb(arg, NULL);
	return NULL;
}

void resolve_cancel(struct resolve *r)
{
	sys_untimeout(resolve_timeout, r);
	if (r->pcb)
		udp_remove(r->pcb);
	free(r);
}
