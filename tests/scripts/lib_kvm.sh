# A Linux guest with Debian 12's own kernel and its wireguard module, under
# qemu, for interop tests against the kernel's WireGuard (sourced after
# lib_netns.sh, not a test). The machine running the tests needs no
# WireGuard module: the guest loads its own.
#
#   . tests/scripts/lib_netns.sh
#   . tests/scripts/lib_kvm.sh
#   kvm_need                 # exit 77 (SKIP) saying why when it cannot run
#   KVM_BINS="iperf3"        # optional: host binaries (and their libraries)
#   KVM_MODULES="sch_netem"  # optional: modules beyond wireguard, virtio_net
#   kvm_start                # boots; the tap $KVM_TAP in namespace $KVM_NS
#                            # has $(ul4 1), $(ul6 1); the guest's eth0 $(ul4 2), $(ul6 2)
#   kvm_run 'wg show wg0'    # a shell command line in the guest: its output,
#                            # its exit status (newlines become spaces; a file
#                            # or script: kvm_run "echo $(base64 -w0 F) | base64 -d >/tmp/F")
#   kvm_wg_up KEYNAME        # wg0 in the guest: key $T/KEYNAME.key (genkeys),
#                            # port $KVM_GUEST_PORT, $(tun4 2), $(tun6 2)
#   kvm_wg_field FIELD PEERKEY   # like wg_field, for the guest's wg0
#   kvm_check_stats PEERKEY ENDPOINT   # like check_peer_stats, in the guest
#   kvm_pair                 # kvm_start, zinctun $I1 (keys k1, $(tun4 1),
#                            # port $P1) in $N1 = $KVM_NS, the guest's wg0 (k2):
#                            # no peers yet (ENV1: zinctun's extra environment)
#   kvm_connect              # kvm_pair, each the other's peer (zinctun knows
#                            # the guest's IPv4 endpoint), one ping through
#
# The guest (vmlinuz from scripts/fetch-kernel, an initramfs built here in
# $T: busybox-static, dash, ip, wg and KVM_BINS with the libraries ldd names, the
# modules in dependency order) loads its modules, then reads command lines
# on its second serial port (a pipe pair, $T/ctl.in and $T/ctl.out) and
# answers each with "@@ZT-BEGIN SEQ", the output and "@@ZT-END SEQ STATUS".
# The first serial port is the console (kernel messages), in $T/console.log.
# Its network is one virtio-net NIC on the tap: another test captures the
# underlay there (ip netns exec NS tcpdump -i "$KVM_TAP" ...), shapes or
# marks it with tc or iptables in NS, and checks the guest's side with
# kvm_run (its /proc, wg, ip, or a KVM_BINS tool such as tcpdump). ECN,
# say (issue 26), both directions against the module:
#   KVM_BINS="tcpdump ping"; kvm_need; kvm_connect
#   ip netns exec "$N1" tcpdump -i "$KVM_TAP" -nv -c 2 udp >"$T/outer" 2>&1 &
#   kvm_run "tcpdump -Z root -i wg0 -nv -c 2 icmp >/tmp/inner 2>&1 &"
#   ip netns exec "$N1" ping -Q 2 -c 1 "$(tun4 2)"   # an ECT(0) inner packet
#   kvm_run "ping -Q 1 -c 1 $(tun4 1)"               # ECT(1), from the module
#   kvm_run cat /tmp/inner; cat "$T/outer"           # tos of inner and outer
# and an outer CE on zinctun's datagrams: ip netns exec "$N1" iptables -t
# mangle -A POSTROUTING -o "$KVM_TAP" -p udp -j TOS --set-tos 0x03/0x03.
# Without a capture, the guest's /proc/net/dev_snmp6/wg0 counts inner IPv6
# packets by ECN (Ip6InECT0Pkts, Ip6InCEPkts, ...). test_e2e_kernel_interop
# does this, both ways.
# qemu runs with KVM when /dev/kvm works, else with TCG (emulated: boot in
# seconds, slow traffic: keep transfers short).

