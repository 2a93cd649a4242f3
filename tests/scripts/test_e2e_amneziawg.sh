#!/bin/sh
# zinctun <-> amneziawg-go v0.2.16 with AmneziaWG obfuscation (issue 30):
# per parameter family (junk, padding, headers, special junk, all) each side
# initiates (IPv4 then IPv6 underlay), ping and a short iperf3 both ways,
# transfer counters on both (pair_test), the same get output on both. With
# everything on, a capture of the underlay: no message starts with a
# WireGuard type and three zero bytes, none has the handshake sizes 148 or
# 92, and the special and jc junk packets come right before each initiation. A different h1 on one
# side: no handshake, and zinctun says why at info. Parameters are set
# with contrib/zinctun-awg (wg cannot). SKIP (77) without Go or the peer.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_peer.sh"
AWG=$TESTS_DIR/../../contrib/zinctun-awg
command -v tcpdump >/dev/null || { echo "tcpdump not installed"; exit $SKIPPED; }
need_peer amneziawg-go || { echo "amneziawg-go not available: $PEER_SKIP"; exit $SKIPPED; }
log "amneziawg-go: $PEER_BIN ($PEER_VERSION)"

JUNK="jc=3 jmin=40 jmax=70"
PAD="s1=23 s2=41 s3=7 s4=9"
HDR="h1=123456-123460 h2=223456 h3=323456-323999 h4=423456-433456"
SPECIAL="i1=<b 0xc0ffee><r 16><t> i2=<rc 8><rd 4>"
SPECIAL_LENS="23 12" # i1, i2 packet sizes

# awg_set IFNAME KEY=VALUE...: on zinctun or amneziawg-go, by its socket
awg_set() {
	ifn=$1
	shift
	dir=$SOCKDIR
	[ "$(impl_of "$ifn")" = amneziawg-go ] && dir=/var/run/amneziawg
	SOCKDIR=$dir "$AWG" "$ifn" "$@" || fail "zinctun-awg $ifn $*"
}

# set_both: $PARAMS (words; i specs with spaces come from $SPECIAL) on both;
# s4 makes every data packet longer: the tunnel MTU gives way (both ends)
set_both() {
	ip -n "$N1" link set "$I1" mtu 1400
	ip -n "$N2" link set "$I2" mtu 1400
	for ifn in "$I1" "$I2"; do
		# shellcheck disable=SC2086 # PARAMS: one KEY=VALUE per word
		[ -n "$PARAMS" ] && awg_set "$ifn" $PARAMS
		[ -n "${WITH_SPECIAL:-}" ] && awg_set "$ifn" "${SPECIAL%% i2=*}" "i2=${SPECIAL##* i2=}"
	done
	# the same get output as amneziawg-go's
	got1=$(awg_set "$I1") got2=$(awg_set "$I2")
	[ "$got1" = "$got2" ] || fail "get: zinctun [$got1], amneziawg-go [$got2]"
	[ -n "${CAPTURE:-}" ] && start_capture
	return 0
}

start_capture() {
	ip netns exec "$N2" tcpdump -U -n -i eth0 -w "$T/cap.pcap" udp >"$T/tcpdump.log" 2>&1 &
	CAP_PID=$!
	PIDS="$PIDS $CAP_PID"
	for _ in $(seq 1 30); do
		grep -q listening "$T/tcpdump.log" && break
		sleep 0.1
	done
}

