#!/bin/sh
# The real-Slurm suite (tests/slurm: e2e.sh, soak.sh) against one Slurm
# release, built once from its tarball into the cache (contrib/slurm-build.sh):
#
#   contrib/check-slurm.sh TARBALL           that release's own daemons
#   contrib/check-slurm.sh --system TARBALL  the system's daemons (Debian's),
#                                            the tarball (same release) for
#                                            slurmctld's headers only
#
# The project is configured against it in _build-slurm-VERSION (or
# _build-slurm-VERSION-system) with --enable-werror, built, and the suite
# run there (logs in DIR/tests/slurm/). Exit status: the suite's.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
system=0
if [ "${1:-}" = --system ]; then system=1; shift; fi
tarball=${1:?usage: contrib/check-slurm.sh [--system] TARBALL}
[ -r "$tarball" ] || { echo "check-slurm: $tarball: cannot read" >&2; exit 1; }
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")
name=$(basename "$tarball" .tar.gz)
jobs=$(nproc 2>/dev/null || echo 2)

if [ $system = 1 ]; then
    tree=$("$top/contrib/slurm-build.sh" --configure-only "$tarball")
    dir=$top/_build-$name-system
    set -- --with-slurm-source="$tree"
else
    t0=$(date +%s)
    prefix=$("$top/contrib/slurm-build.sh" "$tarball")
    echo "check-slurm: $name in $prefix ($(cat "$(dirname "$prefix")/build-time" 2>/dev/null || echo "built before");" \
        "this step $(($(date +%s) - t0)) s)"
    dir=$top/_build-$name
    set -- --with-slurm="$prefix" --with-slurm-source="$(dirname "$prefix")/build"
fi
[ -x "$top/configure" ] || "$top/autogen.sh"
mkdir -p "$dir"
cd "$dir"
# configured once per set of options (configure takes minutes on a busy machine)
if [ ! -f Makefile ] || [ "$(cat .check-slurm-args 2>/dev/null)" != "$*" ]; then
    "$top/configure" -q --enable-werror "$@"
    echo "$*" >.check-slurm-args
fi
# only what the suite runs (the unit suites do not depend on Slurm)
make -s -j"$jobs" skelsched plugin/job_submit_skeleton.la plugin/spank_skeleton.la
export SKELSCHED="$dir/skelsched" SRCDIR="$top" SHARED_DIR="${SHARED_DIR:-$top/../shared}"
export SLURM_PREFIX="${prefix:-}"
mkdir -p tests/slurm
rc=0
for t in e2e users soak; do
    sh "$top/tests/slurm/$t.sh" >"tests/slurm/$t.log" 2>&1 || rc=1
    echo "$name: $t: $(grep -E '^[0-9]+ passed, [0-9]+ failed' "tests/slurm/$t.log" || echo "no summary")"
done
if [ $rc != 0 ]; then
    for t in e2e users soak; do echo "--- $dir/tests/slurm/$t.log"; grep -E '^(FAIL|SKIP)' "tests/slurm/$t.log"; done
fi
exit $rc
