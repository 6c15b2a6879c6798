# Test targets.  `make check` is the README's test command and what CI runs:
# set-up, every build, the unit tests, then the suites that drive real
# kernels.  Each directory hooks its own unit tests into check-unit.

.PHONY: check check-unit check-e2e check-faults
check: setup all check-unit check-e2e
