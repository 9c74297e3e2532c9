# fabtop - see README.md. `make run` and `make check` are all the set-up.

PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0

# libibverbs: headers only (RDMA netlink and verbs definitions); nothing links it.
PKGS    := ncursesw libnl-3.0 libnl-route-3.0 hwloc libpci jansson libarchive
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) libibverbs 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CC      ?= cc
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter -Wno-format-truncation
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) -Iinclude -Isrc -DFABTOP_VERSION='"$(VERSION)"' \
           -DFABTOP_DATADIR='"$(PREFIX)/share/fabtop"' -DFABTOP_LOCALEDIR='"$(PREFIX)/share/locale"' \
           $(PKG_CFLAGS)
LDFLAGS += -Wl,--as-needed
LDLIBS  += $(PKG_LIBS) -ldl -lm -pthread

SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# Public headers (what views and reports use) and internal ones beside their .c.
HDRS    := $(wildcard include/fabtop/*.h include/fabtop/*.def src/*.h)
SRCS    := $(sort $(wildcard src/*.c src/collectors/*.c views/*.c))
LIBSRCS := $(filter-out src/main.c,$(SRCS))
OBJS    := $(SRCS:%.c=build/obj/%.o)
SOBJS   := $(SRCS:%.c=build/san/%.o)
SLIBOBJS:= $(LIBSRCS:%.c=build/san/%.o)
UNIT    := $(patsubst tests/unit/%.c,build/tests/%,$(wildcard tests/unit/test_*.c))
# The demo scenarios and the topo-mini fixture are generated, never committed:
# build/scenarios/{NAME/,NAME.tar.gz,index} and build/fixtures/topo-mini. The
# index is written last, so it stands for the whole set.
SCENARIOS := build/scenarios/index
# The manual page, rendered from its scdoc source (docs/fabtop.1.scd).
MAN := build/man/fabtop.1
# The interface's translations (i18n.h): po/LANG/*.po, one file per part of
# the program, merged into one catalog per language and compiled where the
# binaries look first (build/locale, beside build/fabtop). xgettext's
# keywords are the macros of i18n.h.
LANGS     := zh_CN
MOS       := $(LANGS:%=build/locale/%/LC_MESSAGES/fabtop.mo)
XGETTEXT_KEYS := --keyword=_ --keyword=N_ --keyword=P_:1,2 --keyword=NC_:1c,2 --from-code=UTF-8 --language=C

.SECONDEXPANSION:
.SECONDARY: $(LANGS:%=build/po/%.po)
.PHONY: all run check deps check-deps tests screenshots install uninstall clean bench scenarios fuzz \
        fuzz-rdma_res fuzz-counter_value fuzz-nccl_log fuzz-perftest fuzz-util fuzz-wizard_input \
        fuzz-proc fuzz-args fuzz-ras fuzz-dcb

all: build/fabtop $(SCENARIOS) $(MOS) $(MAN)

# Every translatable string of the sources (tests/i18n/t_catalog.sh compares
# each catalog with it).
build/po/fabtop.pot: $(SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	xgettext --force-po $(XGETTEXT_KEYS) --add-comments=TRANSLATORS: --package-name=fabtop \
		--package-version=$(VERSION) -o $@ $(SRCS)

build/po/%.po: $$(wildcard po/%/*.po)
	@mkdir -p $(dir $@)
	msgcat --force-po --use-first -o $@ $(sort $(wildcard po/$*/*.po))

build/locale/%/LC_MESSAGES/fabtop.mo: build/po/%.po
	@mkdir -p $(dir $@)
	msgfmt --check -o $@ $<

deps:
	@scripts/deps.sh run

check-deps:
	@scripts/deps.sh check

build/fabtop: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

build/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The sanitized build that the test suite runs.
build/san/fabtop: $(SOBJS)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LDFLAGS) $(LDLIBS)

build/san/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SAN) -c -o $@ $<