KVM_MEM=${KVM_MEM:-256}
KVM_BOOT_TIMEOUT=${KVM_BOOT_TIMEOUT:-120}	# s, for a loaded machine under TCG
KVM_RUN_TIMEOUT=${KVM_RUN_TIMEOUT:-60}	# s, per command
KVM_GUEST_PORT=51820	# the guest's WireGuard listen port (kvm_wg_up)

# kvm_need: the kernel (downloaded once into the cache) and qemu, or SKIP
kvm_need() {
	command -v qemu-system-x86_64 >/dev/null ||
		{ echo "qemu-system-x86_64 not installed (make deps)"; exit 77; }
	[ -x /bin/busybox ] || { echo "busybox-static not installed (make deps)"; exit 77; }
	need_peer linux-module || { echo "Linux kernel image not available: $PEER_SKIP"; exit 77; }
	KVM_KDIR=$PEER_BIN KVM_KVER=$PEER_VERSION
	KVM_KMODS=$(echo "$KVM_KDIR"/lib/modules/*/kernel)
}

# kvm_copy_bin PATH: the binary and the shared libraries it loads, at
# their own paths under the initramfs root
kvm_copy_bin() {
	for f in "$1" $(ldd "$1" 2>/dev/null | grep -oE '/[^ ]+'); do
		mkdir -p "$KVM_ROOT$(dirname "$f")"
		cp -Ln "$f" "$KVM_ROOT$f"
	done
}

# kvm_add_module NAME: the module after those it depends on, once
kvm_add_module() {
	local name=$1 f d
	grep -qx "$name" "$KVM_ROOT/modules/order" && return
	f=$(find "$KVM_KMODS" -name "$(echo "$name" | sed 's/[-_]/[-_]/g').ko" | head -n 1)
	[ -n "$f" ] || fail "kernel module $name not in $KVM_KVER"
	for d in $(modinfo -F depends "$f" | tr , ' '); do kvm_add_module "$d"; done
	cp "$f" "$KVM_ROOT/modules/$name.ko"
	echo "$name" >>"$KVM_ROOT/modules/order"
}

# kvm_initramfs: $T/initramfs.cpio (uncompressed: nothing to inflate in an
# emulated CPU)
kvm_initramfs() {
	KVM_ROOT=$T/kvm-root
	rm -rf "$KVM_ROOT"
	mkdir -p "$KVM_ROOT/bin" "$KVM_ROOT/modules" "$KVM_ROOT/proc" "$KVM_ROOT/sys" \
		"$KVM_ROOT/dev" "$KVM_ROOT/tmp" "$KVM_ROOT/run"
	: >"$KVM_ROOT/modules/order"
	# root by name, for tools that look it up (tcpdump -Z root)
	mkdir -p "$KVM_ROOT/etc"
	echo "root:x:0:0:root:/tmp:/bin/sh" >"$KVM_ROOT/etc/passwd"
	echo "root:x:0:" >"$KVM_ROOT/etc/group"
	kvm_copy_bin /bin/busybox
	ln -s busybox "$KVM_ROOT/bin/sh" # the others: kvm_init.sh
	for b in dash ip wg ${KVM_BINS:-}; do
		p=$(command -v "$b") || fail "$b not installed (for the guest)"
		kvm_copy_bin "$p"
	done
	for m in virtio_pci virtio_net wireguard ${KVM_MODULES:-}; do kvm_add_module "$m"; done
	cp "$TESTS_DIR/kvm_init.sh" "$KVM_ROOT/init"
	chmod 755 "$KVM_ROOT/init"
	(cd "$KVM_ROOT" && find . | /bin/busybox cpio -o -H newc 2>/dev/null) >"$T/initramfs.cpio"
}

# kvm_start: namespace $KVM_NS (= $(ns_name 1)) with the tap, guest booted
# and its eth0 configured
kvm_start() {
	KVM_NS=$(ns_name 1) KVM_TAP=zt${ID}tap
	ip netns add "$KVM_NS" || fail "ip netns add $KVM_NS"
	NSES="$NSES $KVM_NS"
	ip -n "$KVM_NS" link set lo up
	kvm_initramfs
	KVM_ACCEL_USED=$(kvm_accel)
	ip -n "$KVM_NS" tuntap add dev "$KVM_TAP" mode tap || fail "tap $KVM_TAP"
	ip -n "$KVM_NS" addr add "$(ul4 1)/24" dev "$KVM_TAP"
	ip -n "$KVM_NS" addr add "$(ul6 1)/64" dev "$KVM_TAP" nodad
	ip -n "$KVM_NS" link set "$KVM_TAP" up
	mkfifo "$T/ctl.in" "$T/ctl.out"
	# held open here too: writing a command never blocks, even once qemu is gone
	exec 8<>"$T/ctl.in"
	echo 0 >"$T/kvm.seq"
	: >"$T/ctl.log"
	KVM_T0=$(date +%s%N)
	ip netns exec "$KVM_NS" qemu-system-x86_64 -nodefaults -no-user-config -display none \
		-accel $KVM_ACCEL_USED -smp 1 -m "$KVM_MEM" -no-reboot \
		-kernel "$KVM_KDIR/vmlinuz" -initrd "$T/initramfs.cpio" \
		-append "console=ttyS0 loglevel=4 panic=-1 mitigations=off" \
		-serial "file:$T/console.log" -chardev "pipe,id=ctl,path=$T/ctl" -serial chardev:ctl \
		-netdev "tap,id=n0,ifname=$KVM_TAP,script=no,downscript=no" \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:7a:00:02 >"$T/qemu.log" 2>&1 &
	KVM_PID=$!
	PIDS="$PIDS $KVM_PID"
	cat "$T/ctl.out" >>"$T/ctl.log" &
	PIDS="$PIDS $!"
	for _ in $(seq 1 $((KVM_BOOT_TIMEOUT * 10))); do
		grep -q '^@@ZT-READY' "$T/ctl.log" && break
		kill -0 "$KVM_PID" 2>/dev/null || kvm_fail "qemu exited during boot"
		sleep 0.1
	done
	grep -q '^@@ZT-READY' "$T/ctl.log" || kvm_fail "guest not ready in ${KVM_BOOT_TIMEOUT}s"
	KVM_BOOT_MS=$((($(date +%s%N) - KVM_T0) / 1000000))
	kvm_run "ip addr add $(ul4 2)/24 dev eth0 && ip addr add $(ul6 2)/64 dev eth0 nodad &&
		ip link set eth0 up" >/dev/null || kvm_fail "guest eth0"
	log "guest up in ${KVM_BOOT_MS} ms (-accel $KVM_ACCEL_USED): $(kvm_run uname -r), $KVM_KVER"
}

# kvm_accel: "kvm -cpu host" when KVM runs a kernel here, else "tcg -cpu
# max". /dev/kvm may open and still not run one (nested virtualisation
# that hangs in the kernel's decompressor, or aborts on an MSR): a probe
# boots the kernel without an initramfs and waits for its first line.
# A failed probe is remembered per host kernel and qemu version (10 s
# each time otherwise); KVM_ACCEL=kvm or tcg skips it.
kvm_accel() {
	local memo probe pid
	case ${KVM_ACCEL:-} in kvm) echo "kvm -cpu host"; return ;; tcg) echo "tcg -cpu max"; return ;; esac
	memo=$KVM_KDIR/no-kvm-$(uname -r)-$(qemu-system-x86_64 --version | awk '{print $4; exit}')
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ ! -e "$memo" ]; then
		probe=$T/kvm-probe.log
		: >"$probe"
		qemu-system-x86_64 -nodefaults -no-user-config -display none -accel kvm -cpu host \
			-m "$KVM_MEM" -kernel "$KVM_KDIR/vmlinuz" -append "console=ttyS0 panic=-1" \
			-no-reboot -serial "file:$probe" >/dev/null 2>&1 &
		pid=$!
		for _ in $(seq 1 100); do
			grep -q "Linux version" "$probe" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		grep -q "Linux version" "$probe" && { echo "kvm -cpu host"; return; }
		touch "$memo" 2>/dev/null
	fi
	echo "tcg -cpu max"
}

kvm_fail() {
	echo "---- guest console (tail)"
	tail -n 40 "$T/console.log" 2>/dev/null
	echo "---- qemu"
	cat "$T/qemu.log" 2>/dev/null
	fail "$*"
}

# kvm_run CMD...: CMD (one line) in the guest; prints its output (stdout and
# stderr) and returns its exit status
kvm_run() {
	local seq out
	seq=$(($(cat "$T/kvm.seq") + 1))
	echo "$seq" >"$T/kvm.seq"
	printf '%s %s\n' "$seq" "$(echo "$*" | tr '\n' ' ')" >"$T/ctl.in"
	for _ in $(seq 1 $((KVM_RUN_TIMEOUT * 10))); do
		grep -q "^@@ZT-END $seq " "$T/ctl.log" && break
		kill -0 "$KVM_PID" 2>/dev/null || break
		sleep 0.1
	done
	out=$(awk -v s="$seq" '$1 == "@@ZT-BEGIN" && $2 == s { on = 1; next }
		$1 == "@@ZT-END" && $2 == s { print "@@" $3; exit } on' "$T/ctl.log")
	case $out in
	*@@[0-9]*) ;;
	*) kvm_fail "guest: no answer to: $*" ;;
	esac
	printf '%s' "${out%@@*}"
	return "${out##*@@}"
}

# kvm_wg_up KEYNAME: the guest's WireGuard interface wg0, up, no peer yet
kvm_wg_up() {
	kvm_run "ip link add wg0 type wireguard && echo $(cat "$T/$1.key") >/tmp/wg.key &&
		wg set wg0 private-key /tmp/wg.key listen-port $KVM_GUEST_PORT &&
		ip addr add $(tun4 2)/24 dev wg0 && ip addr add $(tun6 2)/64 dev wg0 nodad &&
		ip link set wg0 up" || fail "guest: wg0"
}

kvm_wg_field() { # FIELD(endpoints|latest-handshakes|transfer) PEERKEY
	kvm_run "wg show wg0 $1" | awk -v k="$(pub "$2")" '$1 == k { $1 = ""; sub(/^ /, ""); print }'
}

# kvm_check_stats PEERKEY EXPECTED_ENDPOINT: the guest's wg show of that
# peer: the endpoint, a handshake in the last minute (the guest's clock
# starts from the host's), non-zero transfer counters
kvm_check_stats() {
	local ep hs now
	ep=$(kvm_wg_field endpoints "$1")
	[ "$ep" = "$2" ] || fail "guest wg0: endpoint '$ep', expected '$2'"
	hs=$(kvm_wg_field latest-handshakes "$1")
	now=$(date +%s)
	[ -n "$hs" ] && [ "$hs" -gt 0 ] && [ $((now - hs)) -lt 60 ] && [ $((hs - now)) -lt 60 ] ||
		fail "guest wg0: latest handshake '$hs' (host's now $now)"
	set -- $(kvm_wg_field transfer "$1")
	[ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] || fail "guest wg0: transfer rx=${1:-} tx=${2:-}"
	ok "guest wg0: endpoint $ep, handshake $((now - hs))s ago, rx $1 tx $2"
}

# kvm_pair: the guest and a zinctun beside it, configured, no peers yet
kvm_pair() {
	kvm_start
	N1=$KVM_NS I1=$(ifname a)
	genkeys k1
	genkeys k2
	# shellcheck disable=SC2086 # ENV1: extra environment, one word each
	start_daemon zinctun "$N1" "$I1" ${ENV1:-}
	conf_iface "$N1" "$I1" k1 1
	P1=$(listen_port "$N1" "$I1")
	kvm_wg_up k2
}

# kvm_connect: kvm_pair, peers on both sides, a first ping (zinctun initiates)
kvm_connect() {
	kvm_pair
	add_peer "$N1" "$I1" k2 "$(tun4 2)/32,$(tun6 2)/128" "$(ul4 2):$KVM_GUEST_PORT"
	kvm_run "wg set wg0 peer $(pub k1) allowed-ips $(tun4 1)/32,$(tun6 1)/128" ||
		fail "guest: wg set peer"
	ping_ok "$N1" "$(tun4 2)" 2 || { cat "$T/ping.out"; fail "initial ping to the guest"; }
}
