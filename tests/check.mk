# Test targets.  `make check` is the README's test command and what CI runs:
# set-up, every build, the unit tests, then the suites that drive real
# kernels.  Each directory hooks its own unit tests into check-unit.

.PHONY: check check-mutants check-mutants-quick check-w1 check-unit check-e2e check-faults check-chaos check-patches check-shard check-ci check-distcc check-sandbox check-bisect

# make check runs its suites in lanes, side by side (tests/lib/lane: each
# lane's lines prefixed with its name, its output kept in
# build/check/<lane>.log).  A lane makes its suites one after another, as a
# serial make check did, which left a core idle through the host tests and
# the single-threaded QEMU boots.
#   host:  the single-threaded checks that need no kernel, beside check-e2e
#   e2e:   check-e2e, which lays and builds what the other lanes start from
#   cache: the suites that run kmatrix on the kmatrix cache or read the
#          trees and results check-e2e left there (a cache's lock admits
#          one kmatrix), then those with caches of their own (check-ci's
#          jobs, check-mutants-quick, check-chaos) and the fuzzing, which
#          takes both cores and would slow check-e2e; check-patches last,
#          so that on a fresh machine the trees the suites lay are checked
#   own:   check-faults, the longest suite, on a cache of its own that it
#          damages on purpose, after check-e2e has filled the shared ccache
# Directories add their checks to a lane (CHECK_HOST += ...).
CHECK_HOST := check-man check-unit check-unit-san
CHECK_E2E := check-e2e
CHECK_CACHE := check-shard check-sandbox check-abi check-w1 check-ci check-mutants-quick \
	check-chaos check-fuzz check-patches
CHECK_OWN := check-faults
CHECK_LANES := host e2e cache own

check: setup all
	+@$(MAKE) --no-print-directory -j$(words $(CHECK_LANES)) $(CHECK_LANES:%=check-lane-%)

.PHONY: $(CHECK_LANES:%=check-lane-%)
check-lane-cache check-lane-own: check-lane-e2e
$(CHECK_LANES:%=check-lane-%): check-lane-%:
	@MAKE="$(MAKE)" tests/lib/lane $* $(CHECK_$(shell echo $* | tr a-z A-Z))

# The reliability checks that need no kernel: the unit tests again under
# ASan and UBSan (check-unit-san, tests/sanitize.mk), and each fuzz
# target's seeds and reproducers replayed, then FUZZ_CHECK_SECONDS (30) of
# fuzzing (check-fuzz, fuzz/build.mk).  Their times: build/check/times.tsv.

# Each suite script runs under tests/lib/run-suite, which fails it when
# bash reported an error in it (a suite cut short by a shell error must not
# pass); tests/lib/test-run-suite.sh, in check-unit, shows that it does.
RUN_SUITE := tests/lib/run-suite
check-unit: check-run-suite
.PHONY: check-run-suite
check-run-suite:
	tests/lib/test-run-suite.sh
	tests/lib/test-share-cache.sh

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
	$(RUN_SUITE) tools/tests/check-w1.sh

# The end-to-end suite: one version, both arches, steps stock, baseline and
# the series' last, really laid, patched, built and booted (tests/e2e/run.sh).
# 5.10 builds fastest here; 7.2 is the canonical version:
#   make check-e2e E2E_VERSION=7.2
E2E_VERSION ?= 5.10
check-e2e: all
	$(RUN_SUITE) tests/e2e/run.sh $(E2E_VERSION)

# A longer target, not part of check: kmatrix bisect over a copy of the 5.10
# series with a faulty nice step must name that step (tests/e2e/bisect.sh).
# Five 5.10 x86_64 builds the first time (measured: 88 min at load 15-25
# with four other kernel builds running; 4.7 min with the cells cached).
check-bisect: all
	$(RUN_SUITE) tests/e2e/bisect.sh

