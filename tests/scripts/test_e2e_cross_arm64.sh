#!/bin/sh
# make check-cross: the aarch64 zinctun (build-aarch64, cross-built) under
# qemu-aarch64 against the native one, in two namespaces: a handshake,
# ping and a short iperf3 each way. Emulation proves correctness across
# architectures (byte order of nothing differs, but the code paths do:
# NEON ChaCha20, the arm64 AEAD and X25519), not speed: the rate printed
# is the emulator's. The seccomp filter is off for the emulated side
# (ZINCTUN_SECCOMP=0): qemu-user does not apply a guest's filter to itself
# and needs syscalls of its own; and its test build lets the sandbox start
# beside qemu's own thread (ZINCTUN_TEST_QEMU_USER, daemon/sandbox.c).
# sanitize: skip (the emulated daemon is not a sanitizer build)
# tsan: skip (the same)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
A64=$(realpath -m "${BUILD_AARCH64:-build-aarch64}/zinctun-testhooks")
command -v qemu-aarch64 >/dev/null || { echo "no qemu-aarch64 (make deps)"; exit 77; }
[ -x "$A64" ] || { echo "$A64 is not built (make check-cross builds it)"; exit 77; }
file "$A64" 2>/dev/null | grep -q aarch64 || [ ! -x /usr/bin/file ] ||
	fail "$A64 is not an aarch64 program"
ENV1="ZINCTUN_SECCOMP=0" connect_pair zinctun-aarch64 zinctun
ping_ok "$N2" "$(tun4 1)" 3 || { cat "$T/ping.out"; fail "ping native -> aarch64"; }
ping_ok "$N1" "$(tun6 2)" 3 || { cat "$T/ping.out"; fail "ping6 aarch64 -> native"; }
iperf "$N2" "$N1" "$(tun4 2)" "TCP aarch64 -> native"
iperf "$N2" "$N1" "$(tun4 2)" "TCP native -> aarch64" -R
ip netns exec "$N1" wg show "$I1"
echo PASS
