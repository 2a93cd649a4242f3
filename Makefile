# zinctun — plain Makefile. Sources are found by wildcard, so adding a file
# to zinc/, wg/, daemon/, tests/ or fuzz/ needs no edit here.
#   make               libzinc.a libzinc.so zinc.pc libwg.a zinctun
#   make check         every test; last line "N passed, N failed"
#   make check-sanitize   unit and end-to-end tests built with ASan+UBSan
#   make bench | fuzz | demo | install | install-strip | uninstall

# Builds run one job per CPU (the generated test headers are listed as
# prerequisites of the test objects, so the order is safe); sub-makes share
# the top-level job server.
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

VERSION   := 0.1.0
PREFIX    ?= /usr/local
BUILD     ?= build
CC        ?= cc
OPT       ?= -O2
CFLAGS    ?= $(OPT) -g
WARN      := -Wall -Wextra -Werror
BASEFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -pthread $(WARN) \
             -Izinc/include -Iwg/include -I$(BUILD)/gen
# make DEBUG=1 BUILD=build-debug: unoptimised, with the lock checks
# (daemon/enginelock.h; ASan and TSan builds have them too)
DEBUGFLAGS = $(if $(filter 1,$(DEBUG)),-O0 -DZT_DEBUG)
ALLCFLAGS  = $(BASEFLAGS) $(CFLAGS) $(EXTRA_CFLAGS) $(DEBUGFLAGS)
LDLIBS_T  := -lsodium -lcrypto -lpthread
# The daemon is linked statically: no runtime dependency at all, and its
# idle memory is its own pages rather than all of libc.so's (bench-tunnel
# rss_idle). Sanitizer builds need the shared sanitizer runtime.
ifeq ($(findstring -fsanitize,$(EXTRA_CFLAGS)),)
DAEMON_LDFLAGS ?= -static
endif