# Shards: the end-to-end run's cells split over 2 and 3 shards, each a real
# `kmatrix run --shard I/N` on that cache (every cell found cached, nothing
# built), merged and reported like the one run (tests/shard/run.sh).  Runs
# after check-e2e, whose results it splits.
check-shard: all
	$(RUN_SUITE) tests/shard/run.sh

# The GitLab and GitHub pipelines `kmatrix ci` writes, checked against the
# systems' published schemas (tests/ci/validate.sh, schemas in tests/ci/);
# then the GitLab one run by gitlab-ci-local (tests/ci/gitlab-local.sh),
# which make setup installs, on check-e2e's cells: after check-e2e.
check-ci: all
	$(RUN_SUITE) tests/ci/validate.sh
	$(RUN_SUITE) tests/ci/gitlab-local.sh

# Distributed compiling (tests/distcc/run.sh): two distccd hosts in network
# namespaces the test makes, one cell built through them and here, with the
# same verdict and key.  Needs root; two full kernel builds, so it is not
# part of check.  Its cache: $KMATRIX_CACHE, else ~/.cache/kmatrix-distcc.
DISTCC_VERSION ?= 5.10
check-distcc: all
	$(RUN_SUITE) tests/distcc/run.sh $(DISTCC_VERSION)

# The sandbox: paths in the repository refused, a hostile series' Makefile
# writing outside the cache and reaching the network on real 5.10 x86_64,
# and a real cell with module and kexec commands shadowed (tests/sandbox/).
# After check-e2e, whose 5.10 build directory it reuses.
check-sandbox: all
	$(RUN_SUITE) tests/sandbox/run.sh

# Mutation testing (tests/mutants/README.md): each mutant is one wrong
# decision in the 5.10 series, built incrementally after its last step and
# booted; every one must be killed, by a case that departs from that step's
# expectations.  check-mutants-quick, part of check, runs the six of the
# "check" set (one or two per patch) on x86_64 with its i386 suite;
# check-mutants runs all of them, three also on arm64 and mips64el.  Its
# own cache, <kmatrix cache>-mutants (ccache and guest-debs shared).
# One or more by name: make check-mutants MUTANTS="idle-const rt-ge"
MUTANTS ?=
check-mutants: all
	$(RUN_SUITE) tests/mutants/run.sh $(MUTANTS)

check-mutants-quick: all
	$(RUN_SUITE) tests/mutants/run.sh --set check

# Fault injection: each case injects one fault into a real 5.10 run and
# asserts the verdict, the evidence and that the other cells are intact
# (tests/faults/run.sh; on its own cache, <kmatrix cache>-faults, ccache
# and guest-debs shared).  Root is
# needed for the full-disk case (a tmpfs in a private mount namespace).
# One or more cases by name: make check-faults FAULTS="panic hang"
# With its cache warm, every case rebuilds or reboots only its faulted cell.
FAULTS ?=
check-faults: all
	$(RUN_SUITE) tests/faults/run.sh $(FAULTS)

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
# since the lay kills remove its tree.  A longer run: make check-chaos CHAOS_N=50
# Its uninterrupted run starts from check-e2e's results for the same two
# cells (reused when their keys match).
CHAOS_N ?= 7
check-chaos: all
	CHAOS_N=$(CHAOS_N) $(RUN_SUITE) tests/chaos/run.sh

# check-chaos on an empty chaos cache: no tree, build directory or
# results of its own (ccache still shared), which is what a fresh
# machine's make check meets.  Not in check: it lays the tree and builds
# the two cells again.  Its cache is removed when the run passes, kept
# for its logs when it fails.
CHAOS_EMPTY = $${KMATRIX_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/kmatrix}-chaos-empty
.PHONY: check-chaos-empty
check-chaos-empty: all
	rm -rf "$(CHAOS_EMPTY)"
	CHAOS_CACHE="$(CHAOS_EMPTY)" CHAOS_N=$(CHAOS_N) $(RUN_SUITE) tests/chaos/run.sh; \
	rc=$$?; [ $$rc -ne 0 ] || rm -rf "$(CHAOS_EMPTY)"; exit $$rc
