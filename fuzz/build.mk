# libFuzzer targets for the readers of untrusted and hand-edited text
# (fuzz/fuzz_<name>.c, each with fuzz/common.c), built by clang with
# ASan and UBSan into $(B)/fuzz/, kmatrix's own objects there too, so the
# normal build is untouched.  Seeds come from the project's fixtures
# (fuzz/seeds, into $(B)/fuzz/seed/<name>); fuzz/corpus/<name>/ holds
# only the reproducers of crashes found and fixed; what a run learns
# stays in $(B)/fuzz/corpus/<name>.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="ktap console"] [FUZZ_JOBS=N]
#   make check-fuzz [FUZZ_CHECK_SECONDS=30]     (part of make check, tests/check.mk)

FUZZ_CC ?= $(CCACHE) clang
FUZZ_B := $(B)/fuzz
FUZZ_FLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
# clang, unlike gcc, counts "{ NULL }" as missing GOptionEntry fields
FUZZ_WARN := $(WARN) -Wno-missing-field-initializers
FUZZ_ALL := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_BINS := $(FUZZ_ALL:%=$(FUZZ_B)/fuzz_%)
FUZZ_SECONDS ?= 60
FUZZ_CHECK_SECONDS ?= 30
FUZZ_OBJS := $(patsubst %.c,$(FUZZ_B)/%.o,$(filter-out matrix/verbs/main.c,$(KM_SRCS)) $(LIB_SRCS))

$(FUZZ_B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(FUZZ_WARN) $(PKG_CFLAGS) \
		$(KM_INC) -MMD -MP -c -o $@ $<

$(FUZZ_B)/matrix/verbs/cli.o: $(KM_VERSION_H)

# An archive: each target takes only the objects it needs.
$(FUZZ_B)/libkmatrix.a: $(FUZZ_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_B)/fuzz_%: fuzz/fuzz_%.c fuzz/common.c fuzz/fuzz.h $(FUZZ_B)/libkmatrix.a
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(FUZZ_WARN) $(PKG_CFLAGS) -Ifuzz $(KM_INC) \
		-DFUZZ_TOP='"$(CURDIR)"' -o $@ $(filter %.c,$^) $(FUZZ_B)/libkmatrix.a $(PKG_LIBS)

.PHONY: fuzz fuzz-bins check-fuzz
fuzz-bins: $(FUZZ_BINS)

fuzz: fuzz-bins
	fuzz/run $(FUZZ_B) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Replays every seed and reproducer, then fuzzes each target a while.
check-fuzz: fuzz-bins
	fuzz/run $(FUZZ_B) $(FUZZ_CHECK_SECONDS) $(FUZZ_TARGETS)

-include $(FUZZ_OBJS:.o=.d)