# The target decides the architecture code (make CC=aarch64-linux-gnu-gcc
# builds for arm64: zinc/arm64/); a cross build links its tests statically
# against that architecture's libsodium and OpenSSL, which
# scripts/install-deps unpacks into CROSS_SYS (see make check-cross).
TRIPLET    := $(shell $(CC) -dumpmachine)
ZARCH      := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(firstword $(subst -, ,$(TRIPLET)))))
ZINC_SRC   := $(sort $(wildcard zinc/*.c zinc/$(ZARCH)/*.c zinc/$(ZARCH)/*.S))
ifneq ($(TRIPLET),$(shell cc -dumpmachine))
CROSS_SYS  ?= /var/cache/zinctun-cross/$(patsubst arm,armhf,$(ZARCH))
BASEFLAGS  += -isystem $(CROSS_SYS)/usr/include -isystem $(CROSS_SYS)/usr/include/$(TRIPLET)
LDLIBS_T   := -static -L$(CROSS_SYS)/usr/lib/$(TRIPLET) $(LDLIBS_T)
AR         := $(TRIPLET)-ar
endif
WG_SRC     := $(sort $(wildcard wg/*.c))
# testhook.c: test builds only (zinctun-testhooks, below)
DAEMON_SRC := $(filter-out daemon/testhook.c,$(sort $(wildcard daemon/*.c)))
# the engine lock's hold times, in bench builds only (daemon/enginelock.h)
DAEMON_SRC += $(if $(findstring -DZT_LOCK_STATS,$(EXTRA_CFLAGS)),bench/lockstat.c)
# test_zinc_ARCH.c: that architecture's paths, built for it only
UNIT_SRC   := $(filter-out $(filter-out tests/unit/test_zinc_$(ZARCH).c,$(wildcard tests/unit/test_zinc_x86.c \
		tests/unit/test_zinc_arm64.c)),$(sort $(wildcard tests/unit/test_*.c)))
TOOL_SRC   := $(sort $(wildcard tests/tools/*.c))
BENCH_SRC  := $(sort $(wildcard bench/bench_*.c))
GEN_PY     := $(sort $(wildcard tests/gen/*.py))

obj = $(patsubst %,$(BUILD)/obj/%.o,$(basename $(1)))
ZINC_OBJ   := $(call obj,$(ZINC_SRC))
WG_OBJ     := $(call obj,$(WG_SRC))
DAEMON_OBJ := $(call obj,$(DAEMON_SRC))
UNIT_BIN   := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
TOOL_BIN   := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRC))
BENCH_BIN  := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
GEN_H      := $(patsubst tests/gen/%.py,$(BUILD)/gen/%.h,$(GEN_PY))
# ZINC_IMPL from the environment, for every test, tool and benchmark
# (libzinc reads none; zinctun takes it as an option)
IMPL_ENV   := $(BUILD)/obj/tests/zinc_impl_env.o

LIBZINC_A  := $(BUILD)/libzinc.a
LIBZINC_SO := $(BUILD)/libzinc.so
LIBWG_A    := $(BUILD)/libwg.a
ZINCTUN    := $(BUILD)/zinctun
# zinctun-proxy (proxy/, rootless mode): the daemon's runtime on lwIP instead
# of a TUN device. lwIP is Debian's source package (scripts/fetch-lwip
# unpacks it into $(BUILD)/lwip) compiled with the program's own options,
# proxy/lwipopts.h, and linked in: only what the proxy uses (no sockets or
# netconn API, no ARP, Ethernet, DHCP, IGMP or MLD, no loopback netif).
PROXY_SRC  := $(sort $(wildcard proxy/*.c))
PROXY_OBJ  := $(call obj,$(PROXY_SRC))
ZT_PROXY   := $(BUILD)/zinctun-proxy
LWIP_DIR   := $(BUILD)/lwip
LWIP_STAMP := $(LWIP_DIR)/.unpacked
LWIP_SRC   := $(addprefix src/core/,def.c inet_chksum.c init.c ip.c mem.c memp.c netif.c \
		pbuf.c raw.c sys.c tcp.c tcp_in.c tcp_out.c timeouts.c udp.c) \
	      $(addprefix src/core/ipv4/,icmp.c ip4.c ip4_addr.c ip4_frag.c) \
	      $(addprefix src/core/ipv6/,icmp6.c inet6.c ip6.c ip6_addr.c ip6_frag.c nd6.c) \
	      src/api/err.c src/api/tcpip.c port/sys_arch.c
LWIP_OBJ   := $(patsubst %.c,$(BUILD)/obj-lwip/%.o,$(LWIP_SRC))
LWIP_A     := $(BUILD)/liblwip.a
# lwIP's headers as system headers: its code is not held to our warnings
LWIP_CFLAGS := -Iproxy -isystem $(LWIP_DIR)/src/include -isystem $(LWIP_DIR)/port/include

all: $(LIBZINC_A) $(LIBZINC_SO) $(BUILD)/zinc.pc $(LIBWG_A) $(if $(DAEMON_SRC),$(ZINCTUN)) \
     $(if $(PROXY_SRC),$(ZT_PROXY))

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -c $< -o $@

$(LIBZINC_A): $(ZINC_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBZINC_SO): $(ZINC_OBJ)
	$(CC) -shared -Wl,-soname,libzinc.so.0 $(ALLCFLAGS) $^ -o $@

$(BUILD)/zinc.pc: zinc/zinc.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

$(LIBWG_A): $(WG_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(ZINCTUN): $(DAEMON_OBJ) $(LIBWG_A) $(LIBZINC_A)
	$(CC) $(ALLCFLAGS) $(DAEMON_LDFLAGS) $(DAEMON_OBJ) $(LIBWG_A) $(LIBZINC_A) -lpthread -o $@

$(LWIP_STAMP): scripts/fetch-lwip
	scripts/fetch-lwip $(LWIP_DIR)
	touch $@

# (order-only: the sources keep the release's dates)
$(addprefix $(LWIP_DIR)/,$(LWIP_SRC)): | $(LWIP_STAMP) ;

# the same code generation flags as ours (sanitizers included: TSan must
# see lwIP's accesses too), its own warnings off
$(BUILD)/obj-lwip/%.o: $(LWIP_DIR)/%.c proxy/lwipopts.h proxy/lwip_hooks.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -fPIC -pthread -w $(CFLAGS) $(EXTRA_CFLAGS) $(LWIP_CFLAGS) -c $< -o $@

$(LWIP_A): $(LWIP_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# lwIP's options reach every file that includes an lwIP header (through a
# system header, which -MMD leaves out)
$(BUILD)/obj/proxy/%.o: proxy/%.c proxy/lwipopts.h | $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -Idaemon $(LWIP_CFLAGS) -MMD -MP -c $< -o $@

# the daemon's objects but its main (proxy/main.c is this program's)
PROXY_DAEMON_OBJ := $(filter-out $(BUILD)/obj/daemon/main.o,$(DAEMON_OBJ))
$(ZT_PROXY): $(PROXY_OBJ) $(PROXY_DAEMON_OBJ) $(LWIP_A) $(LIBWG_A) $(LIBZINC_A)
	$(CC) $(ALLCFLAGS) $^ -lpthread -o $@

# Test hooks exist only in test builds, never in the shipped libzinc and
# zinctun (test_no_test_hooks checks with strings):
#  - libzinc-testhooks.a: libzinc with the RNG seams (ZINC_RNG_UNSEEDED,
#    ZINC_RNG_UNSEEDED_FILE, zinc_rng_test_force_unseeded) and the forced
#    self-test failure (ZINC_SELFTEST_FAIL), ZINC_TEST_HOOKS; every test
#    binary and tool links it (their objects see the seams' declarations);
#  - zinctun-testhooks: the daemon on that library plus daemon/testhook.c's
#    escape attempts (ZINCTUN_TEST_HOOKS, see testhook.h), for the
#    end-to-end tests that use a hook (test_e2e_sandbox, test_e2e_rng);
#  - zinctun-proxy-testhooks: zinctun-proxy with that hook.
TEST_HOOKS := -DZINC_TEST_HOOKS -DZINCTUN_TEST_HOOKS
HOOK_SRC := daemon/sandbox.c daemon/testhook.c
HOOK_OBJ := $(patsubst %.c,$(BUILD)/obj-testhooks/%.o,$(HOOK_SRC))
ZINC_HOOK_SRC := zinc/random.c zinc/cpu.c
ZINC_HOOK_OBJ := $(patsubst %.c,$(BUILD)/obj-testhooks/%.o,$(ZINC_HOOK_SRC))
LIBZINC_T  := $(BUILD)/libzinc-testhooks.a
$(BUILD)/obj-testhooks/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $(TEST_HOOKS) -MMD -MP -c $< -o $@

$(LIBZINC_T): $(filter-out $(call obj,$(ZINC_HOOK_SRC)),$(ZINC_OBJ)) $(ZINC_HOOK_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(ZINCTUN)-testhooks: $(filter-out $(call obj,$(HOOK_SRC)),$(DAEMON_OBJ)) $(HOOK_OBJ) $(LIBWG_A) $(LIBZINC_T)
	$(CC) $(ALLCFLAGS) $(DAEMON_LDFLAGS) $^ -lpthread -o $@

# zinctun-proxy-testhooks: the proxy with the same escape attempts
# (test_e2e_proxy_sandbox)
$(ZT_PROXY)-testhooks: $(PROXY_OBJ) $(filter-out $(call obj,$(HOOK_SRC)),$(PROXY_DAEMON_OBJ)) \
		       $(HOOK_OBJ) $(LWIP_A) $(LIBWG_A) $(LIBZINC_A)
	$(CC) $(ALLCFLAGS) $^ -lpthread -o $@

# test_engine_initiation counts X25519 calls by wrapping zinc's at link time
$(BUILD)/tests/test_engine_initiation: LDLIBS_T += -Wl,--wrap=zinc_curve25519 \
	-Wl,--wrap=zinc_curve25519_generate_public -Wl,--wrap=zinc_curve25519_batch

# Generated test data: tests/gen/NAME.py writes a C header to stdout.
$(BUILD)/gen/%.h: tests/gen/%.py $(wildcard tests/vectors/*/*)
	@mkdir -p $(dir $@)
	python3 $< > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/tests/%.o: tests/%.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -DZINC_TEST_HOOKS -Itests -MMD -MP -c $< -o $@

# a proxy module's test that reads the daemon's headers (as proxy/ does),
# and the tests of our lwIP build (its options and hooks: test_lwip_*)
LWIP_TEST_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_lwip_*.c))
$(patsubst $(BUILD)/tests/%,$(BUILD)/obj/tests/unit/%.o,$(LWIP_TEST_BIN)): ALLCFLAGS += $(LWIP_CFLAGS)
$(patsubst $(BUILD)/tests/%,$(BUILD)/obj/tests/unit/%.o,$(LWIP_TEST_BIN)): proxy/lwipopts.h | $(LWIP_STAMP)
$(LWIP_TEST_BIN): LDLIBS_T += $(BUILD)/obj/proxy/lwipmem.o $(BUILD)/obj/proxy/lwip_hooks.o $(LWIP_A)
$(LWIP_TEST_BIN): $(BUILD)/obj/proxy/lwipmem.o $(BUILD)/obj/proxy/lwip_hooks.o $(LWIP_A)

