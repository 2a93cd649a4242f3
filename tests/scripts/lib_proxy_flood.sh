# The floods of issue 24 against zinctun-proxy (sourced by
# test_e2e_proxy_flood_*.sh, not a test). lib_proxy.sh's set-up (the TUN
# peer in namespace 1 with its servers, the proxy in namespace 2) plus a
# second peer of the proxy: build/tools/tcpflood, a WireGuard peer on the
# engine alone that makes the TCP segments inside the tunnel itself. It runs
# in namespace 1 on its own UDP port, its tunnel addresses are $FLOOD_NET,
# so the proxy routes everything for $FLOOD_NET to it; legitimate traffic
# keeps going through the TUN peer meanwhile.
. "$(dirname "$0")/lib_proxy.sh"

TCPFLOOD=$(realpath -m "$BUILD/tools/tcpflood")
FLOOD_NET=10.98.0.0/16	# the flood peer's AllowedIPs at the proxy
FLOOD_ADDR=10.98.0.1	# its first address (oos-connect's source, oos-accept's server)
FLOOD_UDP_PORT=51801	# its UDP port in namespace 1
PROXY_UDP_PORT=51802	# the proxy's ListenPort, so the flood peer knows its endpoint
RSS_EVERY=0.2		# seconds between two samples of the proxy's RSS
KB_PER_MB=1024
TCK=$(getconf CLK_TCK)

# flood_setup: the namespaces, the TUN peer and its servers, the proxy with
# the flood peer as its second [Peer]; the tunnel is up when it returns.
flood_setup() {
	resolve_proxy
	[ "$PROXY_IMPL" = zinctun ] || { echo "the floods need tcpflood as a second peer of zinctun-proxy"; exit 77; }
	[ -x "$TCPFLOOD" ] || fail "missing $TCPFLOOD (make tests)"
	peer_setup
	genkeys flood
	write_conf "$CONF"
	sed -i "/^\[Interface\]/a ListenPort = $PROXY_UDP_PORT" "$CONF"
	cat >>"$CONF" <<-EOF

	[Peer]
	PublicKey = $(pub flood)
	AllowedIPs = $FLOOD_NET
	EOF
	start_proxy "$CONF"
	wait_tunnel
}

# flood_start LOG TCPFLOOD-ARGS...: the flood peer in namespace 1, its
# output in $T/LOG.log, its PID in FLOOD_PID; returns once its handshake
# with the proxy is done.
flood_start() {
	name=$1
	shift
	: >"$T/$name.log"
	spawn_in "$N1" "$name" "$TCPFLOOD" --key "$(cat "$T/flood.key")" --proxy-pub "$(pub proxy)" \
		--bind "$(ul4 1):$FLOOD_UDP_PORT" --proxy "$(ul4 2):$PROXY_UDP_PORT" --src "$FLOOD_NET" "$@"
	FLOOD_PID=$LAST_PID
	wait_in "$T/$name.log" "tunnel up" 200 || fail "tcpflood: no tunnel ($(tail -n 3 "$T/$name.log"))"
}

# flood_wait LOG SECONDS: the flood peer exits 0 within SECONDS
flood_wait() {
	for _ in $(seq 1 $(($2 * 10))); do
		kill -0 "$FLOOD_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$FLOOD_PID" 2>/dev/null && fail "tcpflood still running after $2 s: $(tail -n 2 "$T/$1.log")"
	wait "$FLOOD_PID" || fail "tcpflood failed: $(tail -n 3 "$T/$1.log")"
}

proxy_rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$PROXY_PID/status"; }

# rss_baseline: the largest of a few samples over a second, in kB
rss_baseline() {
	for _ in 1 2 3 4 5; do proxy_rss; sleep "$RSS_EVERY"; done | sort -n | tail -n 1
}

# rss_sampler_start / rss_sampler_max: the proxy's RSS sampled in the
# background until stopped; the largest sample, in kB
rss_sampler_start() {
	: >"$T/rss.samples"
	(while kill -0 "$PROXY_PID" 2>/dev/null; do proxy_rss >>"$T/rss.samples"; sleep "$RSS_EVERY"; done) &
	RSS_PID=$!
	PIDS="$PIDS $RSS_PID"
}

rss_sampler_max() {
	kill "$RSS_PID" 2>/dev/null
	wait "$RSS_PID" 2>/dev/null
	sort -n "$T/rss.samples" | tail -n 1
}

proxy_alive() { # WHEN
	kill -0 "$PROXY_PID" 2>/dev/null || fail "the proxy died $1"
}

# iperf_rate SECONDS [-R]: iperf3 from the client namespace through the
# [TCPClientTunnel] to the TUN peer's iperf3 server (-R: the peer sends, so
# the proxy's lwIP receives); the receiver's rate in Mbit/s, 0 if it failed
# (its output in $T/iperf.out)
iperf_rate() {
	rate=
	ip netns exec "$N2" timeout $(($1 + 30)) iperf3 -c 127.0.0.1 -p "$FWD_IPERF_PORT" -t "$1" -f m ${2:-} \
		>"$T/iperf.out" 2>&1 &&
		rate=$(grep receiver "$T/iperf.out" | grep -oE "[0-9.]+ Mbits/sec" | tail -n 1 | cut -d' ' -f1)
	echo "${rate:-0}"
}

# proxy_restart: a fresh proxy (the same file), so that what the allocator
# kept from an earlier flood does not hide the next one's growth
proxy_restart() {
	kill "$PROXY_PID" 2>/dev/null
	wait_gone "$PROXY_PID" || fail "the proxy did not exit on SIGTERM"
	start_proxy "$CONF"
	wait_tunnel
}

# udp_drops: datagrams the kernel dropped for a full socket buffer in the
# proxy's namespace so far (the proxy's WireGuard socket is its only one
# that receives there)
udp_drops() {
	ip netns exec "$N2" awk '/^Udp:/ { if (seen) { for (i = 1; i <= NF; i++) if (h[i] == "RcvbufErrors") print $i; exit }
		for (i = 1; i <= NF; i++) h[i] = $i; seen = 1 }' /proc/net/snmp
}
