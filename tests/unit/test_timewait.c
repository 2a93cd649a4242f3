/* The bound on lwIP's TIME_WAIT connections (proxy/timewait.c) on
 * Debian's lwIP: past the bound the oldest go (lwIP lists the newest
 * first), the newest stay in order, connections in other states are not
 * touched, and under the bound nothing goes. */
#include "test.h"
#include "../../proxy/timewait.c"

#include "lwip/tcpip.h"

enum { N = 40, MAX = 16 };

/* n pcbs entered TIME_WAIT in order: pcbs[n - 1] is the newest */
static void enter_timewait(struct tcp_pcb **pcbs, int n)
{
	for (int i = 0; i < n; i++) {
		pcbs[i] = tcp_new();
		CHECK(pcbs[i] != NULL);
		pcbs[i]->state = TIME_WAIT;
		pcbs[i]->local_port = (u16_t)(50000 + i);
		TCP_REG(&tcp_tw_pcbs, pcbs[i]);
	}
}

static int count_timewait(void)
{
	int n = 0;

	for (struct tcp_pcb *p = tcp_tw_pcbs; p; p = p->next)
		n++;
	return n;
}

int main(void)
{
	struct tcp_pcb *pcbs[N], *other;

	tcpip_init(NULL, NULL);
	LOCK_TCPIP_CORE();
	other = tcp_new(); /* a connection not in TIME_WAIT */
	CHECK(other != NULL);
	CHECK(tcp_bind(other, IP_ADDR_ANY, 40000) == ERR_OK);

	enter_timewait(pcbs, MAX);
	CHECK(timewait_trim(MAX) == 0);
	CHECK(count_timewait() == MAX);
	enter_timewait(pcbs, N);
	CHECK(timewait_trim(MAX) == N);
	CHECK(count_timewait() == MAX);
	/* the newest MAX are left, newest first */
	{
		struct tcp_pcb *p = tcp_tw_pcbs;

		for (int i = N - 1; i >= N - MAX; i--, p = p->next)
			CHECK(p == pcbs[i]);
	}
	CHECK(tcp_bound_pcbs == other);
	CHECK(timewait_trim(0) == MAX);
	CHECK(tcp_tw_pcbs == NULL);
	CHECK(timewait_trim(0) == 0);
	tcp_abort(other);
	UNLOCK_TCPIP_CORE();
	return test_finish("test_timewait");
}