$(BUILD)/obj/bench/%.o: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -Itests -MMD -MP -c $< -o $@

# Zinc tests (test_zinc_*) and tools (zinc_*) link only libzinc, so they build
# while the engine is in progress.
$(BUILD)/tests/test_zinc_%: $(BUILD)/obj/tests/unit/test_zinc_%.o $(IMPL_ENV) $(LIBZINC_T)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $< $(IMPL_ENV) $(LIBZINC_T) $(LDLIBS_T) -o $@

$(BUILD)/tools/zinc_%: $(BUILD)/obj/tests/tools/zinc_%.o $(IMPL_ENV) $(LIBZINC_T)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $< $(IMPL_ENV) $(LIBZINC_T) $(LDLIBS_T) -o $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(IMPL_ENV) $(LIBWG_A) $(LIBZINC_T)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $< $(IMPL_ENV) $(LIBWG_A) $(LIBZINC_T) $(LDLIBS_T) -o $@

# the tools read and print keys with the daemon's base64
$(BUILD)/tools/%: $(BUILD)/obj/tests/tools/%.o $(BUILD)/obj/daemon/base64.o $(IMPL_ENV) $(LIBWG_A) $(LIBZINC_T)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $< $(BUILD)/obj/daemon/base64.o $(IMPL_ENV) $(LIBWG_A) $(LIBZINC_T) $(LDLIBS_T) -o $@

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(IMPL_ENV) $(LIBWG_A) $(LIBZINC_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $< $(IMPL_ENV) $(LIBWG_A) $(LIBZINC_A) $(LDLIBS_T) -o $@

deps:
	@scripts/install-deps

tests: all $(UNIT_BIN) $(TOOL_BIN) $(ZINCTUN)-testhooks $(if $(PROXY_SRC),$(ZT_PROXY)-testhooks)

# Naming the generated headers in an explicit rule makes them "ought to
# exist", so make picks the tests/ pattern rule (which lists them) for test objects.
gen: $(GEN_H)

# check-sanitize rebuilds everything with ASan+UBSan into build-san and runs
# the unit tests and the end-to-end tests against that daemon. LeakSanitizer's
# exit-time scan needs ptrace, which the daemon's seccomp filter refuses, so
# this run checks leaks with the filter off; `make check` runs with it on.
# Reports go to files under build-san/reports/ (listed at the end, and any
# fails the run): a daemon's leak report at exit, or one from a daemon that
# wg-quick put in the background (stderr on /dev/null), would be lost else.
# SANITIZE=1 leaves out the "# sanitize: skip" tests and makes the flood and
# big-set tests run their reduced variants.
# check runs unit tests (build/tests/*) and script tests (tests/scripts/test_*.sh).
check: deps
	@$(MAKE) --no-print-directory tests
	@MAKEFLAGS= BUILD=$(BUILD) scripts/run-tests $(TESTS)

# check-format: every C file follows .clang-format (scripts/check-format).
check-format: deps
	@scripts/check-format

check-sanitize: deps
	@$(MAKE) --no-print-directory BUILD=build-san \
	    EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" tests
	@rm -rf $(CURDIR)/build-san/reports && mkdir -p -m 1777 $(CURDIR)/build-san/reports
	@BUILD=build-san SANITIZE=1 ZINCTUN_SECCOMP=0 \
	    ASAN_OPTIONS="detect_leaks=1:log_path=$(CURDIR)/build-san/reports/asan" \
	    UBSAN_OPTIONS="print_stacktrace=1:log_path=$(CURDIR)/build-san/reports/ubsan" \
	    MAKEFLAGS= scripts/run-tests $(TESTS); r=$$?; \
	for f in $(CURDIR)/build-san/reports/*; do [ -e "$$f" ] || continue; \
	    echo "sanitizer report $$f:"; cat "$$f"; r=1; done; exit $$r

bench: deps
	@$(MAKE) --no-print-directory $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

# check-cross: the libraries, the daemon and every unit test built for
# aarch64, armhf and s390x and run under qemu-user, then the aarch64 daemon
# under emulation against a native one (scripts/check-cross; ARCHS=...).
check-cross: deps
	@MAKEFLAGS= scripts/check-cross

# bench-cross: guest instructions per operation on aarch64 under QEMU, zinc
# vs OpenSSL vs libsodium (scripts/bench-cross): a count, not a time. The
# counter is a QEMU plugin built for the host.
$(BUILD)/insncount.so: bench/cross/insncount.c
	@mkdir -p $(dir $@)
	cc -O2 -shared -fPIC $(WARN) $< -o $@

bench-cross: deps
	@$(MAKE) --no-print-directory CC=aarch64-linux-gnu-gcc BUILD=build-aarch64 \
	    build-aarch64/insncount.so build-aarch64/bench/cross/ops
	@BUILD=build-aarch64 scripts/bench-cross

# bench-tunnel: raw veth vs wireguard-go (Debian, current) vs boringtun vs GotaTun vs zinctun
# in two namespaces; builds the peers first (scripts/install-peers)
# (ROUNDS, SECS, IMPLS, ROWS: see scripts/bench-tunnel; manypeers for ROWS=hs).
bench-tunnel: deps
	@$(MAKE) --no-print-directory all $(BUILD)/tools/manypeers
	@MAKEFLAGS= BUILD=$(BUILD) scripts/bench-tunnel

# bench-proxy: zinctun-proxy vs wireproxy vs onetun (scripts/install-peers)
# against one TUN zinctun peer: throughput through SOCKS5 and a TCP forward,
# connection rate, RSS (ROUNDS, SECS, IMPLS: see scripts/bench-proxy).
bench-proxy: deps
	@$(MAKE) --no-print-directory all
	@MAKEFLAGS= BUILD=$(BUILD) scripts/bench-proxy

# bench-flood: the handshake flood test against zinctun, then the same flood
# against wireguard-go for comparison (make check runs zinctun only).
bench-flood: deps
	@$(MAKE) --no-print-directory tests
	@MAKEFLAGS= BUILD=$(BUILD) FLOOD_IMPLS="zinctun wireguard-go" bash tests/scripts/test_e2e_flood.sh

# bench-scale: 100,000 peers in one set, 1,000 of them handshaking in one
# burst, pings to 100 (PEERS, HS, PINGS: see scripts/bench-scale).
bench-scale: deps
	@$(MAKE) --no-print-directory all tests
	@MAKEFLAGS= BUILD=$(BUILD) scripts/bench-scale

# bench-hub: a hub initiating to 20,000 peers at once while ping runs to an
# established one, beside main's build (HUB_PEERS, SECS, BEFORE: see
# scripts/bench-hub).
bench-hub: deps
	@$(MAKE) --no-print-directory all
	@MAKEFLAGS= BUILD=$(BUILD) scripts/bench-hub

# check-tsan: the daemon built with ThreadSanitizer (build-tsan) through every
# end-to-end script test (tests/scripts/test_e2e_*; test_engine_interop runs
# no daemon). SANITIZE=thread tells the scripts (reduced flood) and leaves out
# those marked "# tsan: skip". The first race kills the daemon (exit 66),
# which fails the test; every report is also written under build-tsan/tsan/,
# which catches races in a daemon that the test only stops. The seccomp
# filter is off: TSan opens the binary to symbolize a report and the report
# file to write it, and the filter refuses open(). TESTS=... narrows the run
# to the script tests named (a unit test's name fails: no unit test runs here).
check-tsan: deps
	@$(MAKE) --no-print-directory BUILD=build-tsan \
	    EXTRA_CFLAGS="-fsanitize=thread -fno-omit-frame-pointer" all build-tsan/tools/flood build-tsan/tools/manypeers \
	    build-tsan/tools/tcpflood build-tsan/zinctun-testhooks
	@rm -rf $(CURDIR)/build-tsan/tsan && mkdir -p -m 1777 $(CURDIR)/build-tsan/tsan
	@BUILD=build-tsan SANITIZE=thread ZINCTUN_SECCOMP=0 \
	    TSAN_OPTIONS="halt_on_error=1 exitcode=66 log_path=$(CURDIR)/build-tsan/tsan/report" \
	    MAKEFLAGS= scripts/run-tests --scripts $(or $(TESTS),test_e2e_); r=$$?; \
	for f in $(CURDIR)/build-tsan/tsan/report*; do [ -e "$$f" ] || continue; \
	    echo "ThreadSanitizer report $$f:"; cat "$$f"; r=1; done; exit $$r

# bench-handshake: engine lock hold times and ping through the tunnel during
# a valid-mac1 initiation flood, before/after the split handshake path
# (BEFORE, RATE, SECS, ROUNDS: see scripts/bench-handshake).
bench-handshake: deps
	@MAKEFLAGS= BUILD=$(BUILD) scripts/bench-handshake

# make fuzz FUZZ_SECONDS=60 (per target), or FUZZ_RUNS=10000000 (executions per target)
fuzz: deps
	@MAKEFLAGS= FUZZ_RUNS=$(FUZZ_RUNS) scripts/fuzz $(FUZZ_SECONDS)

demo: deps
	@$(MAKE) --no-print-directory all
	@MAKEFLAGS= scripts/demo

# install honours PREFIX and DESTDIR; the systemd unit goes to
# SYSTEMDUNITDIR, naming the installed daemon for wg-quick (see
# contrib/systemd/zinctun@.service). install-strip installs the same without
# symbols and debug information (static libraries keep the symbols they
# link by); uninstall removes every file install put in place.
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALL ?= install
STRIP   ?= strip
UNIT    := contrib/systemd/zinctun@.service
PROXY_UNIT := contrib/systemd/zinctun-proxy@.service
ZINC_H  := $(notdir $(wildcard zinc/include/zinc/*.h))
WG_H    := $(notdir $(wildcard wg/include/wg/*.h))
MAN8    := $(notdir $(wildcard doc/*.8))
MAN3    := $(notdir $(wildcard doc/*.3))
MAN1    := $(notdir $(wildcard doc/*.1))
I_BIN   := $(DESTDIR)$(PREFIX)/bin
I_LIB   := $(DESTDIR)$(PREFIX)/lib
I_INC   := $(DESTDIR)$(PREFIX)/include
I_MAN   := $(DESTDIR)$(PREFIX)/share/man
I_UNIT  := $(DESTDIR)$(SYSTEMDUNITDIR)

install: all
	$(INSTALL) -d $(I_INC)/zinc $(I_INC)/wg $(I_LIB)/pkgconfig $(I_BIN) \
	    $(I_MAN)/man8 $(I_MAN)/man3 $(I_MAN)/man1 $(I_UNIT)
	$(INSTALL) -m 644 zinc/include/zinc/*.h $(I_INC)/zinc/
	$(INSTALL) -m 644 $(LIBZINC_A) $(I_LIB)/
	$(INSTALL) -m 755 $(LIBZINC_SO) $(I_LIB)/libzinc.so.0
	ln -sf libzinc.so.0 $(I_LIB)/libzinc.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' zinc/zinc.pc.in \
	    > $(I_LIB)/pkgconfig/zinc.pc
	$(INSTALL) -m 644 wg/include/wg/*.h $(I_INC)/wg/
	$(INSTALL) -m 644 $(LIBWG_A) $(I_LIB)/
	$(if $(MAN8),$(INSTALL) -m 644 $(addprefix doc/,$(MAN8)) $(I_MAN)/man8/)
	$(if $(MAN3),$(INSTALL) -m 644 $(addprefix doc/,$(MAN3)) $(I_MAN)/man3/)
	$(if $(MAN1),$(INSTALL) -m 644 $(addprefix doc/,$(MAN1)) $(I_MAN)/man1/)
	sed -e 's|/usr/bin/zinctun-proxy|$(PREFIX)/bin/zinctun-proxy|g' $(PROXY_UNIT) \
	    > $(I_UNIT)/zinctun-proxy@.service
	chmod 644 $(I_UNIT)/zinctun-proxy@.service
	sed 's|^\(Environment=WG_QUICK_USERSPACE_IMPLEMENTATION=\)zinctun$$|\1$(PREFIX)/bin/zinctun|' \
	    $(UNIT) > $(I_UNIT)/zinctun@.service
	chmod 644 $(I_UNIT)/zinctun@.service
	if [ -e $(ZINCTUN) ]; then $(INSTALL) -m 755 $(ZINCTUN) $(I_BIN)/zinctun; fi
	if [ -e $(ZT_PROXY) ]; then $(INSTALL) -m 755 $(ZT_PROXY) $(I_BIN)/zinctun-proxy; fi

install-strip: install
	if [ -e $(I_BIN)/zinctun ]; then $(STRIP) $(I_BIN)/zinctun; fi
	if [ -e $(I_BIN)/zinctun-proxy ]; then $(STRIP) $(I_BIN)/zinctun-proxy; fi
	$(STRIP) --strip-unneeded $(I_LIB)/libzinc.so.0
	$(STRIP) --strip-debug $(I_LIB)/libzinc.a $(I_LIB)/libwg.a

uninstall:
	rm -f $(I_BIN)/zinctun $(I_BIN)/zinctun-proxy $(I_LIB)/libzinc.a $(I_LIB)/libzinc.so.0 $(I_LIB)/libzinc.so \
	    $(I_LIB)/libwg.a $(I_LIB)/pkgconfig/zinc.pc $(I_UNIT)/zinctun@.service \
	    $(I_UNIT)/zinctun-proxy@.service $(addprefix $(I_MAN)/man1/,$(MAN1)) \
	    $(addprefix $(I_INC)/zinc/,$(ZINC_H)) $(addprefix $(I_INC)/wg/,$(WG_H)) \
	    $(addprefix $(I_MAN)/man8/,$(MAN8)) $(addprefix $(I_MAN)/man3/,$(MAN3))
	rmdir $(I_INC)/zinc $(I_INC)/wg 2>/dev/null || true

clean:
	rm -rf build build-san build-*

.PHONY: all deps gen tests check check-cross bench-cross check-format check-sanitize check-tsan bench bench-tunnel bench-proxy bench-flood bench-handshake bench-scale bench-hub \
	fuzz demo install install-strip uninstall clean
.SECONDARY:

-include $(shell find $(BUILD)/obj $(BUILD)/obj-testhooks -name '*.d' 2>/dev/null)
