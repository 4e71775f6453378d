# vx: a plain Makefile.
#   make                  every program into bin/
#   make check            unit tests, bats suites, shellcheck, no new link
#                         cycle (scripts/linkcycles.py), then the unit
#                         tests and bats suites again under ASan+UBSan
#   make install PREFIX=/usr/local [DESTDIR=...]
#   make SANITIZE=address,undefined   a sanitized build in build/san/bin
#   make fuzz [FUZZ_TIME=600]  every libFuzzer harness of tests/fuzz, each
#                         for FUZZ_TIME seconds (docs/fuzzing.md); make check
#                         runs each for a few seconds (fuzz-check)

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
            -Wformat=2 -Wno-format-nonliteral -Werror
CPPFLAGS += -D_GNU_SOURCE -Ilibcommon
LDLIBS   := -lcjson -lxxhash -lpthread -lm
# the cache module's remote half (cache/remote.c): libcurl and libcrypto,
# dlopen'ed when a remote cache is first used (cache/remote_lib.h says why)
CACHE_LDLIBS := -ldl
PREFIX   ?= /usr/local
SANITIZE ?=

ifeq ($(SANITIZE),)
BUILD  := build/rel
BINDIR := bin
else
BUILD  := build/san
BINDIR := $(BUILD)/bin
CFLAGS += -O1 -fno-omit-frame-pointer -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
endif

# A stage is built once its main.c exists.
PROGS := vx vx-graph $(if $(wildcard key/main.c),vx-key) $(if $(wildcard cache/main.c),vx-cache) \
         $(if $(wildcard sandbox/main.c),vx-sandbox) $(if $(wildcard proxy/main.c),vx-proxy) \
         $(if $(wildcard report/main.c),vx-report) $(if $(wildcard watch/main.c),vx-watch) \
         $(if $(wildcard pick/main.c),vx-pick) $(if $(wildcard init/main.c),vx-init) \
         $(if $(wildcard prune/main.c),vx-prune)

