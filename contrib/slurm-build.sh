#!/bin/sh
# Build a Slurm release tarball once into a private prefix in a cache
# directory (never over the system's Slurm), with only what a localhost test
# cluster needs, and print the prefix on stdout.
#
#   contrib/slurm-build.sh [--configure-only] TARBALL [CACHE]
#
# CACHE defaults to $SKELSCHED_CACHE or ~/.cache/skelsched. The result is
# CACHE/slurm-VERSION/{src,build,prefix}; a prefix with a .built stamp is
# reused as it is. The times go to CACHE/slurm-VERSION/build-time.
# --configure-only stops after configure and prints the build directory: a
# configured tree is what the plugin needs for slurmctld's own headers
# (configure --with-slurm-source) when the daemons come from a distribution
# package of the same release (Debian's 22.05.8).
#
# What is left out, and why: the test cluster runs several slurmd on one
# host (--enable-multiple-slurmd); static libraries would compile every
# file twice; the REST daemon, X11, PAM, readline, sview and the optional
# libraries (GPUs, PMIx, HDF5, ...) are unused. Of the tree, only the
# libraries, slurmctld, slurmd/slurmstepd, the clients the tests run and the
# plugin families a test cluster loads are built (SLURM_DIRS, SLURM_PLUGINS
# below): not slurmdbd, the data parsers (the largest part of the tree),
# accounting, GPUs, MPI, burst buffers, the man pages or the test suite.
set -eu

only_configure=0
if [ "${1:-}" = --configure-only ]; then only_configure=1; shift; fi
tarball=${1:?usage: contrib/slurm-build.sh [--configure-only] TARBALL [CACHE]}
cache=${2:-${SKELSCHED_CACHE:-$HOME/.cache/skelsched}}
[ -r "$tarball" ] || { echo "slurm-build: $tarball: cannot read" >&2; exit 1; }
name=$(basename "$tarball" .tar.gz)
name=${name%.tar.bz2}
top=$cache/$name
prefix=$top/prefix
build=$top/build
SLURM_DIRS="src/api src/common src/conmgr src/interfaces src/bcast src/stepmgr
src/slurmctld src/slurmd src/sbatch src/scontrol src/sinfo src/srun src/squeue src/scancel
src/salloc"
# the plugins a test cluster loads: its slurm.conf's and the defaults it
# leaves (HashPlugin, PrEpPlugins, PriorityType, TLSType, TopologyPlugin);
# 25.11's slurmctld also needs an MPI plugin, its clients certgen, slurmd a
# cgroup plugin (autodetect) and slurmstepd gpu/generic (found by starting
# the cluster); the common libraries first where no rule builds them
SLURM_PLUGINS="auth/munge certgen/script certmgr/script cgroup/common cgroup/v1 cred/common
cred/munge gpu/common gpu/generic hash/k12 prep/script priority/multifactor mpi/pmi2
proctrack/linuxproc sched/backfill select/cons_tres tls/none topology/default topology/flat"

# one build at a time per release (parallel test runs share the cache)
mkdir -p "$top"
exec 9>"$top.lock"
flock 9
if [ $only_configure = 0 ] && [ -f "$prefix/.built" ]; then
    echo "$prefix"
    exit 0
fi
if [ ! -f "$top/src/configure" ]; then
    rm -rf "$top/src"
    mkdir -p "$top/src"
    tar -xf "$tarball" -C "$top/src" --strip-components=1
fi
jobs=${SLURM_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}
if [ ! -f "$build/.configured" ]; then
    t0=$(date +%s)
    rm -rf "$build"
    mkdir -p "$build"
    (cd "$build" && nice "$top/src/configure" --prefix="$prefix" --sysconfdir="$prefix/etc" \
        --enable-multiple-slurmd --disable-static --disable-debug \
        --disable-slurmrestd --disable-x11 --disable-pam --disable-sview \
        --without-readline --without-hdf5 --without-hwloc --without-nvml \
        --without-rsmi --without-oneapi --without-pmix --without-ucx \
        --without-freeipmi --without-rdkafka --without-lua --without-jwt \
        --without-yaml --without-http-parser --without-lz4 --without-bpf \
        --without-libcurl --without-ofed --without-json \
        --without-mysql_config CFLAGS="-O1 -pipe") >"$top/configure.log" 2>&1 ||
        { echo "slurm-build: configure failed, see $top/configure.log" >&2; exit 1; }
    touch "$build/.configured"
    echo "configure $(($(date +%s) - t0)) s" >"$top/build-time"
fi
if [ $only_configure = 1 ]; then
    echo "$build"
    exit 0
fi
t0=$(date +%s)
dirs=""
for d in $SLURM_DIRS; do [ -f "$build/$d/Makefile" ] && dirs="$dirs $d"; done
for p in $SLURM_PLUGINS; do [ -f "$build/src/plugins/$p/Makefile" ] && dirs="$dirs src/plugins/$p"; done
for d in $dirs; do
    nice make -C "$build/$d" -j"$jobs" >>"$top/make.log" 2>&1 ||
        { echo "slurm-build: make in $d failed, see $top/make.log" >&2; exit 1; }
done
for d in $dirs; do
    make -C "$build/$d" install >>"$top/install.log" 2>&1 ||
        { echo "slurm-build: make install in $d failed, see $top/install.log" >&2; exit 1; }
done
# the public headers (slurm/*.h) are the top directory's
make -C "$build" install-pkgincludeHEADERS >>"$top/install.log" 2>&1 ||
    { echo "slurm-build: installing the headers failed, see $top/install.log" >&2; exit 1; }
echo "make -j$jobs $(($(date +%s) - t0)) s" >>"$top/build-time"
touch "$prefix/.built"
echo "$prefix"
