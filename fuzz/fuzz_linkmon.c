/* fuzz-sources: daemon/linkmon.c daemon/ifaddr.c daemon/tun.c daemon/log.c */
/* fuzz-sources: daemon/sandbox.c daemon/passwd.c */
/* fuzz-options: -max_len=2048 */
/* The link monitor's rtnetlink message parser (daemon/linkmon.c,
 * linkmon_handle): what the kernel sends about our link, its addresses and
 * namespace ids (a process with CAP_NET_ADMIN may shape such messages).
 *
 * Input: byte 0 picks where the monitor watches the link (bits 0-1: here,
 * lost, namespace 0 or 1), whether the datagram came on the socket of our
 * namespace (bit 2) and whether an address dump is under way (bit 3);
 * byte 1 the sender's namespace (bits 0-1: here, not followed, 0 or 1);
 * byte 2 the link's index; bytes 3 and 4 the sequence numbers of the
 * address dump and the namespace id query; the rest is the datagram, in a
 * buffer of its exact size. The TUN and the sockets are /dev/null: the TUN
 * is gone when asked, and nothing is sent. Beyond "no crash": the link's
 * place changes only with ev.moved, its addresses only with
 * ev.addrs_changed, and the place is one linkmon.h names. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linkmon.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int places[] = {LINKMON_HERE, LINKMON_LOST, 0, 1};
	static const int senders[] = {LINKMON_HERE, -3, 0, 1};
	static int null_fd[3] = {-1, -1, -1};
	struct linkmon lm;
	struct link_event ev;
	struct if_addrs addrs;
	int nsid, ifindex;
	void *buf;

	if (size < 5)
		return 0;
	for (int i = 0; i < 3; i++)
		if (null_fd[i] < 0)
			null_fd[i] = open("/dev/null", O_RDWR | O_CLOEXEC);
	memset(&lm, 0, sizeof(lm));
	lm.fd = null_fd[0];
	lm.peer_fd = null_fd[1];
	lm.tun_fd = null_fd[2];
	lm.nsid = places[data[0] & 3];
	lm.peer_joined = lm.nsid >= 0;
	lm.dumping = data[0] & 8;
	lm.ifindex = data[2];
	lm.addr_seq = data[3];
	lm.nsid_seq = data[4];
	lm.addrs.has4 = true; /* so that a dump that finds none changes them */
	buf = malloc(size - 5 ? size - 5 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 5, size - 5);
	nsid = lm.nsid;
	ifindex = lm.ifindex;
	addrs = lm.addrs;
	memset(&ev, 0, sizeof(ev));
	linkmon_handle(&lm, data[0] & 4 ? lm.fd : lm.peer_fd, senders[data[1] & 3], buf, size - 5,
		       &ev);
	free(buf);
	check(ev.moved || ev.deleted || (lm.nsid == nsid && lm.ifindex == ifindex),
	      "the link's place changed without a move");
	check(ev.addrs_changed || !memcmp(&addrs, &lm.addrs, sizeof(addrs)),
	      "addresses changed unannounced");
	check(lm.nsid == LINKMON_HERE || lm.nsid == LINKMON_LOST || lm.nsid >= 0,
	      "the link's place is none linkmon.h names");
	return 0;
}
