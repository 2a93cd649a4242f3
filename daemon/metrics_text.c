/* The metrics in the Prometheus text format. Per peer, the names and labels
 * of prometheus_wireguard_exporter, so its Grafana dashboards work
 * unchanged. The engine lock is held only while the figures are copied. */
#include "metrics.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zinc/impl.h>

#include "base64.h"
#include "clock.h"
#include "runtime.h"
#include "version.h"

enum {
	PROC_STAT_MAX = 1024,
	/* /proc/self/stat fields, counted from 1 (proc(5)) */
	STAT_UTIME = 14,
	STAT_STIME = 15,
	STAT_THREADS = 20,
	STAT_STARTTIME = 22,
	STAT_RSS = 24,
	STAT_FIRST_AFTER_COMM = 3,
};

struct snap_ip {
	int family;
	uint8_t cidr;
	uint8_t addr[16];
};

struct snap_peer {
	uint8_t public_key[WG_PUBLIC_KEY_LEN];
	uint64_t rx_bytes, tx_bytes, last_handshake_wall_ns;
	size_t first_ip, n_ips;
};

struct snapshot {
	struct wg_device_stats st;
	size_t n_peers;
	struct snap_peer *peers;
	size_t n_ips, cap_ips;
	struct snap_ip *ips;
	bool nomem;
	const struct metrics_names *names;
	uint64_t now_s; /* wall clock, for the handshake's age */
};

/* ---- copy (under the engine lock) ---- */

static bool copy_ip(void *ctx, int family, const void *addr, uint8_t cidr)
{
	struct snapshot *s = ctx;
	struct snap_ip *ip;

	if (s->n_ips == s->cap_ips) {
		size_t cap = s->cap_ips ? 2 * s->cap_ips : 64;
		struct snap_ip *n = realloc(s->ips, cap * sizeof(*n));

		if (!n) {
			s->nomem = true;
			return false;
		}
		s->ips = n;
		s->cap_ips = cap;
	}
	ip = &s->ips[s->n_ips++];
	ip->family = family;
	ip->cidr = cidr;
	memcpy(ip->addr, addr, family == AF_INET ? 4 : 16);
	return true;
}

static bool take_snapshot(struct zt_runtime *zt, struct snapshot *s)
{
	struct wg_peer *peer = NULL;
	struct wg_peer_info info;

	memset(s, 0, sizeof(*s));
	zt_engine_lock(zt);
	wg_device_get_stats(zt->dev, &s->st);
	s->peers = calloc(wg_device_peer_count(zt->dev) + 1, sizeof(*s->peers));
	while (s->peers && !s->nomem && (peer = wg_device_peer_next(zt->dev, peer))) {
		struct snap_peer *p = &s->peers[s->n_peers++];

		wg_peer_get_info(peer, &info);
		memcpy(p->public_key, info.public_key, sizeof(p->public_key));
		p->rx_bytes = info.rx_bytes;
		p->tx_bytes = info.tx_bytes;
		p->last_handshake_wall_ns = info.last_handshake_wall_ns;
		p->first_ip = s->n_ips;
		wg_peer_allowed_ips_foreach(peer, copy_ip, s);
		p->n_ips = s->n_ips - p->first_ip;
	}
	zt_engine_unlock(zt);
	/* the info carried the preshared key */
	explicit_bzero(&info, sizeof(info));
	return s->peers && !s->nomem;
}

static void free_snapshot(struct snapshot *s)
{
	free(s->peers);
	free(s->ips);
}

/* ---- text ---- */

/* A label value: backslash, quote and newline escaped. */
static void put_escaped(struct buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			buf_printf(out, "\\%c", *s);
		else if (*s == '\n')
			buf_append(out, "\\n", 2);
		else
			buf_append(out, s, 1);
	}
}

