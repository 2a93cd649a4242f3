#!/bin/sh
# sanitize: skip  (links a plain program against the installed libraries)
# make install honours PREFIX and DESTDIR, and what it installs is usable:
# a program built only from the installed header, library and zinc.pc
# computes BLAKE2s-256("abc") correctly. The systemd units are installed
# (SYSTEMDUNITDIR) and name the installed programs; install-strip leaves no
# symbol table or debug information in the daemon, zinctun-proxy and
# libraries, and its static library still links; uninstall leaves only empty directories.
set -eu
BUILD=${BUILD:-build}
D=$(mktemp -d /tmp/zt-install.XXXXXX)
trap 'rm -rf "$D"' EXIT
P=/opt/zt
R=$D/root$P

fail() { echo "$*"; exit 1; }

mk() { make --no-print-directory -s BUILD="$BUILD" PREFIX=$P DESTDIR="$D/root" "$@" >/dev/null; }

# section names of an ELF file (each member of an archive) that strip removes
unstripped() { readelf -S -W "$1" | grep -E '\.symtab|\.debug_' || true; }

check_tree() {
	for f in bin/zinctun bin/zinctun-proxy lib/libzinc.a lib/libzinc.so.0 lib/libzinc.so lib/libwg.a \
		include/zinc/zinc.h include/wg/wg.h lib/pkgconfig/zinc.pc \
		share/man/man8/zinctun.8 share/man/man3/zinc.3 share/man/man1/zinctun-proxy.1; do
		[ -e "$R/$f" ] || fail "missing $f"
	done
	unit=$D/root$1/zinctun@.service
	[ -e "$unit" ] || fail "missing systemd unit $unit"
	grep -qx "Environment=WG_QUICK_USERSPACE_IMPLEMENTATION=$P/bin/zinctun" "$unit" ||
		fail "unit does not name $P/bin/zinctun"
	grep -qx 'prefix=/opt/zt' "$R/lib/pkgconfig/zinc.pc" || fail "zinc.pc prefix wrong"
	grep -q "^ExecStartPre=$P/bin/zinctun-proxy -n -c " "$D/root$1/zinctun-proxy@.service" ||
		fail "zinctun-proxy@.service does not name $P/bin/zinctun-proxy"
}

# BLAKE2s("abc") from a program that sees only the installed tree
check_usable() {
	cat >"$D/t.c" <<'C'
#include <stdio.h>
#include <zinc/zinc.h>
int main(void)
{
	uint8_t h[32];
	zinc_blake2s(h, (const uint8_t *)"abc", NULL, 32, 3, 0);
	for (int i = 0; i < 32; i++)
		printf("%02x", h[i]);
	printf("\n");
	return 0;
}
C
	flags=$(PKG_CONFIG_PATH="$R/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D/root" \
		pkg-config --cflags --libs zinc)
	cc -std=c11 "$D/t.c" $flags -static -o "$D/t"
	out=$("$D/t")
	[ "$out" = 508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982 ] ||
		fail "BLAKE2s(abc) = $out"
}

check_empty() {
	left=$(find "$D/root" ! -type d)
	[ -z "$left" ] || fail "uninstall left: $left"
}

mk install
check_tree $P/lib/systemd/system
check_usable
# the build carries symbols (-g): the stripped check below can fail
[ -n "$(unstripped "$R/bin/zinctun")" ] || fail "plain install stripped the daemon"
mk uninstall
check_empty
echo "install, uninstall: ok"

U=/etc/systemd/system
mk install-strip SYSTEMDUNITDIR=$U
check_tree $U
for f in bin/zinctun bin/zinctun-proxy lib/libzinc.so.0; do
	s=$(unstripped "$R/$f")
	[ -z "$s" ] || fail "$f not stripped: $s"
done
for f in lib/libzinc.a lib/libwg.a; do
	if readelf -S -W "$R/$f" | grep -q '\.debug_'; then
		fail "$f keeps debug information"
	fi
done
check_usable
mk uninstall SYSTEMDUNITDIR=$U
check_empty
echo "install-strip (SYSTEMDUNITDIR=$U), uninstall: ok"