build/tests/%: tests/unit/%.c $(SLIBOBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SAN) -o $@ $^ $(LDFLAGS) $(LDLIBS) $(shell pkg-config --libs cmocka)

# test_learn brings its own content (a test-only table of exercises and
# terms), so the engine is judged on what learn_exercises[] holds: it links
# without the shipped src/learn_content.c.
build/tests/test_learn: tests/unit/test_learn.c $(filter-out build/san/src/learn_content.o,$(SLIBOBJS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SAN) -o $@ $^ $(LDFLAGS) $(LDLIBS) $(shell pkg-config --libs cmocka)

run: deps build/fabtop $(SCENARIOS) $(MOS)
	@scripts/start.sh build/fabtop

tests: build/fabtop build/san/fabtop $(UNIT) build/tests/fake_nccl build/tests/ras_server \
       build/tests/fake-nvml/libnvidia-ml.so.1 \
       build/tests/ethtool_read build/tests/sampler_netdev $(SCENARIOS) $(MOS) build/po/fabtop.pot $(MAN)

# The A/B's stand-in for an nccl-tests run (tests/ab): a plain program, no sanitizer.
build/tests/fake_nccl: tests/ab/fake_nccl.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -std=gnu11 $(WARN) -o $@ $<

# A stand-in libnvidia-ml.so.1 (tests/gpu), alone in its directory for
# LD_LIBRARY_PATH: plain, like fake_nccl.
build/tests/fake-nvml/libnvidia-ml.so.1: tests/gpu/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -std=gnu11 $(WARN) -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o $@ $<

# The RAS client's stand-in NCCL RAS server (tests/ras): plain, like fake_nccl.
build/tests/ras_server: tests/ras/ras_server.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -std=gnu11 $(WARN) -o $@ $<

# The ethtool statistics module on a real veth (tests/counters/t_ethtool_veth.sh):
# its sanitized object, as the rest of the suite runs it.
build/tests/ethtool_read: tests/counters/ethtool_read.c build/san/src/collectors/ethtool.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SAN) -o $@ $^ -pthread

# The sampler's live netdev path on the same veth (t_ethtool_veth.sh).
build/tests/sampler_netdev: tests/counters/sampler_netdev.c $(SLIBOBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SAN) -o $@ $^ $(LDFLAGS) $(LDLIBS)

check: check-deps
	@$(MAKE) --no-print-directory tests
	@tests/run.sh

screenshots: build/fabtop build/tests/fake_nccl build/tests/ras_server $(SCENARIOS)
	@scripts/screenshots.sh build/fabtop

scenarios: $(SCENARIOS)

$(SCENARIOS): tests/scenarios/mkscenarios.py tests/scenarios/nldev.py
	python3 tests/scenarios/mkscenarios.py build/scenarios

# bench/startup, bench/capture and bench/scale generate their node trees
# (bench/mknode.py) and time fabtop against lstopo, tar czf and htop;
# `make bench BASE=old/fabtop` adds now/before ratios (bench/lib.sh), and
# bench/scenarios: the bundled scenarios, now against before.
bench: build/fabtop build/bench/sampler build/bench/ethtool build/bench/model_grow $(SCENARIOS)
	@scripts/deps.sh bench
	@BASE='$(BASE)' bench/startup build/fabtop
	@BASE='$(BASE)' bench/capture build/fabtop
	@BASE='$(BASE)' bench/scale build/fabtop
	@if [ -n '$(BASE)' ]; then bench/scenarios '$(BASE)' build/fabtop; fi
	@bench/demo-open
	@bench/sampler build/bench/sampler
	@BIN=build/fabtop bench/analyze-log
	@build/bench/model_grow
	@bench/fleet build/fabtop

