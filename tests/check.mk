# Test targets.  `make check` is the README's test command and what CI runs:
# set-up, every build, the unit tests, then the suites that drive real
# kernels.  Each directory hooks its own unit tests into check-unit.

.PHONY: check check-w1 check-unit check-e2e check-faults check-chaos check-patches check-shard check-ci check-distcc check-sandbox check-bisect
check: setup all check-unit check-unit-san check-fuzz check-ci check-e2e check-shard check-sandbox check-abi check-w1 check-faults check-chaos check-patches

# Before the kernels, the fast reliability checks: the unit tests again
# under ASan and UBSan (check-unit-san, tests/sanitize.mk), then each fuzz
# target's seeds and reproducers replayed and FUZZ_CHECK_SECONDS (30) of
# fuzzing (check-fuzz, fuzz/build.mk).  Measured here at load 4 to 7:
# check-unit-san 206 s without check-port, check-fuzz 193 s after a 42 s
# build.

# Every patch of series/ and backports/ against its own version's
# checkpatch.pl --strict and the project's patch rules (tools/check-patches);
# a version whose tree kmatrix has not laid yet is skipped, named.  Last in
# check, so that on a fresh machine the trees the suites lay are checked.
check-patches: $(B)/kmatrix
	tools/check-patches

# tools/check-w1 catches a W=1-only warning a step adds (a fixture tree
# made from the 5.10 tree check-e2e lays) and passes the real 5.10 series
# on x86_64 (tools/tests/check-w1.sh).
check-w1: $(B)/kmatrix
	tools/tests/check-w1.sh

# The end-to-end suite: one version, both arches, steps stock, baseline and
# the series' last, really laid, patched, built and booted (tests/e2e/run.sh).
# 5.10 builds fastest here; 7.2 is the canonical version:
#   make check-e2e E2E_VERSION=7.2
E2E_VERSION ?= 5.10
check-e2e: all
	tests/e2e/run.sh $(E2E_VERSION)

# A longer target, not part of check: kmatrix bisect over a copy of the 5.10
# series with a faulty nice step must name that step (tests/e2e/bisect.sh).
# Five 5.10 x86_64 builds the first time (measured: 88 min at load 15-25
# with four other kernel builds running; 4.7 min with the cells cached).
check-bisect: all
	tests/e2e/bisect.sh

# Shards: the end-to-end run's cells split over 2 and 3 shards, each a real
# `kmatrix run --shard I/N` on that cache (every cell found cached, nothing
# built), merged and reported like the one run (tests/shard/run.sh).  Runs
# after check-e2e, whose results it splits.
check-shard: all
	tests/shard/run.sh

# The GitLab and GitHub pipelines `kmatrix ci` writes, checked against the
# systems' published schemas (tests/ci/validate.sh, schemas in tests/ci/).
check-ci: all
	tests/ci/validate.sh

# Distributed compiling (tests/distcc/run.sh): two distccd hosts in network
# namespaces the test makes, one cell built through them and here, with the
# same verdict and key.  Needs root; two full kernel builds, so it is not
# part of check.  Its cache: $KMATRIX_CACHE, else ~/.cache/kmatrix-distcc.
DISTCC_VERSION ?= 5.10
check-distcc: all
	tests/distcc/run.sh $(DISTCC_VERSION)

# The sandbox: paths in the repository refused, a hostile series' Makefile
# writing outside the cache and reaching the network on real 5.10 x86_64,
# and a real cell with module and kexec commands shadowed (tests/sandbox/).
# After check-e2e, whose 5.10 build directory it reuses.
check-sandbox: all
	tests/sandbox/run.sh

# Fault injection: each case injects one fault into a real 5.10 run and
# asserts the verdict, the evidence and that the other cells are intact
# (tests/faults/run.sh; on the kmatrix cache after check-e2e, whose 5.10
# builds it reuses; its results under <kmatrix cache>/faults).  Root is
# needed for the full-disk case (a tmpfs in a private mount namespace).
# One or more cases by name: make check-faults FAULTS="panic hang"
# Measured here on an idle machine: 710 s with its cache warm (every case
# rebuilds or reboots only its faulted cell).
FAULTS ?=
check-faults: all
	tests/faults/run.sh $(FAULTS)

# kill -9 anywhere, then resume: CHAOS_N SIGKILLs of kmatrix at seeded
# random moments of a real 5.10 x86_64 run (steps stock and baseline), aimed
# at each kind of stage in turn (a timed kill cut short at its stage's
# end): laying, apply, the hand-over to the build user, configure, build,
# boot, a result half written.  After each: no
# process of the run left, the next run reports the dead owner's lock; at
# the end the cells' verdicts and keys are the uninterrupted run's, and a
# reader polling results/ never saw invalid JSON (tests/chaos/run.sh).
# The seed is printed; replay with CHAOS_SEED=.  Its own cache
# ($CHAOS_CACHE, else <kmatrix cache>-chaos; ccache and guest-debs shared),
# since the lay kills remove its tree.  After check-faults, never beside
# another suite.  A longer run: make check-chaos CHAOS_N=50
# Its uninterrupted run starts from check-e2e's results for the same two
# cells (reused when their keys match).  Measured here at load 5 to 9 (a
# matrix run beside it): 767 s and 919 s for the 7 kills, its
# uninterrupted run cached; cold, in the cold make check: 666 s.
CHAOS_N ?= 7
check-chaos: all
	CHAOS_N=$(CHAOS_N) tests/chaos/run.sh
