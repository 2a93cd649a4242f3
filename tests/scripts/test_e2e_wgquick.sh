#!/bin/sh
# wg-quick up/down with WG_QUICK_USERSPACE_IMPLEMENTATION=zinctun inside two
# namespaces: the daemon backgrounds once ready, wg-quick configures it
# (setconf, addresses, MTU, routes), traffic flows, and wg-quick down
# (ip link delete) makes the daemon exit and remove its socket.
# Both sides run as nobody (the default; the second is also told so with
# ZINCTUN_USER through wg-quick's environment): each keeps only
# CAP_NET_ADMIN (+ NET_BIND_SERVICE), and fwmark and listen-port changes
# still work. After wg-quick down the socket files are gone (removed by the
# daemons' zinctun-sockrm, as nobody may not unlink in root's directory) and
# wg show answers as for no interface.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
IMPL=${IMPL:-$ZINCTUN}

ns_setup 2
N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname q) I2=$(ifname r)
IFACES="$IFACES $I1 $I2"
genkeys k1
genkeys k2
cat >"$T/$I1.conf" <<EOC
[Interface]
PrivateKey = $(cat "$T/k1.key")
Address = $(tun4 1)/24, $(tun6 1)/64
ListenPort = 51820
MTU = 1380

[Peer]
PublicKey = $(pub k2)
AllowedIPs = $(tun4 2)/32, $(tun6 2)/128
Endpoint = $(ul4 2):51821
EOC
cat >"$T/$I2.conf" <<EOC
[Interface]
PrivateKey = $(cat "$T/k2.key")
Address = $(tun4 2)/24, $(tun6 2)/64
ListenPort = 51821

[Peer]
PublicKey = $(pub k1)
AllowedIPs = $(tun4 1)/32, $(tun6 1)/128
PersistentKeepalive = 15
EOC
chmod 600 "$T"/*.conf

find_pid() {
	for d in /proc/[0-9]*; do
		[ "$(tr '\0' ' ' 2>/dev/null <"$d/cmdline")" = "$IMPL $1 " ] && { basename "$d"; return; }
	done
}
up() { # NS IF [env...]
	ns=$1 ifn=$2
	shift 2
	ip netns exec "$ns" env WG_QUICK_USERSPACE_IMPLEMENTATION="$IMPL" LOG_LEVEL=info "$@" \
		wg-quick up "$T/$ifn.conf" >>"$T/$ifn.log" 2>&1 || fail "wg-quick up $ifn"
	set -- "$ns" "$ifn"
	p=$(find_pid "$2")
	[ -n "$p" ] || fail "$2: daemon not running after wg-quick up"
	PIDS="$PIDS $p"
	eval "PID_$2=$p"
}
up "$N1" "$I1" ZINCTUN_METRICS=9586
up "$N2" "$I2" ZINCTUN_USER=nobody
grep -q "Missing WireGuard kernel module" "$T/$I1.log" || fail "wg-quick did not use the userspace path"
[ "$(ip netns exec "$N1" wg show "$I1" listen-port)" = 51820 ] || fail "listen port from config"
ip -n "$N1" link show "$I1" | grep -q "mtu 1380" || fail "MTU from config"
ip -n "$N1" link show "$I1" | grep -q "UP" || fail "link not up"
ok "wg-quick up: daemons $(eval echo \$PID_$I1) and $(eval echo \$PID_$I2)"

ping_ok "$N1" "$(tun4 2)" || { cat "$T/ping.out"; fail "ping v4"; }
ping_ok "$N2" "$(tun6 1)" || { cat "$T/ping.out"; fail "ping v6"; }
[ "$(ip netns exec "$N2" wg show "$I2" persistent-keepalive | awk '{print $2}')" = 15 ] ||
	fail "keepalive from config"
ok "traffic through wg-quick interfaces"

# a second interface on the same metrics port: wg-quick up fails and the
# daemon's line says why (wg-quick's own "Protocol not supported" follows)
I3=$(ifname s)
IFACES="$IFACES $I3"
genkeys k3
printf '[Interface]\nPrivateKey = %s\nListenPort = 51823\n' "$(cat "$T/k3.key")" >"$T/$I3.conf"
ip netns exec "$N1" env WG_QUICK_USERSPACE_IMPLEMENTATION="$IMPL" ZINCTUN_METRICS=9586 \
	wg-quick up "$T/$I3.conf" >"$T/$I3.out" 2>&1 && fail "$I3 up on a taken metrics port"
grep -q "zinctun: metrics address 9586 is in use (another interface's daemon?): each interface needs its own ZINCTUN_METRICS port" \
	"$T/$I3.out" || fail "metrics port conflict not explained: $(cat "$T/$I3.out")"
ip -n "$N1" link show "$I3" >/dev/null 2>&1 && fail "$I3 left behind"
ok "wg-quick up on a taken metrics port: $(grep -F "metrics address" "$T/$I3.out")"

ip netns exec "$N1" wg showconf "$I1" >"$T/show1" || fail "showconf"
grep -q "Endpoint = $(ul4 2):51821" "$T/show1" || fail "endpoint in showconf"

# the unprivileged side: uid nobody, only CAP_NET_ADMIN and (by default, as
# the port is configured after start) CAP_NET_BIND_SERVICE left
p2=$(eval echo \$PID_$I2)
uid=$(awk '/^Uid:/ { print $2 }' /proc/"$p2"/status)
capeff=$(awk '/^CapEff:/ { print $2 }' /proc/"$p2"/status)
[ "$uid" = "$(id -u nobody)" ] || fail "$I2 runs as uid $uid, not nobody"
uid1=$(awk '/^Uid:/ { print $2 }' /proc/"$(eval echo \$PID_$I1)"/status)
[ "$uid1" = "$(id -u nobody)" ] || fail "$I1 (no user given) runs as uid $uid1, not nobody"
[ "$capeff" = 0000000000001400 ] || fail "$I2 effective capabilities $capeff"
ip netns exec "$N2" wg set "$I2" fwmark 0x42 listen-port 51822 || fail "fwmark/port as nobody"
[ "$(ip netns exec "$N2" wg show "$I2" fwmark)" = 0x42 ] || fail "fwmark not set"
[ "$(ip netns exec "$N2" wg show "$I2" listen-port)" = 51822 ] || fail "port not changed"
# N1 learns the new port from N2's next authenticated packet (roaming)
ping_ok "$N2" "$(tun4 1)" || { cat "$T/ping.out"; fail "ping after the port change"; }
ok "as nobody (CapEff $capeff): fwmark 0x42 and listen-port 51822 set, traffic flows"

for pair in "$N1 $I1" "$N2 $I2"; do
	set -- $pair
	p=$(eval echo \$PID_$2)
	ip netns exec "$1" wg-quick down "$T/$2.conf" >>"$T/$2.log" 2>&1 || fail "wg-quick down $2"
	wait_gone "$p" || fail "$2: daemon still running after wg-quick down"
	sock_removed "$2" || fail "$2: after wg-quick down"
	ip -n "$1" link show "$2" >/dev/null 2>&1 && fail "$2: link left"
	ok "wg-quick down $2: daemon exited, socket removed"
done
echo PASS
