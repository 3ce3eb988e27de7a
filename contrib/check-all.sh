#!/bin/sh
# The whole test suite, as CI runs it:
#   1. dependencies (contrib/setup.sh, idempotent)
#   2. warnings-as-errors build and `make check` (Check unit suites, CLI tests,
#      the documentation's examples, the plugin in a real Slurm)
#   3. `make distcheck`: the release tarball unpacks, builds, passes its
#      tests (those in a real Slurm excepted, run in step 2) and installs
#   4. the same suites built with AddressSanitizer + UndefinedBehaviorSanitizer
#   5. the CLI tests and the fuzz regression corpora under valgrind (no
#      memory errors, no definite leaks)
# The builds never touch the source tree, which may be configured and built
# in place (README's first command does that): they build, each in its own
# directory (_build/, _build-san/), from a copy of the working tree in
# _build-src/ (its tracked and unignored files, edits included), because
# automake's out-of-tree builds refuse a source tree configured in place.
# A tree that is not a git checkout (a release tarball) is built from where
# it is, and so must not be configured in place. Prints every suite's summary.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)

"$top/contrib/setup.sh"

# The tests read the shared corpora from ../shared beside the clone (never a
# copy). A clone made elsewhere, say in /tmp, finds them beside the
# repository it was cloned from; failing that, say so once.
if [ -z "${SHARED_DIR:-}" ] && [ -d "$top/../shared" ]; then
    SHARED_DIR=$(cd "$top/../shared" && pwd)
elif [ -z "${SHARED_DIR:-}" ]; then
    origin=$(git -C "$top" config --get remote.origin.url 2>/dev/null || true)
    origin=${origin#file://}
    if [ -n "$origin" ] && [ -d "$origin/../shared/corpus" ]; then
        SHARED_DIR=$(cd "$origin/../shared" && pwd)
        echo "== shared corpora: $SHARED_DIR (beside the origin $origin)"
    else
        echo "check-all.sh: no ../shared beside $top, nor beside its origin; set SHARED_DIR" >&2
        exit 1
    fi
fi
export SHARED_DIR

# src: the tree the builds configure from
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    src=$top/_build-src
    echo "== copying the working tree to $src"
    rm -rf "$src"
    mkdir -p "$src"
    git -C "$top" ls-files -z --cached --others --exclude-standard |
        tar -C "$top" --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C "$src" -xf -
    "$src/autogen.sh"
else
    src=$top
    if [ -f "$top/config.status" ]; then
        echo "check-all.sh: $top is configured in place; run 'make distclean' there first" >&2
        exit 1
    fi
    [ -x "$top/configure" ] || "$top/autogen.sh"
fi

summary() {
    # Check's lines ("100%: Checks: 12, Failures: 0, Errors: 0") and the CLI
    # tests' ("12 passed, 0 failed") from the logs of one build
    for log in "$1"/tests/unit/*.log "$1"/tests/cli/*.log "$1"/tests/slurm/*.log "$1"/tests/fuzz/*.log; do
        [ -f "$log" ] || continue
        grep -hE '^[0-9]+%: Checks: |^[0-9]+ passed, [0-9]+ failed' "$log" | sed "s|^|$(basename "$log" .log): |"
    done
}

run_suite() {   # run_suite DIR CONFIGURE-ARGS...
    dir=$1; shift
    mkdir -p "$dir"
    (cd "$dir" && "$src/configure" -q "$@" && make -s -j"$jobs" && make -s -j"$jobs" check) || {
        summary "$dir"
        for log in "$dir"/tests/*/*.log; do
            grep -qE '^(FAIL|ERROR)' "${log%.log}.trs" 2>/dev/null && { echo "--- $log"; tail -n 40 "$log"; }
        done
        return 1
    }
    summary "$dir"
}

# The plugin reads slurmctld's records through the headers of the installed
# Slurm's own release (docs/admin.md): Slurm's configure, once, on the
# vendored tarball of that release (contrib/slurm-build.sh caches it).
slurm_source=""
slurm_v=$(sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"$/\1/p' /usr/include/slurm/slurm_version.h 2>/dev/null || true)
if [ -n "$slurm_v" ]; then
    tarball=${SHARED_DIR:-$top/../shared}/vendor/slurm-$slurm_v.tar.gz
    [ -f "$tarball" ] || { echo "check-all.sh: no $tarball for the installed Slurm $slurm_v" >&2; exit 1; }
    echo "== Slurm $slurm_v's configure, for slurmctld's headers (cached)"
    slurm_source=--with-slurm-source=$("$top/contrib/slurm-build.sh" --configure-only "$tarball")
fi

echo "== build with warnings as errors, make check"
run_suite "$top/_build" --enable-werror $slurm_source

echo "== make distcheck (the release tarball builds, passes its tests, installs)"
# (its real-Slurm tests are skipped: the same sources ran them in step 2)
(cd "$top/_build" && SKELSCHED_SKIP_CLUSTER=1 make -s distcheck) || exit 1

echo "== sanitizers (ASan + UBSan), make check"
CK_TIMEOUT_MULTIPLIER=4 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
SKELSCHED_QUICK=1 run_suite "$top/_build-san" --enable-werror --enable-sanitize $slurm_source

echo "== valgrind on the CLI tests"
(cd "$top/_build" && VALGRIND=1 SKELSCHED_QUICK=1 make -s check TESTS="$(cd "$src" && ls tests/cli/*.sh | grep -v /lib.sh | tr "\n" " ")") || {
    summary "$top/_build"; exit 1; }
# the fuzz targets' regression corpora, every input replayed under memcheck
(cd "$top/_build" && make -s check TESTS="$(cd "$src" && ls tests/fuzz/fuzz_*.c | sed 's|/fuzz_\(.*\)\.c$|/replay_\1|' | tr "\n" " ")" \
    LOG_COMPILER="$(command -v valgrind)" AM_LOG_FLAGS="-q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite") || {
    summary "$top/_build"; exit 1; }
summary "$top/_build" | grep -E '^[a-z_.]+: [0-9]+ passed'
# The newest vendored Slurm release's own daemons (make check-slurm): not by
# default, since building it (configure and the test cluster's part of the
# tree) and a second project build with the suite add about ten minutes to
# CI's nine on an idle 2-core machine (docs/admin.md); SKELSCHED_SLURM_NEWEST=1
# runs it.
if [ "${SKELSCHED_SLURM_NEWEST:-0}" = 1 ]; then
    newest=$(ls "${SHARED_DIR:-$top/../shared}"/vendor/slurm-*.tar.gz | sort -V | tail -n 1)
    echo "== real-Slurm suite on $(basename "$newest" .tar.gz)"
    "$top/contrib/check-slurm.sh" "$newest"
fi
echo "== all test suites passed"
