#!/bin/sh
# sanitize: skip  (links a plain program against the installed libraries)
# make install honours PREFIX and DESTDIR, and what it installs is usable:
# a program built only from the installed header, library and zinc.pc
# computes BLAKE2s-256("abc") correctly.
set -eu
BUILD=${BUILD:-build}
D=$(mktemp -d /tmp/zt-install.XXXXXX)
trap 'rm -rf "$D"' EXIT
make --no-print-directory -s BUILD="$BUILD" install PREFIX=/opt/zt DESTDIR="$D/root" >/dev/null
R=$D/root/opt/zt
for f in bin/zinctun lib/libzinc.a lib/libzinc.so.0 lib/libwg.a include/zinc/zinc.h \
	include/wg/wg.h lib/pkgconfig/zinc.pc share/man/man8/zinctun.8 share/man/man3/zinc.3; do
	[ -e "$R/$f" ] || { echo "missing $f"; exit 1; }
done
grep -qx 'prefix=/opt/zt' "$R/lib/pkgconfig/zinc.pc" || { echo "zinc.pc prefix wrong"; exit 1; }
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
flags=$(PKG_CONFIG_PATH="$R/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D/root" pkg-config --cflags --libs zinc)
cc -std=c11 "$D/t.c" $flags -static -o "$D/t"
out=$("$D/t")
[ "$out" = 508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982 ] ||
	{ echo "BLAKE2s(abc) = $out"; exit 1; }
echo "installed tree usable"