# Timed like the shipped binary: the optimised objects, not the sanitized ones.
build/bench/sampler: bench/sampler.c bench/bench.h $(filter-out build/obj/src/main.o,$(OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter-out %.h,$^) $(LDFLAGS) $(LDLIBS)

# The ethtool module alone, optimised like the shipped binary.
build/bench/ethtool: bench/ethtool.c bench/bench.h build/obj/src/collectors/ethtool.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter-out %.h,$^) -pthread

build/bench/model_grow: bench/model_grow.c $(filter-out build/obj/src/main.o,$(OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# libFuzzer targets (clang), not part of check: each runs FUZZ_SECONDS and
# `make fuzz` fails when one finds a crash (the input lands in build/fuzz/).
FUZZ_SECONDS ?= 30
FUZZ_CC    ?= clang
FUZZ_FLAGS := -g -O1 -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Iinclude -Isrc \
              -DFABTOP_VERSION='"$(VERSION)"' -DFABTOP_DATADIR='"$(PREFIX)/share/fabtop"' \
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_ROOT  := src/root.c src/util.c src/sanitize.c src/archive.c src/beneath.c
FUZZ_RDMA  := src/collectors/rdma_res.c $(FUZZ_ROOT)
FUZZ_CTR   := src/sampler.c src/sampler_playback.c src/counters.c src/i18n.c src/model.c $(FUZZ_ROOT)
FUZZ_RUN    = -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=build/fuzz/$@-

build/fuzz/fuzz_rdma_res: fuzz/fuzz_rdma_res.c $(FUZZ_RDMA) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) -o $@ $< $(FUZZ_RDMA) $(PKG_LIBS) -lm

build/fuzz/fuzz_counter_value: fuzz/fuzz_counter_value.c $(FUZZ_CTR) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) -o $@ $< $(FUZZ_CTR) $(PKG_LIBS) -lm

build/fuzz/fuzz_nccl_log: fuzz/fuzz_nccl_log.c src/nccl_log.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< src/nccl_log.c

# Targets that drive whole modules link every library source but main.c.
FUZZ_ALL   := $(LIBSRCS)

build/fuzz/fuzz_util: fuzz/fuzz_util.c src/util.c src/sanitize.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) -o $@ $< src/util.c src/sanitize.c

build/fuzz/fuzz_wizard_input: fuzz/fuzz_wizard_input.c $(FUZZ_ALL) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) -o $@ $< $(FUZZ_ALL) $(PKG_LIBS) -ldl -lm -pthread

# The /proc parsers (selector byte, then the file) and argument parsing
# (an argv split at NULs); both link the library, neither runs a command.
build/fuzz/fuzz_proc: fuzz/fuzz_proc.c $(FUZZ_ALL) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) -o $@ $< $(FUZZ_ALL) $(PKG_LIBS) -ldl -lm -pthread

build/fuzz/fuzz_args: fuzz/fuzz_args.c $(FUZZ_ALL) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) -o $@ $< $(FUZZ_ALL) $(PKG_LIBS) -ldl -lm -pthread

fuzz-proc: build/fuzz/fuzz_proc
	@mkdir -p build/fuzz/corpus-proc
	$< $(FUZZ_RUN) -max_len=16384 build/fuzz/corpus-proc fuzz/corpus/proc

fuzz-args: build/fuzz/fuzz_args
	@mkdir -p build/fuzz/corpus-args
	$< $(FUZZ_RUN) -max_len=2048 build/fuzz/corpus-args fuzz/corpus/args

# Whole roots: fuzz_capture opens the input as a capture file, fuzz_json
# writes it over one of a scenario's JSON files (fuzz/mkseeds.py makes the
# seeds: the scenarios as plain tars, the hostile captures, the JSON files).
.PHONY: fuzz-capture fuzz-json
FUZZ_SCEN_DIR := build/scenarios/busy

build/fuzz/fuzz_capture: fuzz/fuzz_capture.c fuzz/fuzz_root_common.h $(FUZZ_ALL) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) -o $@ $< $(FUZZ_ALL) $(PKG_LIBS) -ldl -lm -pthread

