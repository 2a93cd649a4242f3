#!/bin/sh
# "allowed_ip=-prefix" on the config socket removes one prefix of a peer
# (the installed wg cannot send it yet, so the test speaks UAPI directly):
# only the named prefix goes, a prefix owned by another peer stays, and a
# malformed removal rejects the whole set without changing anything.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

ns_setup 1
N=$(ns_name 1) I=$(ifname r)
start_daemon zinctun "$N" "$I"
w() { ip netns exec "$N" wg "$@"; }

genkeys a
genkeys b
w set "$I" peer "$(pub a)" allowed-ips 10.1.0.0/24,10.2.0.1/32,fd00::/64 \
	peer "$(pub b)" allowed-ips 10.3.0.0/16 || fail "wg set"
A=$(base64 -d <"$T/a.pub" | od -An -tx1 | tr -d ' \n')
ips() { w show "$I" allowed-ips | grep "$(pub "$1")" | cut -f2; }

# printf -v keeps the request's closing blank line ($(...) would strip it)
printf -v req 'set=1\npublic_key=%s\nallowed_ip=-10.2.0.1/32\nallowed_ip=-fd00::/64\nallowed_ip=-10.3.0.0/16\n\n' "$A"
ans=$(uapi "$I" "$req")
echo "$ans" | grep -qx "errno=0" || fail "removal answered: $ans"
[ "$(ips a)" = "10.1.0.0/24" ] || fail "peer a after removal: $(ips a)"
[ "$(ips b)" = "10.3.0.0/16" ] || fail "peer b lost a prefix it owns: $(ips b)"
ok "allowed_ip=- removes exactly the named prefixes of that peer"

before=$(w showconf "$I")
printf -v req 'set=1\npublic_key=%s\nallowed_ip=-10.1.0.0/24\nallowed_ip=-10.1.0.0/99\n\n' "$A"
ans=$(uapi "$I" "$req")
echo "$ans" | grep -q "errno=-" || fail "malformed removal accepted: $ans"
[ "$(w showconf "$I")" = "$before" ] || fail "rejected removal changed the configuration"
ok "a malformed removal is rejected and changes nothing"
