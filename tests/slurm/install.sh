#!/bin/sh
# make install puts the plugins (.so only: no libtool .la in Slurm's plugin
# directory) and the man pages of skelsched, skeleton.conf and the plugins
# (issue 17). Installs into a temporary DESTDIR of this build tree.
BUILD=$(cd "$(dirname "${SKELSCHED:-$PWD/skelsched}")" && pwd)
[ -f "$BUILD/Makefile" ] || { echo "SKIP: no Makefile in $BUILD"; exit 77; }
D=$(mktemp -d /tmp/skel-install.XXXXXX) || exit 1
trap 'rm -rf "$D"' EXIT
${MAKE:-make} -s -C "$BUILD" install DESTDIR="$D" >"$D.log" 2>&1 || { cat "$D.log"; rm -f "$D.log"; exit 1; }
rm -f "$D.log"
fails=0
so=$(find "$D" -name job_submit_skeleton.so | head -1)
[ -n "$so" ] && echo "ok - job_submit_skeleton.so installed" || { echo "FAIL - no job_submit_skeleton.so"; fails=1; }
[ -n "$(find "$D" -name spank_skeleton.so)" ] && echo "ok - spank_skeleton.so installed" ||
    { echo "FAIL - no spank_skeleton.so"; fails=1; }
la=$(find "$D" -name '*.la')
[ -z "$la" ] && echo "ok - no .la installed" || { echo "FAIL - .la files installed: $la"; fails=1; }
for m in man1/skelsched.1 man5/skeleton.conf.5 man8/job_submit_skeleton.8; do
    [ -n "$(find "$D" -path "*/man/$m")" ] && echo "ok - $m installed" || { echo "FAIL - no $m"; fails=1; }
done
${MAKE:-make} -s -C "$BUILD" uninstall DESTDIR="$D" >/dev/null 2>&1
left=$(find "$D" -type f)
[ -z "$left" ] && echo "ok - uninstall removes everything" || { echo "FAIL - left after uninstall: $left"; fails=1; }
exit $fails