build/fuzz/fuzz_json: fuzz/fuzz_json.c fuzz/fuzz_root_common.h $(FUZZ_ALL) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) -o $@ $< $(FUZZ_ALL) $(PKG_LIBS) -ldl -lm -pthread

build/fuzz/seeds-capture/.done: fuzz/mkseeds.py tests/hostile/mkhostile.py $(SCENARIOS)
	rm -rf $(dir $@) && python3 fuzz/mkseeds.py capture $(dir $@) build/scenarios && touch $@

build/fuzz/seeds-json/.done: fuzz/mkseeds.py $(SCENARIOS)
	rm -rf $(dir $@) && python3 fuzz/mkseeds.py json $(dir $@) build/scenarios && touch $@

# The plain-tar scenarios are up to 6.4 MB: -max_len holds them whole.
fuzz-capture: build/fuzz/fuzz_capture build/fuzz/seeds-capture/.done
	@mkdir -p build/fuzz/corpus-capture
	$< $(FUZZ_RUN) -max_len=7000000 -rss_limit_mb=4096 -timeout=120 \
		build/fuzz/corpus-capture build/fuzz/seeds-capture

fuzz-json: build/fuzz/fuzz_json build/fuzz/seeds-json/.done $(SCENARIOS)
	@mkdir -p build/fuzz/corpus-json
	FABTOP_FUZZ_SCENARIO=$(FUZZ_SCEN_DIR) $< $(FUZZ_RUN) -max_len=131072 -rss_limit_mb=4096 \
		-timeout=60 build/fuzz/corpus-json build/fuzz/seeds-json

# The first directory collects new inputs; the others are read-only seeds.
fuzz: fuzz-rdma_res fuzz-counter_value fuzz-nccl_log fuzz-perftest fuzz-util fuzz-wizard_input \
      fuzz-proc fuzz-args fuzz-capture fuzz-json fuzz-ras fuzz-dcb

fuzz-util: build/fuzz/fuzz_util
	@mkdir -p build/fuzz/corpus-util
	$< $(FUZZ_RUN) -max_len=256 build/fuzz/corpus-util fuzz/corpus/util

fuzz-wizard_input: build/fuzz/fuzz_wizard_input
	@mkdir -p build/fuzz/corpus-wizard_input
	$< $(FUZZ_RUN) -max_len=1024 build/fuzz/corpus-wizard_input fuzz/corpus/wizard_input

fuzz-rdma_res: build/fuzz/fuzz_rdma_res
	@mkdir -p build/fuzz/corpus-rdma_res
	$< $(FUZZ_RUN) build/fuzz/corpus-rdma_res tests/fixtures/netlink tests/fixtures/netlink-kernel

fuzz-counter_value: build/fuzz/fuzz_counter_value
	@mkdir -p build/fuzz/corpus-counter_value
	$< $(FUZZ_RUN) -max_len=64 build/fuzz/corpus-counter_value fuzz/corpus/counter_value

fuzz-nccl_log: build/fuzz/fuzz_nccl_log
	@mkdir -p build/fuzz/corpus-nccl_log
	$< $(FUZZ_RUN) -max_len=65536 build/fuzz/corpus-nccl_log tests/fixtures/nccl-logs

# NCCL RAS replies and MONITOR streams; the seeds are the real and built
# transcripts of tests/fixtures/ras.
build/fuzz/fuzz_ras: fuzz/fuzz_ras.c src/ras_parse.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) -o $@ $< src/ras_parse.c $(PKG_LIBS)

fuzz-ras: build/fuzz/fuzz_ras
	@mkdir -p build/fuzz/corpus-ras
	$< $(FUZZ_RUN) -max_len=65536 build/fuzz/corpus-ras tests/fixtures/ras

