# Sourced by the valgrind constant-time scripts.
#
# dwarf4_tool NAME LOG: if LOG (a valgrind run of $BUILD/tools/NAME) shows
# that valgrind could not read the tool's debug info, rebuilds the tool with
# DWARF 4 in a side directory and prints its path; else prints the normal
# path. Valgrind 3.19 cannot read clang 14's default DWARF 5; the rebuild
# keeps the compiler and flags otherwise.
dwarf4_tool() {
	if grep -q "debuginfo reader" "$2"; then
		echo "valgrind cannot read $BUILD/tools/$1's debug info; rebuilding with -gdwarf-4" >&2
		make --no-print-directory BUILD="$BUILD/ct-dwarf4" EXTRA_CFLAGS=-gdwarf-4 \
			"$BUILD/ct-dwarf4/tools/$1" >/dev/null || return 1
		echo "$BUILD/ct-dwarf4/tools/$1"
	else
		echo "$BUILD/tools/$1"
	fi
}
