# make check-unit SANITIZE=1: every host program (kmatrix, rlimit-abi, the
# unit tests and what they link) built with AddressSanitizer and
# UndefinedBehaviorSanitizer into build/san/, beside the normal build,
# and run so that any report fails the test: UBSan halts, ASan's leak
# check is on.  The scripts check-unit runs get the sanitized kmatrix
# (KMATRIX_BIN).  Included before the directories' build.mk files, which
# take $(B) from here.  make check runs it as check-unit-san
# (tests/check.mk).

ifeq ($(SANITIZE),1)
B := build/san
override HOST_CC += -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
# glib is built without frame pointers: a leak's stack needs the slow unwinder.
# No suppressions: LSan reports only memory nothing points to, and glib's
# caches (quarks, type and locale data) stay reachable.
export ASAN_OPTIONS := detect_leaks=1:detect_stack_use_after_return=1:fast_unwind_on_malloc=0
export UBSAN_OPTIONS := halt_on_error=1:print_stacktrace=1
export KMATRIX_BIN := $(CURDIR)/$(B)/kmatrix
endif

.PHONY: check-unit-san
check-unit-san:
	+$(MAKE) --no-print-directory check-unit SANITIZE=1