# check_capture: the wire with every family on (see the top)
check_capture() {
	kill -INT "$CAP_PID"
	wait "$CAP_PID" 2>/dev/null
	python3 - "$T/cap.pcap" "$P1" 3 40 70 23 123456 123460 "$SPECIAL_LENS" <<'PY' || fail "capture"
import struct, sys
path, port, jc, jmin, jmax, s1, h1lo, h1hi, special = sys.argv[1:]
port, jc, jmin, jmax, s1, h1lo, h1hi = map(int, (port, jc, jmin, jmax, s1, h1lo, h1hi))
special = [int(x) for x in special.split()]
data = open(path, "rb").read()
pkts, off = [], 24
while off + 16 <= len(data):
    incl = struct.unpack_from("<I", data, off + 8)[0]
    frame = data[off + 16 : off + 16 + incl]
    off += 16 + incl
    eth = struct.unpack_from("!H", frame, 12)[0]
    if eth == 0x0800:
        ip = frame[14:]; l4 = ip[(ip[0] & 15) * 4 :]
    elif eth == 0x86DD:
        l4 = frame[14 + 40 :]
    else:
        continue
    sport = struct.unpack_from("!H", l4, 0)[0]
    pkts.append((sport, l4[8:]))
bad = [p for _, p in pkts if len(p) >= 4 and 1 <= p[0] <= 4 and p[1:4] == b"\0\0\0"]
sizes = [p for _, p in pkts if len(p) in (148, 92)]
print(f"{len(pkts)} datagrams captured; {len(bad)} start like WireGuard, {len(sizes)} of 148/92 bytes")
if not pkts or bad or sizes:
    sys.exit(1)
mine = [p for s, p in pkts if s == port]
inits = [i for i, p in enumerate(mine) if len(p) == 148 + s1
         and h1lo <= struct.unpack_from("<I", p, s1)[0] <= h1hi]
if not inits:
    sys.exit("no initiation from zinctun")
for i in inits:
    before = mine[max(0, i - len(special) - jc) : i]
    want_special = [len(p) for p in before[: len(special)]]
    junk = [len(p) for p in before[len(special) :]]
    print(f"initiation {i}: before it {want_special} (special) and {junk} (junk)")
    if want_special != special or len(junk) != jc or not all(jmin <= n <= jmax for n in junk):
        sys.exit("junk does not precede the initiation as configured")
PY
	ok "capture: obfuscated as configured"
}

family() { # NAME: pair_test and iperf3 with PARAMS on both sides
	log "---- $1: ${PARAMS:-} ${WITH_SPECIAL:+$SPECIAL}"
	PAIR_HOOK=set_both pair_test zinctun amneziawg-go
	iperf "$N2" "$N1" "$(tun4 2)" "TCP zinctun -> amneziawg-go ($1)" -t 1
	iperf "$N2" "$N1" "$(tun4 2)" "TCP amneziawg-go -> zinctun ($1)" -t 1 -R
	[ -n "${CAPTURE:-}" ] && check_capture
	return 0
}

# A sanitizer build (SANITIZE set) runs every family's code in "all" below:
# the single families are left to make check, which keeps CI's time.
if [ -z "${SANITIZE:-}" ]; then
	(fresh_env j; PARAMS=$JUNK family junk) || exit 1
	(fresh_env p; PARAMS=$PAD family padding) || exit 1
	(fresh_env h; PARAMS=$HDR family headers) || exit 1
	(fresh_env s; PARAMS="" WITH_SPECIAL=1 family special) || exit 1
fi
(fresh_env a; PARAMS="$JUNK $PAD $HDR" WITH_SPECIAL=1 CAPTURE=1 family all) || exit 1

# different h1: amneziawg-go's initiations are no message to zinctun
mismatch() {
	ns_setup 2
	N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname a) I2=$(ifname b)
	genkeys k1
	genkeys k2
	start_daemon zinctun "$N1" "$I1"
	start_daemon amneziawg-go "$N2" "$I2"
	conf_iface "$N1" "$I1" k1 1
	conf_iface "$N2" "$I2" k2 2
	P1=$(listen_port "$N1" "$I1")
	awg_set "$I1" $PAD h1=1000
	awg_set "$I2" $PAD h1=2000
	add_peer "$N1" "$I1" k2 "$(tun4 2)/32"
	add_peer "$N2" "$I2" k1 "$(tun4 1)/32" "$(ul4 1):$P1"
	! ip netns exec "$N2" ping -c 2 -i 0.5 -W 1 "$(tun4 1)" >/dev/null 2>&1 ||
		fail "a handshake with different h1"
	[ -z "$(wg_field "$N1" "$I1" latest-handshakes k2 | grep -v '^0$')" ] ||
		fail "zinctun completed a handshake with a different h1"
	grep -q "AmneziaWG parameters (s1-s4, h1-h4) differ" "$T/$I1.log" ||
		fail "zinctun did not log why"
	ok "different h1: no handshake; zinctun: $(grep -m1 'AmneziaWG parameters' "$T/$I1.log")"
}
(fresh_env m; mismatch) || exit 1
echo PASS
