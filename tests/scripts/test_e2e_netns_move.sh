#!/bin/sh
# The container pattern: the daemon runs in one namespace (its UDP socket
# and config socket stay there), its interface is moved into another with
# `ip link set IF netns X`. The daemon keeps serving traffic through the
# moved link (ping, iperf3), follows an MTU set inside X (its engine pads
# to that MTU: see mtu_followed), and still exits, its socket file removed,
# when the link is deleted in X or X itself is deleted.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

# N1: the daemon's namespace (UDP), N2: the peer, C1 / C2: "containers"
connect_pair zinctun zinctun
C1=zt${ID}c1 C2=zt${ID}c2 C3=zt${ID}c3
for c in $C1 $C2 $C3; do
	ip netns add "$c" || fail "ip netns add $c"
	NSES="$NSES $c"
	ip -n "$c" link set lo up
done
P=$(eval echo "\$PID_$I1")

# wait_exit PID SECONDS: a namespace is torn down by a kernel worker, later
wait_exit() { for _ in $(seq 1 $(($2 * 10))); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; return 1; }
# mtu_followed NS MTU: a ping of exactly MTU bytes from NS through the
# link reaches the peer's namespace as a WireGuard message of MTU + 32
# bytes (header and tag): the engine pads to 16 bytes but never past the
# MTU it was told, and none of the MTUs used here is a multiple of 16, so
# an engine still on another MTU sends a longer message. An iptables rule
# in N2 counts the datagrams of that IP length (+ 20 IP, + 8 UDP).
WG_OVERHEAD=32 IP_UDP_HEADERS=28
mtu_followed() {
	ns=$1 mtu=$2
	rule="INPUT -p udp -s $(ul4 1) -m length --length $((mtu + WG_OVERHEAD + IP_UDP_HEADERS))"
	ip netns exec "$N2" iptables -A $rule || fail "iptables -A $rule"
	ip netns exec "$ns" ping -c 1 -W 2 -M do -s $((mtu - IP_UDP_HEADERS)) "$(tun4 2)" >"$T/ping.out" 2>&1 ||
		{ cat "$T/ping.out"; fail "ping of $mtu bytes from $ns (MTU $mtu)"; }
	n=$(ip netns exec "$N2" iptables -n -v -x -L INPUT | awk '/length/ { print $1 }')
	ip netns exec "$N2" iptables -D $rule
	[ "${n:-0}" -ge 1 ] ||
		fail "a $mtu-byte packet did not leave as $((mtu + WG_OVERHEAD)) bytes: the engine's MTU is not $mtu"
	ok "a $mtu-byte packet left as $((mtu + WG_OVERHEAD)) bytes (padded to the MTU $mtu)"
}
wait_log() { for _ in $(seq 1 50); do grep -q "$2" "$T/$1.log" && return 0; sleep 0.1; done; return 1; }

# -- move: the link leaves N1, the daemon stays
ip -n "$N1" link set "$I1" netns "$C1" || fail "move $I1 to $C1"
sleep 1
kill -0 "$P" 2>/dev/null || fail "daemon exited when its link was moved"
[ -S "$SOCKDIR/$I1.sock" ] || fail "socket removed when the link was moved"
ip -n "$N1" link show "$I1" >/dev/null 2>&1 && fail "$I1 still in $N1"
ip netns exec "$N1" wg show "$I1" >/dev/null || fail "wg show after the move"
wait_log "$I1" "interface $I1 moved to network namespace id" || fail "move not logged"
ok "link moved to $C1, daemon $P still running"

