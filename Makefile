# Top-level build: kmatrix, rlimit-abi and the guest test binaries, plus the
# two commands of the README (make matrix, make check).  Each directory owns
# its rules in a build.mk; this file only ties them together.

B := build
HOST_CC ?= gcc
WARN := -Wall -Wextra -Wno-unused-parameter
HOST_CFLAGS ?= -O2 -g
PKGS := glib-2.0 jansson
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

.PHONY: all setup matrix check check-unit clean
all:

include matrix/build.mk
include guest-tests/build.mk
include tools/build.mk
include tests/check.mk

# All set-up through apt; idempotent, prints what it installs.
setup:
	tools/setup-host

clean:
	rm -rf $(B)
