#!/bin/sh
# sanitize: skip  (makes its own MemorySanitizer build, whatever the build: make check runs it)
# Constant-time check with MemorySanitizer as a taint tracker: unlike the
# Valgrind checks (test_zinc_ct_sym, test_zinc_ct_asym) it runs natively, so
# it covers the AVX-512 ChaCha20, the AVX-512/IFMA Poly1305 and the avx512
# AEAD too. libzinc's sources and tests/ct/zinc_ct_msan.c are built here with
# clang -fsanitize=memory into $BUILD/ct-msan (not via the Makefile); the
# driver poisons secrets, and MSan reports a poisoned value used as a branch
# condition, a memory address or a divisor. First a planted secret-dependent
# branch and a planted secret table index must be reported, then every
# ZINC_IMPL path (and the x86 kernels called directly) must run clean, with
# identical outputs, and poison must reach every output (so that nothing
# dropped it on the way).
#
# Not checked by MSan (details in doc/zinc-x86.md): inline asm and .S files
# are not instrumented. MSan checks asm register operands strictly and
# treats asm outputs as clean, so the one accepted kind of report is a
# poisoned register operand of an inline asm statement (the X25519 bmi2-adx
# cswap mask, the SIMD BLAKE2s barriers), listed by site; memory asm writes
# keeps its old shadow, so poison does not flow through the bmi2-adx field
# arithmetic (Valgrind executes it). Propagation is approximate: an add's
# carry out of poisoned bits is not poisoned (the AEAD verdict, folded by
# zinc_memeq, comes out unpoisoned). Variable-latency instructions are not
# flagged except a poisoned divisor, and branches the backend creates after
# instrumentation (e.g. from a select) are not seen.
set -u
BUILD=${BUILD:-build}
dir=$BUILD/ct-msan
bin=$dir/zinc_ct_msan
log=$dir/run.log
fail=0

cc=""
for c in clang-14 clang; do
	command -v "$c" >/dev/null && { cc=$c; break; }
done
[ -n "$cc" ] || { echo "FAIL: clang not installed (needed for MemorySanitizer)"; exit 1; }
sym=""
for s in llvm-symbolizer-14 llvm-symbolizer; do
	command -v "$s" >/dev/null && { sym=$s; break; }
done
[ -n "$sym" ] || { echo "FAIL: llvm-symbolizer not installed"; exit 1; }

# ---- build ------------------------------------------------------------------
cflags="-std=c11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror
	-fsanitize=memory -fsanitize-memory-track-origins -fsanitize-recover=memory
	-mllvm -msan-check-access-address=1 -Izinc/include"
