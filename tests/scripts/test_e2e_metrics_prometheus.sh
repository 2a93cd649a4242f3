#!/bin/sh
# The metrics endpoint as a real Prometheus sees it: two zinctuns (one under
# the kill-mode seccomp filter) with --metrics on their underlay addresses,
# a Prometheus server scraping both every second during ping and iperf3;
# PromQL through its HTTP API then gives the bytes and the handshake time
# `wg show dump` gives (within one scrape), and a packet with a spoofed
# inner source shows in the wrong_source drop counter. One daemon runs
# with ZINC_IMPL=generic, and its crypto info says so. Side 1 reads its
# wg-quick file's "# friendly_name =" comments (ZINCTUN_METRICS_NAMES): its
# series carry the label as prometheus_wireguard_exporter -n gives it (same
# label names, in its order), and wireguard_latest_handshake_delay_seconds
# is the time since the handshake (the exporter's -d).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

PROMETHEUS=$(command -v prometheus) || { echo "SKIP: no prometheus (scripts/install-deps installs it)"; exit 77; }
MPORT=9586
PROM=127.0.0.1:9090

KILL=ZINCTUN_SECCOMP=kill # sanitizer builds: off, for their runtime's calls
[ -n "${SANITIZE:-}" ] && KILL=
# side 1 on Zinc's portable code (ZINC_IMPL), side 2 on the best this CPU has
genkeys k1
genkeys k2
genkeys k3
cat >"$T/names.conf" <<EOC
[Interface]
# friendly_name = not a peer
PrivateKey = $(cat "$T/k1.key")

[Peer]
# friendly_name = side "two"
PublicKey = $(pub k2)
AllowedIPs = $(tun4 2)/32

[Peer]
# a peer with no name
PublicKey = $(pub k3)
EOC
ENV1="ZINCTUN_METRICS=$(ul4 1):$MPORT ZINC_IMPL=generic ZINCTUN_METRICS_NAMES=$T/names.conf"
ENV2="ZINCTUN_METRICS=$(ul4 2):$MPORT $KILL"
connect_pair zinctun zinctun

cat >"$T/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: zinctun
    static_configs:
      - targets: ['$(ul4 1):$MPORT', '$(ul4 2):$MPORT']
YML
ip netns exec "$N1" "$PROMETHEUS" --config.file="$T/prometheus.yml" \
	--storage.tsdb.path="$T/prom-data" --web.listen-address=$PROM \
	--log.level=warn >"$T/prometheus.log" 2>&1 &
PIDS="$PIDS $!"

# promql EXPR: the value of the single series EXPR selects ("" if none)
promql() {
	ip netns exec "$N1" python3 - "$PROM" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = "http://%s/api/v1/query?%s" % (sys.argv[1], urllib.parse.urlencode({"query": sys.argv[2]}))
try:
    r = json.load(urllib.request.urlopen(url, timeout=5))
except Exception:
    sys.exit(0)
res = r.get("data", {}).get("result", [])
if len(res) == 1:
    print(res[0]["value"][1])
PY
}

# both targets up, as Prometheus sees them
for _ in $(seq 1 60); do
	[ "$(promql 'sum(up{job="zinctun"})')" = 2 ] && break
	sleep 0.5
done
[ "$(promql 'sum(up{job="zinctun"})')" = 2 ] || { cat "$T/prometheus.log"; fail "Prometheus does not see both zinctuns up"; }
ok "Prometheus scrapes both endpoints"

log "traffic while Prometheus scrapes"
ping_ok "$N1" "$(tun4 2)" 10 || { cat "$T/ping.out"; fail "ping"; }
iperf "$N2" "$N1" "$(tun4 2)" "1 -> 2"
ping_ok "$N2" "$(tun6 1)" 5 || { cat "$T/ping.out"; fail "ping v6"; }

# dump_field NS IFNAME PEERKEY N: field N of the peer's line in wg show dump
# (5 latest handshake, 6 rx bytes, 7 tx bytes)
dump_field() {
	ip netns exec "$1" wg show "$2" dump | awk -v k="$(pub "$3")" -v n="$4" '$1 == k { print $n }'
}

# check_match NS IFNAME PEERKEY METRIC FIELD: the value Prometheus holds
# lies between wg show's before and after (a scrape was taken between)
check_match() {
	ns=$1 ifn=$2 pk=$3 metric=$4 field=$5
	sel="$metric{interface=\"$ifn\",public_key=\"$(pub "$pk")\"}"
	for _ in $(seq 1 10); do
		before=$(dump_field "$ns" "$ifn" "$pk" "$field")
		sleep 2.5 # more than a scrape interval and its timeout
		got=$(promql "$sel")
		after=$(dump_field "$ns" "$ifn" "$pk" "$field")
		[ -n "$got" ] && [ "$before" -le "${got%.*}" ] && [ "${got%.*}" -le "$after" ] && break
		echo "retry: $sel=$got, wg show $before..$after"
	done
	[ -n "$got" ] && [ "$before" -gt 0 ] && [ "$before" -le "${got%.*}" ] && [ "${got%.*}" -le "$after" ] ||
		fail "$sel = '$got', wg show dump field $field: $before..$after"
	ok "$sel = $got (wg show dump: $after)"
}
check_match "$N1" "$I1" k2 wireguard_sent_bytes_total 7
check_match "$N1" "$I1" k2 wireguard_received_bytes_total 6
check_match "$N2" "$I2" k1 wireguard_sent_bytes_total 7
check_match "$N2" "$I2" k1 wireguard_received_bytes_total 6
check_match "$N1" "$I1" k2 wireguard_latest_handshake_seconds 5
check_match "$N2" "$I2" k1 wireguard_latest_handshake_seconds 5

