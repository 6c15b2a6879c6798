# make install: kmatrix and its man page.  An installed kmatrix finds the
# project (matrix/, series/, arch-configs/) through KMATRIX_TOP or the
# current directory, so it is run from a checkout; the other programs
# (rlimit-abi, the guest binaries) stay in the checkout's build/.
#   make install [PREFIX=/usr/local] [DESTDIR=/tmp/stage]
# make check-man (part of make check, tests/man/run.sh): the page renders
# without a groff warning, install puts the files in place, and every verb
# of `kmatrix help` has its section in the page.
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MAN1DIR = $(PREFIX)/share/man/man1
MAN_PAGE := Documentation/kmatrix.1

.PHONY: install check-man
install: $(KMATRIX)
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MAN1DIR)"
	install -m 755 $(KMATRIX) "$(DESTDIR)$(BINDIR)/kmatrix"
	install -m 644 $(MAN_PAGE) "$(DESTDIR)$(MAN1DIR)/kmatrix.1"

check-man: $(KMATRIX)
	$(RUN_SUITE) tests/man/run.sh