static void header(struct buf *out, const char *name, const char *type, const char *help)
{
	buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The exporter's label set of one peer, as `wg show dump` gives it. */
static void peer_labels(struct buf *out, const char *ifname, const struct snapshot *s,
			const struct snap_peer *p)
{
	char key[BASE64_KEY_LEN + 1], addr[INET6_ADDRSTRLEN];
	const char *name = metrics_names_find(s->names, p->public_key);

	base64_encode_key(key, p->public_key);
	buf_printf(out, "interface=\"");
	put_escaped(out, ifname);
	buf_printf(out, "\",public_key=\"%s\",allowed_ips=\"", key);
	for (size_t i = 0; i < p->n_ips; i++) {
		const struct snap_ip *ip = &s->ips[p->first_ip + i];

		if (inet_ntop(ip->family, ip->addr, addr, sizeof(addr)))
			buf_printf(out, "%s%s/%u", i ? "," : "", addr, ip->cidr);
	}
	buf_printf(out, "%s\"", p->n_ips ? "" : "(none)");
	if (name) {
		buf_printf(out, ",friendly_name=\"");
		put_escaped(out, name);
		buf_append(out, "\"", 1);
	}
}

enum peer_value { SENT, RECEIVED, HANDSHAKE, HANDSHAKE_DELAY };

static void peer_metric(struct buf *out, const char *ifname, const struct snapshot *s,
			const char *name, const char *type, const char *help, enum peer_value what)
{
	header(out, name, type, help);
	for (size_t i = 0; i < s->n_peers; i++) {
		const struct snap_peer *p = &s->peers[i];
		uint64_t hs = p->last_handshake_wall_ns / 1000000000ULL;
		/* the exporter's delay: now minus the handshake's time, which
		 * is 0 (so the delay is now) before the first handshake */
		uint64_t v = what == SENT	 ? p->tx_bytes
			     : what == RECEIVED	 ? p->rx_bytes
			     : what == HANDSHAKE ? hs
						 : (s->now_s > hs ? s->now_s - hs : 0);

		buf_printf(out, "%s{", name);
		peer_labels(out, ifname, s, p);
		buf_printf(out, "} %llu\n", (unsigned long long)v);
	}
}

/* name{interface="...",label="value"} v */
static void sample(struct buf *out, const char *name, const char *ifname, const char *label,
		   const char *value, uint64_t v)
{
	buf_printf(out, "%s{interface=\"", name);
	put_escaped(out, ifname);
	if (label)
		buf_printf(out, "\",%s=\"%s", label, value);
	buf_printf(out, "\"} %llu\n", (unsigned long long)v);
}

/* One sample of a labelled series. */
struct labelled {
	const char *value;
	uint64_t v;
};

static void device_metrics(struct buf *out, struct zt_runtime *zt, const struct snapshot *s)
{
	const struct wg_device_stats *st = &s->st;
	const char *ifn = zt->ifname;
	const struct labelled hs[] = {
	    {"initiated", st->handshake_initiations_sent}, {"completed", st->handshakes_completed},
	    {"responded", st->handshakes_responded},	   {"timed_out", st->handshakes_timed_out},
	    {"rejected", st->handshakes_rejected},
	};
	const struct labelled drops[] = {
	    {"bad_mac", st->dropped_bad_mac},
	    {"replay", st->dropped_replay},
	    {"wrong_source", st->dropped_wrong_source},
	    {"no_session", st->dropped_no_session},
	    {"invalid", st->dropped_invalid},
	    {"cookie_sent", st->cookie_replies_sent},
	    {"ratelimited", st->handshakes_ratelimited},
	    {"rng_unseeded", st->handshakes_dropped_rng},
	    {"no_route", st->dropped_no_route},
	    {"no_endpoint", st->dropped_no_endpoint},
	    {"staged_overflow", st->dropped_staged},
	    {"routing_loop", st->dropped_routing_loop},
	    {"handshake_queue_full", zt_drops_read(&zt->drops.handshake_queue_full)},
	    {"unrecognised", zt_drops_read(&zt->drops.unrecognised)},
	    {"tun_full", zt_drops_read(&zt->drops.tun_full)},
	    {"socket_error", zt_drops_read(&zt->drops.socket_error)},
	    {"malformed_offload",
	     atomic_load_explicit(&zt->dp.offload_stats.malformed, memory_order_relaxed)},
	};
	const struct labelled offloads[] = {
	    {"tun_vnet_hdr", zt->dp.tun.vnet_hdr},
	    {"tun_gro", atomic_load_explicit(&zt->dp.tun_gro, memory_order_relaxed)},
	    {"tun_uso", zt->dp.tun.uso},
	    {"udp_gso", udp_gso_enabled()},
	};

	header(out, "zinctun_peers", "gauge", "Configured peers");
	sample(out, "zinctun_peers", ifn, NULL, NULL, s->n_peers);
	header(out, "zinctun_handshakes_total", "counter",
	       "Handshakes by outcome (rejected: incoming messages dropped, see "
	       "zinctun_packets_dropped_total)");
	for (size_t i = 0; i < sizeof(hs) / sizeof(hs[0]); i++)
		sample(out, "zinctun_handshakes_total", ifn, "outcome", hs[i].value, hs[i].v);
	header(out, "zinctun_keypair_rotations_total", "counter",
	       "Session keypairs that became current");
	sample(out, "zinctun_keypair_rotations_total", ifn, NULL, NULL, st->keypair_rotations);
	header(out, "zinctun_endpoint_changes_total", "counter",
	       "Peer endpoints learned or moved from authenticated packets");
	sample(out, "zinctun_endpoint_changes_total", ifn, NULL, NULL, st->endpoint_changes);
	header(out, "zinctun_packets_dropped_total", "counter", "Packets dropped, by reason");
	for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++)
		sample(out, "zinctun_packets_dropped_total", ifn, "reason", drops[i].value,
		       drops[i].v);
	header(out, "zinctun_handshake_queue_length", "gauge",
	       "Incoming handshake messages waiting");
	sample(out, "zinctun_handshake_queue_length", ifn, NULL, NULL, hsq_len(&zt->hsq));
	header(out, "zinctun_offload_enabled", "gauge", "Offloads in use (1) or not (0)");
	for (size_t i = 0; i < sizeof(offloads) / sizeof(offloads[0]); i++)
		sample(out, "zinctun_offload_enabled", ifn, "offload", offloads[i].value,
		       offloads[i].v);
	header(out, "zinctun_crypto_worker_threads", "gauge", "Crypto worker threads");
	sample(out, "zinctun_crypto_worker_threads", ifn, NULL, NULL,
	       (uint64_t)zt->dp.pool.n_threads);
	header(out, "zinctun_tun_queues", "gauge", "TUN queues, one reader thread each");
	sample(out, "zinctun_tun_queues", ifn, NULL, NULL, (uint64_t)zt->dp.tun.n_queues);
}

