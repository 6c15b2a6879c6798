# The benchmark (bench/bench): cold, warm no-op, incremental and a naive
# reference, measured on this machine into build/bench/bench.{json,md}.
# A measurement, never a test.  A one-version subset (5.10):
#   make bench BENCH_ARGS=--quick      (or make bench-quick)
# The no-op benchmark (bench/noop): kmatrix run on the matrix's own cache
# when every planned cell is cached, against make -q on this tree, into
# build/bench/noop.{json,md}:
#   make bench-noop [NOOP_ARGS="--repeat 9"]
# The whole matrix's no-op measured as one selection, on the matrix's own
# shape laid with the stand-in kernel (bench/noop-full, minutes), into
# build/bench/noop-full/:
#   make bench-noop-full [NOOP_ARGS=...]
# check-bench runs both scripts on a stand-in kernel (seconds, no times
# asserted) so the benchmarks themselves stay working.
.PHONY: bench bench-quick bench-noop bench-noop-full check-bench
bench: setup all
	bench/bench $(BENCH_ARGS)

bench-quick: setup all
	bench/bench --quick $(BENCH_ARGS)

bench-noop: all
	bench/noop $(NOOP_ARGS)

bench-noop-full: all
	bench/noop-full $(NOOP_ARGS)

CHECK_HOST += check-bench
check-bench: all
	bench/tests/smoke.sh