# DCB netlink replies (dcb.h); the seeds are the recorded and built
# messages of tests/fixtures/dcb.
FUZZ_DCB := src/collectors/dcb_parse.c src/facts.c src/counters.c src/i18n.c src/model.c src/util.c src/sanitize.c \
            src/vocab.c
build/fuzz/fuzz_dcb: fuzz/fuzz_dcb.c $(FUZZ_DCB) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) -o $@ $< $(FUZZ_DCB) $(PKG_LIBS) -lm

fuzz-dcb: build/fuzz/fuzz_dcb
	@mkdir -p build/fuzz/corpus-dcb
	$< $(FUZZ_RUN) -max_len=4096 build/fuzz/corpus-dcb tests/fixtures/dcb

build/fuzz/fuzz_perftest: fuzz/fuzz_perftest.c src/perftest.c src/util.c src/sanitize.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< src/perftest.c src/util.c src/sanitize.c

fuzz-perftest: build/fuzz/fuzz_perftest
	@mkdir -p build/fuzz/corpus-perftest
	$< $(FUZZ_RUN) -max_len=16384 build/fuzz/corpus-perftest tests/fixtures/perftest

$(MAN): docs/fabtop.1.scd
	@mkdir -p $(dir $@)
	scdoc < $< > $@.tmp && mv $@.tmp $@

# What `make install` puts under $(DESTDIR)$(PREFIX), and `make uninstall`
# removes: the binary; each scenario as its capture file with the index
# (and its translation) that `fabtop demo` and `fabtop learn` read; the
# manual page; bash and zsh completion; the catalogs. The binary finds the
# scenarios and the catalogs beside itself (bin/../share), so a DESTDIR
# install runs as it is.
BINDIR   = $(PREFIX)/bin
SCENDIR  = $(PREFIX)/share/fabtop/scenarios
MAN1DIR  = $(PREFIX)/share/man/man1
BASHCOMP = $(PREFIX)/share/bash-completion/completions
ZSHCOMP  = $(PREFIX)/share/zsh/vendor-completions
LOCALE   = $(PREFIX)/share/locale

install: build/fabtop $(SCENARIOS) $(MOS) $(MAN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SCENDIR) $(DESTDIR)$(MAN1DIR) \
		$(DESTDIR)$(BASHCOMP) $(DESTDIR)$(ZSHCOMP)
	install -m 755 build/fabtop $(DESTDIR)$(BINDIR)/fabtop
	for n in $$(grep -v '^#' build/scenarios/index | cut -f1); do \
		install -m 644 build/scenarios/$$n.tar.gz $(DESTDIR)$(SCENDIR)/ || exit 1; \
	done
	install -m 644 build/scenarios/index $(DESTDIR)$(SCENDIR)/index
	for f in build/scenarios/index.*; do \
		[ -f "$$f" ] || continue; install -m 644 "$$f" $(DESTDIR)$(SCENDIR)/ || exit 1; \
	done
	install -m 644 $(MAN) $(DESTDIR)$(MAN1DIR)/fabtop.1
	install -m 644 completion/fabtop.bash $(DESTDIR)$(BASHCOMP)/fabtop
	install -m 644 completion/_fabtop $(DESTDIR)$(ZSHCOMP)/_fabtop
	for l in $(LANGS); do \
		install -d $(DESTDIR)$(LOCALE)/$$l/LC_MESSAGES && \
		install -m 644 build/locale/$$l/LC_MESSAGES/fabtop.mo $(DESTDIR)$(LOCALE)/$$l/LC_MESSAGES/fabtop.mo || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/fabtop $(DESTDIR)$(MAN1DIR)/fabtop.1 \
		$(DESTDIR)$(BASHCOMP)/fabtop $(DESTDIR)$(ZSHCOMP)/_fabtop
	rm -rf $(DESTDIR)$(PREFIX)/share/fabtop
	for l in $(LANGS); do rm -f $(DESTDIR)$(LOCALE)/$$l/LC_MESSAGES/fabtop.mo; done

clean:
	rm -rf build