/* zinc_impl_describe()'s "name=value ..." pairs as labels. */
static void crypto_info(struct buf *out)
{
	const char *d = zinc_impl_describe();

	header(out, "zinctun_crypto_info", "gauge", "Crypto implementations in use (Zinc)");
	buf_printf(out, "zinctun_crypto_info{");
	for (bool first = true; *d;) {
		size_t n = strcspn(d, " "), k = strcspn(d, "=");
		bool name_ok = k < n && k > 0;

		for (size_t i = 0; name_ok && i < k; i++)
			name_ok = (d[i] >= 'a' && d[i] <= 'z') ||
				  (d[i] >= '0' && d[i] <= '9' && i) || d[i] == '_';
		if (name_ok) {
			char value[64];

			snprintf(value, sizeof(value), "%.*s", (int)(n - k - 1), d + k + 1);
			buf_printf(out, "%s%.*s=\"", first ? "" : ",", (int)k, d);
			put_escaped(out, value);
			buf_append(out, "\"", 1);
			first = false;
		}
		d += n;
		d += strspn(d, " ");
	}
	buf_printf(out, "} 1\n");
	header(out, "zinctun_build_info", "gauge", "zinctun version");
	buf_printf(out, "zinctun_build_info{version=\"%s\"} 1\n", ZINCTUN_VERSION);
}

void metrics_open_proc(struct metrics *m)
{
	char line[256];
	unsigned long long btime;
	FILE *f = fopen("/proc/stat", "re");

	m->proc.stat_fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	m->proc.boot_time_s = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %llu", &btime) == 1)
			m->proc.boot_time_s = btime;
	if (f)
		fclose(f);
}

/* process_* as the Prometheus client libraries name them. */
static void process_metrics(struct buf *out, const struct metrics_proc *proc)
{
	char stat[PROC_STAT_MAX + 1];
	unsigned long long field[STAT_RSS + 1] = {0};
	const long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	ssize_t n = proc->stat_fd >= 0 ? pread(proc->stat_fd, stat, PROC_STAT_MAX, 0) : -1;
	char *p;

	if (n <= 0 || hz <= 0 || page <= 0)
		return;
	stat[n] = 0;
	/* the command name may hold spaces and parentheses: after the last ')' */
	p = strrchr(stat, ')');
	if (!p)
		return;
	p++;
	for (int i = STAT_FIRST_AFTER_COMM; i <= STAT_RSS && *p; i++) {
		char *end;

		while (*p == ' ')
			p++;
		field[i] = strtoull(p, &end, 10);
		p = end;
		while (*p && *p != ' ')
			p++; /* the state letter */
	}
	header(out, "process_cpu_seconds_total", "counter", "User and system CPU time spent");
	buf_printf(out, "process_cpu_seconds_total %.2f\n",
		   (double)(field[STAT_UTIME] + field[STAT_STIME]) / (double)hz);
	header(out, "process_resident_memory_bytes", "gauge", "Resident memory size");
	buf_printf(out, "process_resident_memory_bytes %llu\n",
		   field[STAT_RSS] * (unsigned long long)page);
	header(out, "process_threads", "gauge", "Threads of the process");
	buf_printf(out, "process_threads %llu\n", field[STAT_THREADS]);
	if (proc->boot_time_s) {
		header(out, "process_start_time_seconds", "gauge",
		       "Start time since the Unix epoch");
		buf_printf(out, "process_start_time_seconds %.2f\n",
			   (double)proc->boot_time_s + (double)field[STAT_STARTTIME] / (double)hz);
	}
}

bool metrics_render(struct zt_runtime *zt, const struct metrics_proc *proc, struct buf *out)
{
	struct snapshot s;
	bool ok = take_snapshot(zt, &s);

	s.names = &proc->names;
	s.now_s = zt_wall_ns() / 1000000000ULL;

	if (ok) {
		peer_metric(out, zt->ifname, &s, "wireguard_sent_bytes_total", "counter",
			    "Bytes sent to the peer", SENT);
		peer_metric(out, zt->ifname, &s, "wireguard_received_bytes_total", "counter",
			    "Bytes received from the peer", RECEIVED);
		peer_metric(out, zt->ifname, &s, "wireguard_latest_handshake_seconds", "gauge",
			    "Seconds from the last handshake", HANDSHAKE);
		peer_metric(out, zt->ifname, &s, "wireguard_latest_handshake_delay_seconds",
			    "gauge", "Seconds since the last handshake", HANDSHAKE_DELAY);
		device_metrics(out, zt, &s);
		crypto_info(out);
		process_metrics(out, proc);
	}
	free_snapshot(&s);
	return ok && !out->overflow;
}
