# The benchmark (bench/bench): cold, warm no-op, incremental and a naive
# reference, measured on this machine into build/bench/bench.{json,md}.
# A measurement, never a test.  A one-version subset (5.10):
#   make bench BENCH_ARGS=--quick      (or make bench-quick)
# check-bench runs the script on a stand-in kernel (seconds, no times
# asserted) so the benchmark itself stays working.
.PHONY: bench bench-quick check-bench
bench: setup all
	bench/bench $(BENCH_ARGS)

bench-quick: setup all
	bench/bench --quick $(BENCH_ARGS)

check: check-bench
check-bench: all
	bench/tests/smoke.sh
