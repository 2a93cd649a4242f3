#!/bin/sh
# /init of the kernel-VM guest (tests/scripts/lib_kvm.sh builds it into the
# initramfs): modules in dependency order, then one command line at a time
# from the second serial port, each answered on it between markers.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do
	insmod "/modules/$m.ko" || echo "zinctun-kvm: insmod $m failed"
done </modules/order
ip link set lo up
# raw: no echo, no CR/LF translation, no line length limit
stty -F /dev/ttyS1 raw -echo
echo "zinctun-kvm: ready"
exec </dev/ttyS1 >/dev/ttyS1 2>&1
echo "@@ZT-READY"
while IFS= read -r line; do
	seq=${line%% *}
	# dash: busybox's sh would run its own applets (ip) before PATH's
	dash -c "${line#* }" </dev/null >/tmp/.out 2>&1
	rc=$?
	echo "@@ZT-BEGIN $seq"
	cat /tmp/.out
	[ -z "$(tail -c 1 /tmp/.out)" ] || echo # the marker starts a line
	echo "@@ZT-END $seq $rc"
done
poweroff -f
