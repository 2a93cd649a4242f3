/* The grown receive window (proxy/rcvwnd.c) on Debian's lwIP: with window
 * scaling agreed, a pcb's window grows past lwIP's TCP_WND to the most its
 * scale can announce (128 KiB at lwIP's own shift; with the shift of the
 * connections lwIP opens, RCVWND_LIMIT) and is announced (scaled, it
 * still fits the header's 16 bits); what the
 * application takes reopens it up to that bound, never past; and before a
 * close the window says whether data was left unread, which is what makes
 * lwIP's tcp_close send a FIN (all read) or an RST (unread). Without
 * window scaling, the calls are tcp_recved's own bound. */
#include "test.h"
#include "../../proxy/rcvwnd.c"

#include "lwip/tcpip.h"

static struct tcp_pcb *pcb_scaled(bool scaled)
{
	struct tcp_pcb *pcb = tcp_new();

	CHECK(pcb != NULL);
	if (scaled) {
		/* what tcp_parseopt does when the peer's SYN has the option */
		tcp_set_flags(pcb, TF_WND_SCALE);
		pcb->rcv_scale = TCP_RCV_SCALE;
		pcb->rcv_wnd = pcb->rcv_ann_wnd = TCP_WND;
	}
	return pcb;
}

/* opened: a connection lwIP opened (its SYN announced RCVWND_SCALE) */
static void test_grow(bool opened)
{
	struct tcp_pcb *pcb = pcb_scaled(true);
	tcpwnd_size_t RCVWND_MAX;

	if (opened)
		rcvwnd_connected(pcb);
	CHECK(pcb->rcv_scale == (opened ? RCVWND_SCALE : TCP_RCV_SCALE));
	RCVWND_MAX = opened ? RCVWND_LIMIT - 16 : 2 * 0xFFFF;
	CHECK(RCVWND_MAX_AT(pcb->rcv_scale) == RCVWND_MAX);
	CHECK(RCVWND_MAX > TCP_WND);
	CHECK((RCVWND_MAX >> pcb->rcv_scale) <= 0xFFFF);
	/* 20 KiB arrive (lwIP takes them off rcv_wnd) and are read: grown,
	 * announced with that read */
	pcb->rcv_wnd -= 20 * 1024;
	rcvwnd_grow(pcb);
	CHECK(pcb->rcv_wnd == RCVWND_MAX - 20 * 1024);
	rcvwnd_recved(pcb, 20 * 1024);
	CHECK(pcb->rcv_wnd == RCVWND_MAX);
	CHECK(pcb->rcv_ann_wnd == RCVWND_MAX);
	/* 100 KiB arrive, 60 KiB are read */
	pcb->rcv_wnd -= 100 * 1024;
	rcvwnd_recved(pcb, 60 * 1024);
	CHECK(pcb->rcv_wnd == RCVWND_MAX - 40 * 1024);
	/* tcp_recved would have capped it at TCP_WND */
	CHECK(pcb->rcv_wnd > TCP_WND);
	rcvwnd_recved(pcb, 40 * 1024);
	CHECK(pcb->rcv_wnd == RCVWND_MAX);
	rcvwnd_recved(pcb, 1000); /* never past the bound */
	CHECK(pcb->rcv_wnd == RCVWND_MAX);
	rcvwnd_recved(pcb, (size_t)1 << 40);
	CHECK(pcb->rcv_wnd == RCVWND_MAX);
	rcvwnd_grow(pcb); /* once grown, again changes nothing */
	CHECK(pcb->rcv_wnd == RCVWND_MAX);

	/* all read: lwIP's "no unread data" value, so tcp_close sends a FIN */
	rcvwnd_settle(pcb, false);
	CHECK(pcb->rcv_wnd == TCP_WND_MAX(pcb));
	/* unread bytes: any other value, so it sends an RST */
	rcvwnd_settle(pcb, true);
	CHECK(pcb->rcv_wnd != TCP_WND_MAX(pcb));
	tcp_abort(pcb);
}

static void test_unscaled(void)
{
	struct tcp_pcb *pcb = pcb_scaled(false);
	tcpwnd_size_t before = pcb->rcv_wnd;

	/* the peer did not scale (so it took no scale from our SYN either):
	 * lwIP's unscaled windows stand */
	rcvwnd_connected(pcb);
	CHECK(pcb->rcv_scale == 0);

	rcvwnd_grow(pcb);
	CHECK(pcb->rcv_wnd == before);
	pcb->rcv_wnd -= 5000;
	rcvwnd_recved(pcb, 9000);
	CHECK(pcb->rcv_wnd == TCP_WND_MAX(pcb));
	pcb->rcv_wnd -= 5000;
	rcvwnd_settle(pcb, true); /* lwIP's own count stands */
	CHECK(pcb->rcv_wnd == TCP_WND_MAX(pcb) - 5000);
	tcp_abort(pcb);
}

int main(void)
{
	tcpip_init(NULL, NULL);
	LOCK_TCPIP_CORE();
	test_grow(false);
	test_grow(true);
	test_unscaled();
	UNLOCK_TCPIP_CORE();
	return test_finish("test_rcvwnd");
}
