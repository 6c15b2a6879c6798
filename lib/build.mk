# lib/: sources shared by kmatrix and rlimit-abi (included by the top-level
# Makefile before the tools that link them).  Each tool adds LIB_OBJS to its
# own objects, and -Ilib to its compiler flags.

LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(patsubst lib/%.c,$(B)/lib/%.o,$(LIB_SRCS))

$(B)/lib/%.o: lib/%.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(WARN) $(PKG_CFLAGS) -Ilib -MMD -MP -c -o $@ $<

-include $(LIB_OBJS:.o=.d)
