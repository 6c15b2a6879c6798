# Build rules for guest-tests/ (included by the top-level Makefile).
#
# rlimit-tests: one fully static binary per guest architecture, compiled
# and linked in one compiler run without debug info, so the same sources
# give the same bytes (kmatrix keys its cells by the binary's hash).

GUEST_SRCS := $(sort $(wildcard guest-tests/*.c))
GUEST_HDRS := $(wildcard guest-tests/*.h)
GUEST_CFLAGS := -O2 -static $(WARN) -D_GNU_SOURCE
GUEST_BINS := $(B)/guest/x86_64/rlimit-tests $(B)/guest/arm64/rlimit-tests

all: $(GUEST_BINS)

$(B)/guest/x86_64/rlimit-tests: GUEST_CC := gcc
$(B)/guest/arm64/rlimit-tests: GUEST_CC := aarch64-linux-gnu-gcc
$(GUEST_BINS): $(GUEST_SRCS) $(GUEST_HDRS) guest-tests/build.mk
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $(GUEST_SRCS)

# Unit tests with the host compiler: the KTAP writer under cmocka, and the
# check that series/expectations covers every case at every step.
GUEST_TEST_DIR := $(B)/tests/guest
GUEST_UNIT := $(GUEST_TEST_DIR)/test_ktap_writer
GUEST_EXPECT_CHECK := $(GUEST_TEST_DIR)/check_expectations

$(GUEST_UNIT): guest-tests/tests/test_ktap_writer.c guest-tests/ktap_writer.c guest-tests/ktap_writer.h
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) -Iguest-tests -o $@ $(filter %.c,$^) -lcmocka

$(GUEST_EXPECT_CHECK): guest-tests/tests/check_expectations.c $(B)/matrix/expect.o $(B)/matrix/ktap.o
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) $(PKG_CFLAGS) -Imatrix -o $@ $^ $(PKG_LIBS)

.PHONY: check-guest-unit
check-unit: check-guest-unit
check-guest-unit: $(GUEST_UNIT) $(GUEST_EXPECT_CHECK) $(B)/guest/x86_64/rlimit-tests
	@echo "== $(GUEST_UNIT)"; $(GUEST_UNIT)
	@echo "== $(GUEST_EXPECT_CHECK)"
	$(B)/guest/x86_64/rlimit-tests --list | $(GUEST_EXPECT_CHECK) series/expectations