COMMON_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard libcommon/*.c))
GRAPH_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard graph/*.c))
KEY_OBJ    := $(patsubst %.c,$(BUILD)/%.o,$(wildcard key/*.c))
SANDBOX_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard sandbox/*.c))
PROXY_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard proxy/*.c))
REPORT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard report/*.c))
WATCH_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard watch/*.c))
PICK_OBJ   := $(patsubst %.c,$(BUILD)/%.o,$(wildcard pick/*.c))
# vx-init finds the workspace as vx-graph does, with its modules
INIT_OBJ   := $(patsubst %.c,$(BUILD)/%.o,$(wildcard init/*.c)) $(BUILD)/graph/workspace.o \
              $(BUILD)/graph/gcache.o $(BUILD)/graph/diag.o
# vx-prune finds the workspace and its packages' dependencies as vx-graph does
PRUNE_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard prune/*.c)) $(BUILD)/graph/workspace.o \
              $(BUILD)/graph/gcache.o $(BUILD)/graph/diag.o
# the cache module is linked into the driver (which restores and saves) and
# into vx-cache (the same operations by hand)
CACHE_LIB  := $(patsubst %.c,$(BUILD)/%.o,$(filter-out cache/main.c cache/verbs.c,$(wildcard cache/*.c)))
DRIVER_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard bin/*.c))
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))

SHELL_FILES := $(shell git ls-files '*.sh' '*.bash' '*.bats' 2>/dev/null) .ci/run

# test helpers, built beside the programs for the bats suites (whose
# rootless twins copy $(BINDIR)/vx*), never installed
TEST_PROGS := vx-test-nouserns vx-test-memoseal

all: $(addprefix $(BINDIR)/,$(PROGS) $(TEST_PROGS)) $(if $(wildcard sandbox/main.c),$(BINDIR)/vx-trace.so)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

# the driver links the cache module
$(DRIVER_OBJ): CPPFLAGS += -Icache

$(BUILD)/libcommon.a: $(COMMON_OBJ)
	$(AR) rcs $@ $^

$(BINDIR)/vx: $(DRIVER_OBJ) $(CACHE_LIB) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(CACHE_LDLIBS)

$(BINDIR)/vx-graph: $(GRAPH_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BINDIR)/vx-key: $(KEY_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# vx-sandbox starts once per task: libseccomp and libxxhash are linked in
# (no library to map and relocate at each start) and every symbol is bound
# at load (-z now), so the sandbox's pid 1, a copy-on-write child, resolves
# none and copies no page for it: ~4% of a sandboxed /bin/true
# every variant of the sandbox's seccomp filters, compiled by libseccomp
# at build time and compiled into vx-sandbox (sandbox/filter.h): no start
# compiles one
SANDBOX_OBJ += $(BUILD)/sandbox/filters_gen.o
$(BUILD)/filtergen: sandbox/gen/filtergen.c $(BUILD)/sandbox/filter.o $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Isandbox $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $^ -lseccomp $(LDLIBS)

$(BUILD)/sandbox/filters_gen.c: $(BUILD)/filtergen
	$< > $@.tmp && mv $@.tmp $@

$(BUILD)/sandbox/filters_gen.o: $(BUILD)/sandbox/filters_gen.c
	$(CC) $(CPPFLAGS) -Isandbox $(CFLAGS) $(WARN) -c -o $@ $<

$(BINDIR)/vx-sandbox: $(SANDBOX_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -Wl,-z,now -o $@ $^ -lcjson -Wl,-Bstatic -lxxhash -lseccomp -Wl,-Bdynamic \
		-lpthread -lm

# the tracer's fast path, preloaded into traced tasks (sandbox/fastpath.h):
# never sanitized (it runs inside the task's programs, not ours)
SHIM_CFLAGS := -O2 -g -fPIC -fvisibility=hidden -fno-stack-protector
$(BINDIR)/vx-trace.so: sandbox/shim/vx-trace.c sandbox/fastpath.h libcommon/sberrno.h
	@mkdir -p $(dir $@)
	$(CC) -D_GNU_SOURCE -Ilibcommon $(SHIM_CFLAGS) $(WARN) -shared -Wl,-z,now -Wl,-z,noexecstack -o $@ $<

# a container's default seccomp profile refusing new namespaces
# (tests/vx-run-sandbox.bats, R-35)
$(BINDIR)/vx-test-nouserns: tests/nouserns.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< -lseccomp

# a memo's header made to fit its edited body (tests/vx-graph.bats)
$(BINDIR)/vx-test-memoseal: tests/memoseal.c $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BINDIR)/vx-proxy: $(PROXY_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BINDIR)/vx-report: $(REPORT_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BINDIR)/vx-watch: $(WATCH_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BINDIR)/vx-pick: $(PICK_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(patsubst %.c,$(BUILD)/%.o,$(wildcard init/*.c)): CPPFLAGS += -Igraph

$(BINDIR)/vx-init: $(INIT_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(patsubst %.c,$(BUILD)/%.o,$(wildcard prune/*.c)): CPPFLAGS += -Igraph

$(BINDIR)/vx-prune: $(PRUNE_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BINDIR)/vx-cache: $(BUILD)/cache/main.o $(BUILD)/cache/verbs.o $(CACHE_LIB) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(CACHE_LDLIBS)

UNIT_LINK := $(filter-out %/main.o,$(KEY_OBJ) $(SANDBOX_OBJ) $(PROXY_OBJ)) $(CACHE_LIB) $(BUILD)/libcommon.a

$(BUILD)/unit/%: tests/unit/%.c tests/unit/unit.h $(UNIT_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit -Icache -Ikey -Isandbox -Iproxy $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< $(UNIT_EXTRA) $(UNIT_LINK) $(LDLIBS) -lseccomp $(CACHE_LDLIBS)

# a unit test of one of the driver's modules links that module too
$(BUILD)/unit/test_keyer: $(BUILD)/bin/keyer.o $(BUILD)/bin/proc.o
$(BUILD)/unit/test_keyer: UNIT_EXTRA = $(BUILD)/bin/keyer.o $(BUILD)/bin/proc.o
$(BUILD)/unit/test_keyer: CPPFLAGS += -Ibin

# a unit test of one of vx-init's modules links that module too
$(BUILD)/unit/test_vxedit: $(BUILD)/init/vxedit.o
$(BUILD)/unit/test_vxedit: UNIT_EXTRA = $(BUILD)/init/vxedit.o
$(BUILD)/unit/test_vxedit: CPPFLAGS += -Iinit
$(BUILD)/unit/test_learnrec: $(BUILD)/init/learnrec.o
$(BUILD)/unit/test_learnrec: UNIT_EXTRA = $(BUILD)/init/learnrec.o
$(BUILD)/unit/test_learnrec: CPPFLAGS += -Iinit
# and one of vx-report's, its reading modules (not its main)
REPORT_UNIT := $(filter-out %/main.o,$(REPORT_OBJ))
$(BUILD)/unit/test_report_graphmemo: $(REPORT_UNIT)
$(BUILD)/unit/test_report_graphmemo: UNIT_EXTRA = $(REPORT_UNIT)
$(BUILD)/unit/test_report_graphmemo: CPPFLAGS += -Ireport

# libFuzzer harnesses (tests/fuzz/, docs/fuzzing.md): clang only. Each links
# the modules it fuzzes, built again with coverage and ASan+UBSan.
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 600
FUZZ_CHECK_TIME ?= 4
FUZZ_BUILD := build/fuzz
FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all
# the modules' own warnings are gcc's -Werror job (above); clang's may differ
FUZZ_CFLAGS := -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) -Wall -Wextra
FUZZ_NAMES := glob statcache jsonl netpat http socks request config dns lockfile
FUZZ_BIN   := $(addprefix $(FUZZ_BUILD)/fuzz_,$(FUZZ_NAMES))
FUZZ_COMMON := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(wildcard libcommon/*.c))
$(FUZZ_BUILD)/fuzz_http $(FUZZ_BUILD)/fuzz_socks: FUZZ_MODS = $(FUZZ_BUILD)/proxy/$(@F:fuzz_%=%).o
$(FUZZ_BUILD)/fuzz_request: FUZZ_MODS = $(FUZZ_BUILD)/sandbox/request.o
$(FUZZ_BUILD)/fuzz_dns: FUZZ_MODS = $(FUZZ_BUILD)/sandbox/dns.o
$(FUZZ_BUILD)/fuzz_config: FUZZ_MODS = $(FUZZ_BUILD)/graph/config.o $(FUZZ_BUILD)/init/vxedit.o
FUZZ_PRUNE := $(FUZZ_BUILD)/prune/pnpmlock.o $(FUZZ_BUILD)/prune/yarnlock.o $(FUZZ_BUILD)/prune/npmlock.o
$(FUZZ_BUILD)/fuzz_lockfile: FUZZ_MODS = $(FUZZ_PRUNE)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

# an archive: a harness that compiles a module in (fuzz_glob, fuzz_statcache)
# takes no second copy of it
$(FUZZ_BUILD)/libcommon.a: $(FUZZ_COMMON)
	$(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(FUZZ_BUILD)/libcommon.a \
		$(FUZZ_BUILD)/proxy/http.o $(FUZZ_BUILD)/proxy/socks.o \
		$(FUZZ_BUILD)/sandbox/request.o $(FUZZ_BUILD)/sandbox/dns.o $(FUZZ_BUILD)/graph/config.o \
		$(FUZZ_BUILD)/init/vxedit.o $(FUZZ_PRUNE)
	$(FUZZ_CC) $(CPPFLAGS) -Itests/fuzz -Ikey -Iproxy -Igraph -Iinit -Iprune -fsanitize=fuzzer \
		$(FUZZ_CFLAGS) -Werror -o $@ $< $(FUZZ_MODS) $(FUZZ_BUILD)/libcommon.a $(LDLIBS)

fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null || \
		{ echo "fuzz: $(FUZZ_CC) not found; fix: run scripts/install-deps.sh" >&2; exit 1; }
	$(MAKE) $(FUZZ_BIN)

# each harness from its seed corpus (tests/fuzz/corpus/<name>), new inputs
# kept under build/fuzz; the regressions (tests/fuzz/regressions/<name>)
# are run once each first
fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TIME) $(FUZZ_NAMES)

fuzz-check: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_CHECK_TIME) $(FUZZ_NAMES)

# Each runner appends "passed failed" to build/counts; check sums them.
unit: $(UNIT_BIN)
	@sh tests/run-unit.sh $(UNIT_BIN)

# BATS_SUITES: which suites (default: every tests/*.bats)
bats: all
	@VX_BIN_DIR=$(CURDIR)/$(BINDIR) bash tests/run-bats.sh $(BATS_SUITES)

# The sanitized pass leaves out the adoption measure (tests/vx-adopt*.bats:
# about 4 minutes a run of six real builds and tests; the learner's code it
# drives is sanitized through tests/vx-init.bats)
SAN_SUITES := $(filter-out tests/vx-adopt%,$(sort $(wildcard tests/*.bats)))

shellcheck:
	shellcheck -x $(SHELL_FILES)

# no new link-level cycle among a directory's object files (issue 37)
linkcycles: all
	python3 scripts/linkcycles.py $(BUILD) scripts/linkcycles.known

check:
	@mkdir -p build && : > build/counts
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) bats
	$(MAKE) shellcheck
	$(MAKE) linkcycles
	$(MAKE) SANITIZE=address,undefined unit bats BATS_SUITES="$(SAN_SUITES)"
	$(MAKE) fuzz-check
	@awk '{p += $$1; f += $$2} END {printf "check: %d passed, %d failed\n", p, f; exit f > 0}' build/counts

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(addprefix $(BINDIR)/,$(PROGS)) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/lib/vx
	install -m 0644 $(BINDIR)/vx-trace.so $(DESTDIR)$(PREFIX)/lib/vx/

clean:
	rm -rf build $(addprefix bin/,$(PROGS) $(TEST_PROGS)) bin/vx-trace.so

.PHONY: all unit bats shellcheck linkcycles check install clean fuzz fuzz-build fuzz-check
-include $(shell find build -name '*.d' 2>/dev/null)