# the exporter's labels: allowed IPs joined with ","
want="$(ip netns exec "$N1" wg show "$I1" dump | awk -v k="$(pub k2)" '$1 == k { print $4 }')"
got=$(promql "count(wireguard_sent_bytes_total{interface=\"$I1\",allowed_ips=\"$want\"})")
[ "$got" = 1 ] || fail "no series with allowed_ips=\"$want\""
# Prometheus saw the counter move during the traffic, not only at the end
got=$(promql "increase(wireguard_received_bytes_total{interface=\"$I2\"}[2m]) > 1000000")
[ -n "$got" ] || fail "no increase of received bytes seen by Prometheus"
got=$(promql "zinctun_handshakes_total{interface=\"$I1\",outcome=\"completed\"}")
[ "${got:-0}" -ge 1 ] || fail "handshakes completed on $I1: '$got'"
got=$(promql "zinctun_handshakes_total{interface=\"$I2\",outcome=\"responded\"}")
[ "${got:-0}" -ge 1 ] || fail "handshakes responded on $I2: '$got'"
got=$(promql "process_resident_memory_bytes{instance=\"$(ul4 2):$MPORT\"}")
[ "${got:-0}" -gt 100000 ] || fail "RSS of the sandboxed daemon: '$got'"
got=$(promql "count(zinctun_crypto_info{instance=\"$(ul4 2):$MPORT\",selftest=\"ok\"})")
[ "$got" = 1 ] || fail "zinctun_crypto_info: '$got'"
got=$(promql "count(zinctun_crypto_info{instance=\"$(ul4 1):$MPORT\",path=\"generic\",aead=\"generic\"})")
[ "$got" = 1 ] || fail "ZINC_IMPL=generic not honoured: '$got'"
ok "exporter labels, handshakes, process and crypto info"

# friendly_name as the exporter's -n adds it: after allowed_ips, quotes
# escaped; no label for a peer the file does not name
ip netns exec "$N1" wg set "$I1" peer "$(pub k3)" allowed-ips 10.96.0.3/32
text=$(ip netns exec "$N1" curl -s --max-time 5 "http://$(ul4 1):$MPORT/metrics")
k2re=$(pub k2 | sed 's/+/\\+/g') # a key in an extended regular expression
for m in sent_bytes_total received_bytes_total latest_handshake_seconds latest_handshake_delay_seconds; do
	echo "$text" | grep -qE "^wireguard_$m\{interface=\"$I1\",public_key=\"$k2re\",allowed_ips=\"[^\"]*\",friendly_name=\"side \\\\\"two\\\\\"\"\} [0-9]+\$" ||
		fail "wireguard_$m of $I1's named peer: $(echo "$text" | grep "^wireguard_$m{" | head -2)"
	echo "$text" | grep "^wireguard_$m{" | grep -F "$(pub k3)" | grep -q friendly_name &&
		fail "friendly_name on a peer the file does not name"
done
got=$(promql "count(wireguard_sent_bytes_total{interface=\"$I1\",friendly_name=\"side \\\"two\\\"\"})")
[ "$got" = 1 ] || fail "Prometheus has no series with friendly_name: '$got'"
labels=$(ip netns exec "$N1" python3 - "$PROM" "$I1" "$(pub k2)" <<'PY'
import json, sys, urllib.parse, urllib.request
q = 'wireguard_latest_handshake_delay_seconds{interface="%s",public_key="%s"}' % (sys.argv[2], sys.argv[3])
url = "http://%s/api/v1/query?%s" % (sys.argv[1], urllib.parse.urlencode({"query": q}))
r = json.load(urllib.request.urlopen(url, timeout=5))["data"]["result"]
print(" ".join(sorted(r[0]["metric"])) if len(r) == 1 else "none")
PY
)
[ "$labels" = "__name__ allowed_ips friendly_name instance interface job public_key" ] ||
	fail "labels of the delay series: $labels"
# the delay is now minus the handshake time, as Prometheus evaluates them
got=$(promql "abs(wireguard_latest_handshake_delay_seconds{interface=\"$I1\",public_key=\"$(pub k2)\"} - (time() - wireguard_latest_handshake_seconds{interface=\"$I1\",public_key=\"$(pub k2)\"}))")
[ -n "$got" ] && awk -v g="$got" 'BEGIN { exit !(g <= 3) }' ||
	fail "delay - (time() - latest handshake) = '$got'"
ok "friendly_name from the wg-quick file ($labels); delay matches time() - handshake (off by $got s)"

log "spoofed inner source: $N2 sends from 10.98.9.9, outside its allowed IPs on $I1"
sel="zinctun_packets_dropped_total{interface=\"$I1\",reason=\"wrong_source\"}"
[ "$(promql "$sel")" = 0 ] || fail "$sel before the spoofing: $(promql "$sel")"
ip -n "$N2" addr add 10.98.9.9/32 dev "$I2"
ip netns exec "$N2" ping -c 3 -i 0.2 -W 1 -I 10.98.9.9 "$(tun4 1)" >/dev/null 2>&1 &&
	fail "$I1 answered a packet with a spoofed source"
for _ in $(seq 1 20); do
	got=$(promql "$sel")
	[ "${got:-0}" -ge 3 ] && break
	sleep 0.5
done
[ "${got:-0}" -ge 3 ] || fail "$sel = '$got' after 3 spoofed packets"
ok "$sel = $got"
eval "p=\$PID_$I2"
kill -0 "$p" || fail "the daemon under ZINCTUN_SECCOMP=kill died"
echo PASS
