# The report rendered by a real browser and the JUnit report against the
# JUnit schema (tests/report/html-in-chromium.sh); hooked into check-unit.
.PHONY: check-report
check-unit: check-report
check-report: $(B)/kmatrix
	tests/report/html-in-chromium.sh $(CURDIR)/$(B)/kmatrix $(CURDIR)/$(B)/report-test