mkdir -p "$dir/obj"
srcs=$(ls zinc/*.c zinc/x86/*.c zinc/x86/*.S tests/ct/zinc_ct_msan.c tests/zinc_impl_env.c 2>/dev/null)
# An object is rebuilt when its source, any header or the flags changed.
hdrs=$( (echo "$cc $cflags"; cat zinc/*.h zinc/x86/*.h zinc/include/zinc/*.h) | md5sum)
start=$(date +%s)
built=0
for f in $srcs; do
	o=$dir/obj/$(echo "$f" | tr / _).o
	sum=$( (echo "$hdrs"; cat "$f") | md5sum)
	[ -s "$o" ] && [ "$(cat "$o.sum" 2>/dev/null)" = "$sum" ] && continue
	rm -f "$o" "$bin"
	echo "$sum" >"$o.want"
	built=$((built + 1))
	# Same flags for .S: an assembly file may build empty under MSan
	# (__has_feature(memory_sanitizer)) and leave the entry to a C twin.
	# shellcheck disable=SC2086
	"$cc" $cflags -c "$f" -o "$o" >"$o.log" 2>&1 &
done
wait
objs=""
ok=1
for f in $srcs; do
	o=$dir/obj/$(echo "$f" | tr / _).o
	objs="$objs $o"
	if [ -f "$o.want" ]; then
		if [ -s "$o" ]; then mv "$o.want" "$o.sum"; else cat "$o.log"; ok=0; fi
	fi
done
# shellcheck disable=SC2086
if [ $ok = 0 ] || { [ ! -x "$bin" ] && ! "$cc" -fsanitize=memory $objs -lpthread -o "$bin"; }; then
	rm -f "$dir"/obj/*.want
	echo "FAIL: MSan build failed (if another file is mid-edit, retry)"
	exit 1
fi
[ $built -gt 0 ] && echo "built $bin ($built objects) with $cc in $(( $(date +%s) - start ))s"
for f in $srcs; do
	case $f in *.S) ;; *) continue ;; esac
	syms=$(nm --defined-only "$dir/obj/$(echo "$f" | tr / _).o" 2>/dev/null |
		awk '$2 == "T" { print $3 }')
	# shellcheck disable=SC2086
	[ -n "$syms" ] && echo "note: $f: assembly, not instrumented" \
		"(memory it writes keeps its old shadow):" $syms
done

# ---- the checker must catch planted leaks -------------------------------------
for planted in branch index; do
	if MSAN_OPTIONS=halt_on_error=1 "$bin" --planted-$planted >"$log" 2>&1 ||
		! grep -q "use-of-uninitialized-value" "$log" ||
		! grep -q "#0 .* in planted_$planted .*zinc_ct_msan.c" "$log"; then
		cat "$log"
		echo "FAIL: the planted secret-dependent $planted was not reported"
		exit 1
	fi
	echo "ok: planted secret-dependent $planted reported:" \
		"$(grep -m1 '#0 ' "$log" | sed 's/.* in //')"
done

# ---- real runs --------------------------------------------------------------
# The first report ends a run, except inside the driver's asm regions (calls
# into inline-asm code, whose register operands MSan reports by design),
# where it keeps going. tests/ct/msan_classify.py then sorts the reports by
# site: the only accepted kind is a poisoned register operand of an inline
# asm statement; anything else fails. exitcode=0: the reports are judged
# here, the exit status is the driver's own (wrong result or poison lost).
opts=halt_on_error=1:symbolize=0:fast_unwind_on_fatal=1:print_summary=0:exitcode=0
avail=$("$bin" --available 2>/dev/null)
case " $avail " in
*" generic "*) ;;
*) echo "FAIL: $bin --available printed '$avail'"; exit 1 ;;
esac
ref=""
ran=""
not_run=""
for mode in generic ssse3 avx2 avx512 auto kernels; do
	case " $avail auto kernels " in
	*" $mode "*) ;;
	*)
		echo "$mode: NOT RUN (CPU lacks $mode)"
		not_run="$not_run $mode"
		continue
		;;
	esac
	t0=$(date +%s)
	if [ "$mode" = kernels ]; then
		MSAN_OPTIONS=$opts "$bin" --kernels >"$log" 2>&1
	else
		ZINC_IMPL=$mode MSAN_OPTIONS=$opts "$bin" >"$log" 2>&1
	fi
	rc=$?
	ran="$ran $mode"
	not_run="$not_run$(sed -n 's/^kernel \([^:]*\): NOT RUN.*/ \1/p' "$log" | tr -d '\n')"
	grep -v '^ \|^$\|WARNING: Mem\|SUMMARY: Mem\|^Uninit\|^Memory was\|warnings rep\|^Exiting' \
		"$log" | sed "s/^/$mode: /"
	python3 tests/ct/msan_classify.py "$sym" "$bin" "$log" "$mode" || fail=1
	if [ $rc -ne 0 ] || ! grep -q '^digest: ' "$log"; then
		echo "FAIL: $mode: the driver exited $rc before the end (wrong result," \
			"poison lost or a report)"
		fail=1
	fi
	digest=$(sed -n 's/^digest: //p' "$log")
	case $mode in
	generic) ref=$digest ;;
	kernels) ;;
	*)
		if [ -z "$digest" ] || [ "$digest" != "$ref" ]; then
			echo "FAIL: $mode: outputs differ from the generic path ($digest != $ref)"
			fail=1
		fi
		;;
	esac
	case $mode in
	auto | kernels) ;;
	*) grep -q "^impl: path=$mode " "$log" || { echo "FAIL: ZINC_IMPL=$mode was not honoured"; fail=1; } ;;
	esac
	if [ "$mode" = avx512 ] && ! grep -q 'chacha20=avx512 aead=avx512' "$log"; then
		echo "FAIL: avx512: the AVX-512 entries were not selected"
		fail=1
	fi
	echo "$mode: done in $(( $(date +%s) - t0 ))s"
done

if [ $fail -ne 0 ]; then
	echo "FAIL: MemorySanitizer constant-time check (see above)"
	exit 1
fi
[ -n "$not_run" ] && echo "NOT RUN (the CPU lacks them):$not_run"
echo "PASS: planted leaks reported; no secret-dependent branch, index or divisor in:$ran"
