# Build rules for tools/ (included by the top-level Makefile).
#
# rlimit-abi: every tools/rlimit-abi/*.c is part of the tool; main.c holds
# only main() and option handling.  Unit tests are tools/tests/test_*.c,
# each linked with the tool's objects except main.o (check-abi-unit, part
# of check-unit).  check-abi runs the tool on the real trees and the fault
# fixtures (tools/tests/check-abi.sh).  The shell tools (check-patches,
# series-range-diff) have their fixture tests in check-unit too.

ABI_SRCS := $(wildcard tools/rlimit-abi/*.c)
ABI_OBJS := $(patsubst tools/rlimit-abi/%.c,$(B)/tools/rlimit-abi/%.o,$(ABI_SRCS)) $(LIB_OBJS)
ABI_LIBOBJS := $(filter-out $(B)/tools/rlimit-abi/main.o,$(ABI_OBJS))
ABI_TESTS := $(patsubst tools/tests/%.c,$(B)/tests/tools/%,$(wildcard tools/tests/test_*.c))

all: $(B)/rlimit-abi

$(B)/tools/rlimit-abi/%.o: tools/rlimit-abi/%.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) $(PKG_CFLAGS) -Itools/rlimit-abi -Ilib -MMD -MP -c -o $@ $<

$(B)/rlimit-abi: $(ABI_OBJS)
	$(HOST_CC) -o $@ $^ $(PKG_LIBS)

$(B)/tests/tools/test_%: tools/tests/test_%.c $(ABI_LIBOBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) $(PKG_CFLAGS) -Itools/rlimit-abi -Ilib -o $@ $^ $(PKG_LIBS) -lcmocka

.PHONY: check-abi-unit check-abi check-patches-test check-range-diff-test check-layers
check-unit: check-abi-unit check-patches-test check-range-diff-test check-layers
check-abi-unit: $(ABI_TESTS)
	@set -e; for t in $^; do echo "== $$t"; $$t; done

# tools/check-patches catches its fixture bad patches (tools/tests/patches).
check-patches-test: $(B)/kmatrix
	tools/tests/check-patches.sh

# matrix/'s layers: no include or call from a lower layer to a higher one
# and no circle (tools/check-layers, on kmatrix's objects and on fixtures).
check-layers: $(B)/kmatrix
	tools/tests/check-layers.sh $(CURDIR)/$(B)

# tools/series-range-diff pairs and compares two tiny fixture series laid
# from a scratch cache's trees (tools/tests/series-range-diff.sh).
check-range-diff-test: $(B)/kmatrix
	tools/tests/series-range-diff.sh

# Real trees: the four stock trees, the series' steps, the fault fixtures and
# the fast install compared with a real `make headers_install`.
check-abi: $(B)/rlimit-abi $(B)/kmatrix
	$(RUN_SUITE) tools/tests/check-abi.sh $(B)/rlimit-abi

-include $(ABI_OBJS:.o=.d)
