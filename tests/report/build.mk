# The report rendered by a real browser and the JUnit report against the
# JUnit schema (tests/report/html-in-chromium.sh); hooked into check-unit.
.PHONY: check-report
check-unit: check-report
check-report: $(B)/kmatrix
	tests/report/html-in-chromium.sh $(CURDIR)/$(B)/kmatrix $(CURDIR)/$(B)/report-test

# The KCIDB document (report --format kcidb) against KernelCI's schema
# v5.3 (tests/report/kcidb/), from the same fixture, and broken documents
# that must not validate (tests/report/kcidb.sh); a few seconds.
.PHONY: check-kcidb
check-unit: check-kcidb
check-kcidb: $(B)/kmatrix
	tests/report/kcidb.sh $(CURDIR)/$(B)/kmatrix $(CURDIR)/$(B)/report-kcidb
