# Top-level build: kmatrix, rlimit-abi and the guest test binaries, plus the
# two commands of the README (make matrix, make check).  Each directory owns
# its rules in a build.mk; this file only ties them together.

B := build
# ccache, when installed, compiles the host programs: a clean clone (CI's,
# each job of a pipeline) gets the objects another checkout compiled.  The
# debug info names the checkout ".", so the directory need not be hashed.
CCACHE := $(if $(shell command -v ccache 2>/dev/null),CCACHE_NOHASHDIR=1 ccache)
HOST_CC ?= $(CCACHE) gcc
WARN := -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration
HOST_CFLAGS ?= -O2 -g -fdebug-prefix-map=$(CURDIR)=.
PKGS := glib-2.0 jansson
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# A bare make builds; the included files' first rules are not the default.
.DEFAULT_GOAL := all
include tests/sanitize.mk

.PHONY: all setup matrix check check-unit clean install
all:

KMATRIX := $(B)/kmatrix
REPORT_DIR := $(B)/report

include lib/build.mk
include matrix/build.mk
include guest-tests/build.mk
include tools/build.mk
include tests/check.mk
include tests/report/build.mk
include tests/port/build.mk
include bench/build.mk
include fuzz/build.mk
include Documentation/build.mk

# All set-up through apt; idempotent, prints what it installs.
setup:
	tools/setup-host

# The full matrix, then its report in every format, with the trend against
# the previous run's report; the exit status is the run's (0: every cell met
# its expectation), the reports are written anyway.
matrix: setup all
	@mkdir -p $(REPORT_DIR)
	@rc=0; against=; \
	if [ -f $(REPORT_DIR)/report.json ]; then \
		mv $(REPORT_DIR)/report.json $(REPORT_DIR)/previous.json; \
		against="--against $(REPORT_DIR)/previous.json"; \
	fi; \
	$(KMATRIX) run $(KMATRIX_ARGS) || rc=$$?; \
	$(KMATRIX) report --format md $$against -o $(REPORT_DIR)/report.md || rc=2; \
	$(KMATRIX) report --format html $$against -o $(REPORT_DIR)/report.html || rc=2; \
	$(KMATRIX) report --format junit -o $(REPORT_DIR)/junit.xml || rc=2; \
	$(KMATRIX) report --format json -o $(REPORT_DIR)/report.json || rc=2; \
	$(KMATRIX) report --format kcidb -o $(REPORT_DIR)/kcidb.json || rc=2; \
	$(KMATRIX) report --format summary $$against -o $(REPORT_DIR)/summary.txt; \
	[ $$? -ne 2 ] || rc=2; \
	cat $(REPORT_DIR)/summary.txt; \
	echo "report: $(REPORT_DIR)/report.md (also .html, .json, junit.xml, kcidb.json, summary.txt)"; \
	exit $$rc

clean:
	rm -rf $(B)
