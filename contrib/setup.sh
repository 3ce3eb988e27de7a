#!/bin/sh
# Install what skelsched needs on Debian 12, from Debian's packages only.
# Idempotent: packages already present are left alone. Run as root or through sudo.
# clang and libclang-rt-14-dev (libFuzzer) are for `make fuzz` only.
#
# SUNDIALS: Debian's libsundials-dev depends on MPI, PETSc, hypre and Trilinos
# (about 140 packages). skelsched uses CVODE with serial vectors only, and
# libsundials_cvode.so.6 carries those modules itself. So we install the
# three runtime packages (3 packages, no MPI) and take the headers from the
# libsundials-dev .deb of the same version, fetched with apt-get download and
# unpacked into /usr/local (headers plus unversioned .so links). Set
# SKELSCHED_FULL_SUNDIALS=1 to install libsundials-dev itself instead.
set -eu

if [ "$(id -u)" -ne 0 ]; then
    exec sudo -E "$0" "$@"
fi

export DEBIAN_FRONTEND=noninteractive
PKGS="build-essential autoconf automake libtool pkg-config git
check libsubunit-dev libxml2-dev libsuitesparse-dev liblapack-dev libblas-dev libopenblas0-serial
libsundials-cvode6 libsundials-nvecserial6 libsundials-sunmatrix4
libslurm-dev slurmctld slurmd slurm-client munge libmunge-dev
gnuplot-nox valgrind
clang libclang-rt-14-dev"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
if [ "${SKELSCHED_FULL_SUNDIALS:-0}" = 1 ]; then
    dpkg-query -W libsundials-dev >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends libsundials-dev >/dev/null
elif [ ! -e /usr/include/cvode/cvode.h ] && [ ! -e /usr/local/include/cvode/cvode.h ]; then
    echo "setup: unpacking SUNDIALS headers from libsundials-dev into /usr/local"
    ver=$(dpkg-query -W -f='${Version}' libsundials-cvode6)
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download -qq "libsundials-dev=$ver" >/dev/null)
    dpkg-deb -x "$tmp"/libsundials-dev_*.deb "$tmp/x"
    mkdir -p /usr/local/include /usr/local/lib
    cp -a "$tmp/x/usr/include/." /usr/local/include/
    for lib in cvode nvecserial sunmatrixsparse sunmatrixdense; do
        so=$(ls /usr/lib/"$multiarch"/libsundials_"$lib".so.[0-9]* 2>/dev/null | head -n 1)
        [ -n "$so" ] && ln -sf "$so" /usr/local/lib/libsundials_"$lib".so
    done
    rm -rf "$tmp"
    ldconfig
fi
echo "setup: all dependencies present"