# addresses do not move with a link: the container configures its side
ip -n "$C1" addr add "$(tun4 1)/24" dev "$I1"
ip -n "$C1" addr add "$(tun6 1)/64" dev "$I1" nodad
ip -n "$C1" link set "$I1" up
ping_ok "$C1" "$(tun4 2)" 3 || { cat "$T/ping.out"; fail "ping v4 from $C1"; }
ping_ok "$C1" "$(tun6 2)" 3 || { cat "$T/ping.out"; fail "ping v6 from $C1"; }
ping_ok "$N2" "$(tun4 1)" 3 || { cat "$T/ping.out"; fail "ping v4 into $C1"; }
ok "ping through the moved link"
iperf "$C1" "$N2" "$(tun4 1)" "peer -> container"
iperf "$N2" "$C1" "$(tun4 2)" "container -> peer"
# the UDP socket stayed in N1: the peer still sees N1's underlay address
check_peer_stats "$N2" "$I2" k1 "$(ul4 1):$P1"

# -- an MTU set inside the container is followed
ip -n "$C1" link set "$I1" mtu 1300
wait_log "$I1" "MTU of $I1 is now 1300" || fail "MTU set in $C1 not seen"
mtu_followed "$C1" 1300
ok "MTU set in $C1 followed"

# -- back to the daemon's namespace and out again: still followed
ip -n "$C1" link set "$I1" netns "$N1" || fail "move $I1 back to $N1"
wait_log "$I1" "interface $I1 is back in this network namespace" || fail "return not seen"
ip -n "$N1" addr add "$(tun4 1)/24" dev "$I1"
ip -n "$N1" link set "$I1" up mtu 1320
wait_log "$I1" "MTU of $I1 is now 1320" || fail "MTU set in $N1 after the return not seen"
mtu_followed "$N1" 1320
ip -n "$N1" link set "$I1" netns "$C1" || fail "move $I1 to $C1 again"
ip -n "$C1" addr add "$(tun4 1)/24" dev "$I1"
ip -n "$C1" link set "$I1" up mtu 1340
wait_log "$I1" "MTU of $I1 is now 1340" || fail "MTU set in $C1 after the second move not seen"
mtu_followed "$C1" 1340
kill -0 "$P" 2>/dev/null || fail "daemon exited during the moves"
ok "moved back to $N1 and out again, MTU followed each time"

# -- deleting the link in the container stops the daemon
ip -n "$C1" link del "$I1" || fail "ip -n $C1 link del"
wait_exit "$P" 10 || fail "daemon still running after its link was deleted in $C1"
sock_removed "$I1" || fail "after link deletion in $C1"
ok "exit on link deletion in $C1"

# -- moved on from the container to a namespace the daemon's has no id
# for, then that namespace is deleted: the daemon stops
I3=$(ifname m)
start_daemon zinctun "$N1" "$I3"
P3=$LAST_PID
ip -n "$N1" link set "$I3" netns "$C2" || fail "move $I3 to $C2"
ip -n "$C2" link set "$I3" netns "$C3" || fail "move $I3 from $C2 to $C3"
wait_log "$I3" "has no id" || fail "move out of sight not logged"
kill -0 "$P3" 2>/dev/null || fail "daemon exited when its link was moved on to $C3"
ip netns del "$C3"
wait_exit "$P3" 30 || fail "daemon still running after $C3 was deleted"
sock_removed "$I3" || fail "after $C3 was deleted"
ok "exit on deletion of the namespace $C3"

# -- the same with a namespace the daemon's namespace has an id for
I5=$(ifname k)
start_daemon zinctun "$N1" "$I5"
P5=$LAST_PID
ip -n "$N1" link set "$I5" netns "$C2" || fail "move $I5 to $C2"
wait_log "$I5" "interface $I5 moved to network namespace id" || fail "move to $C2 not logged"
ip netns del "$C2"
wait_exit "$P5" 30 || fail "daemon still running after $C2 was deleted"
sock_removed "$I5" || fail "after $C2 was deleted"
ok "exit on deletion of the namespace $C2"

# -- plain deletion in the daemon's own namespace still stops it at once
I4=$(ifname d)
start_daemon zinctun "$N1" "$I4"
P4=$LAST_PID
ip -n "$N1" link del "$I4"
wait_gone "$P4" || fail "still running after ip link del in its own namespace"
sock_removed "$I4" || fail "after ip link del"
ok "exit on link deletion in the daemon's namespace"
