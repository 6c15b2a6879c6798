# Build rules for guest-tests/ (included by the top-level Makefile).
#
# rlimit-tests: one fully static binary per arch of the matrix,
# $(B)/guest/<arch>/rlimit-tests built by the arch's guest_cc, and for an
# arch with a compat suite $(B)/guest/<arch>/rlimit-tests-<compat> built
# by its compat_cc with RLT_COMPAT_SUITE defined (it leaves out the cases
# only native programs serve: PAM's); each compiled and linked in one
# compiler run without debug info, so the same sources give the same bytes
# (kmatrix keys its cells by the binary's hash).

GUEST_SRCS := $(sort $(wildcard guest-tests/*.c))
GUEST_HDRS := $(wildcard guest-tests/*.h)
GUEST_CFLAGS := -O2 -static $(WARN) -D_GNU_SOURCE
GUEST_ARCHES_MK := $(B)/guest/arches.mk

# The binaries and their compilers, as kmatrix conf reads the arches: a
# generated makefile.  A key this kmatrix does not print is empty.  The
# temporary file is the shell's own: two makes (a suite's beside make
# check's) may write the list at once.
$(GUEST_ARCHES_MK): $(KMATRIX) matrix/matrix.conf $(wildcard arch-configs/*/arch.conf) guest-tests/build.mk
	@mkdir -p $(dir $@)
	@set -e; \
	tmp=$@.$$$$.tmp; \
	val() { printf '%s\n' "$$conf" | sed -n "s/^$$1=//p"; }; \
	rule() { \
		echo "GUEST_BINS += $$1"; \
		echo "$$1: GUEST_CC := $$2"; \
		[ ! -f "$$dep" ] || echo "$$1: $$dep"; \
	}; \
	arches=$$($(KMATRIX) conf arches); \
	for a in $$arches; do \
		conf=$$($(KMATRIX) conf arch $$a); \
		bin=$(B)/guest/$$a/rlimit-tests compat=$$(val compat); \
		dep=arch-configs/$$a/arch.conf; \
		rule $$bin "$$(val guest_cc)"; \
		[ -z "$$compat" ] || rule $$bin-$$compat "$$(val compat_cc)"; \
		[ -z "$$compat" ] || \
			echo "$$bin-$$compat: GUEST_CFLAGS += -DRLT_COMPAT_SUITE"; \
	done >$$tmp; \
	mv $$tmp $@

# The list is made by kmatrix, which a fresh machine can build only once
# make setup has run (make matrix, make check): a make that finds no list
# makes it when a guest binary is wanted, then builds by it in a make that
# reads it; a single binary waits for them all, so that no two makes build
# one.  Included while missing (the -include way), the list would be made,
# and fail, before setup.
.PHONY: guest-bins
all: guest-bins
ifeq ($(MAKECMDGOALS),clean)
else ifneq ($(wildcard $(GUEST_ARCHES_MK)),)
include $(GUEST_ARCHES_MK)
guest-bins: $(GUEST_BINS)
else ifneq ($(GUEST_ARCHES_TRIED),)
# made once and still missing (make -n makes nothing): never again
guest-bins:
	@echo "$(GUEST_ARCHES_MK) was not made: no guest binary to build" >&2; exit 1
$(B)/guest/%: guest-bins ;
else
guest-bins: $(GUEST_ARCHES_MK)
	+@$(MAKE) --no-print-directory guest-bins GUEST_ARCHES_TRIED=1
$(B)/guest/%: guest-bins
	+@$(MAKE) -s --no-print-directory $@ GUEST_ARCHES_TRIED=1
endif

$(GUEST_BINS): $(GUEST_SRCS) $(GUEST_HDRS) guest-tests/build.mk
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $(GUEST_SRCS)

# Unit tests with the host compiler: the KTAP writer under cmocka, and the
# check that series/expectations covers every case at every step.
GUEST_TEST_DIR := $(B)/tests/guest
GUEST_UNIT := $(GUEST_TEST_DIR)/test_ktap_writer
GUEST_EXPECT_CHECK := $(GUEST_TEST_DIR)/check_expectations
GUEST_ABI_TEST := $(GUEST_TEST_DIR)/test_abi

$(GUEST_UNIT): guest-tests/tests/test_ktap_writer.c guest-tests/ktap_writer.c guest-tests/ktap_writer.h
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) -Iguest-tests -o $@ $(filter %.c,$^) -lcmocka

# Linked with the tool's objects like matrix/tests, so that a helper moving
# between them never breaks this link.
$(GUEST_EXPECT_CHECK): guest-tests/tests/check_expectations.c $(KM_LIBOBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) $(PKG_CFLAGS) $(KM_INC) -o $@ $^ $(PKG_LIBS)

# The "# abi" lines: formatting, and /proc/self/limits read as numbers.
$(GUEST_ABI_TEST): guest-tests/tests/test_abi.c guest-tests/abi_names.c guest-tests/abi.h
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) -D_GNU_SOURCE -Iguest-tests -o $@ $(filter %.c,$^) -lcmocka

.PHONY: check-guest-unit
check-unit: check-guest-unit
check-guest-unit: $(GUEST_UNIT) $(GUEST_EXPECT_CHECK) $(GUEST_ABI_TEST) $(B)/guest/x86_64/rlimit-tests
	@echo "== $(GUEST_UNIT)"; $(GUEST_UNIT)
	@echo "== $(GUEST_ABI_TEST)"; $(GUEST_ABI_TEST) guest-tests/tests
	@echo "== $(GUEST_EXPECT_CHECK)"
	$(B)/guest/x86_64/rlimit-tests --list | $(GUEST_EXPECT_CHECK) series/expectations
