# kmatrix: every matrix/<layer>/*.c is part of the tool; verbs/main.c holds
# only main().  The layers, lowest first (matrix/DESIGN.md, Layout).
# Unit tests are matrix/tests/test_*.c, each linked with the tool's objects
# except main.o, and run by check-unit.

KM_DIRS := host judge stages plan report verbs
KM_INC := $(addprefix -Imatrix/,$(KM_DIRS)) -Ilib
KM_SRCS := $(foreach d,$(KM_DIRS),$(wildcard matrix/$(d)/*.c))
KM_OBJS := $(patsubst matrix/%.c,$(B)/matrix/%.o,$(KM_SRCS)) $(LIB_OBJS)
KM_LIBOBJS := $(filter-out $(B)/matrix/verbs/main.o,$(KM_OBJS))
KM_TESTS := $(patsubst matrix/tests/%.c,$(B)/tests/%,$(wildcard matrix/tests/test_*.c))

all: $(B)/kmatrix

$(B)/matrix/%.o: matrix/%.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) $(PKG_CFLAGS) $(KM_INC) -MMD -MP -c -o $@ $<

$(B)/kmatrix: $(KM_OBJS)
	$(HOST_CC) -o $@ $^ $(PKG_LIBS)

# What the tests share (matrix/tests/fixture.c) is not a test of its own.
$(B)/tests/fixture.o: matrix/tests/fixture.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) $(PKG_CFLAGS) -Imatrix/tests -MMD -MP -c -o $@ $<

$(B)/tests/test_%: matrix/tests/test_%.c $(B)/tests/fixture.o $(KM_LIBOBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) $(PKG_CFLAGS) $(KM_INC) -Imatrix/tests -o $@ $^ $(PKG_LIBS) -lcmocka

.PHONY: check-matrix-unit
check-unit: check-matrix-unit
check-matrix-unit: $(KM_TESTS)
	@set -e; for t in $^; do echo "== $$t"; (cd matrix/tests && ../../$$t); done

-include $(KM_OBJS:.o=.d) $(B)/tests/fixture.d
