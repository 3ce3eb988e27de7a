#!/bin/sh
# contrib/sweep-placements.sh: the approximation against the exact chain
# over every placement of a skeleton's tasks on a platform's nodes
# (docs/approximation.md "Where it misses"; issue 15).
#
#   contrib/sweep-placements.sh SKELSCHED SKELETON PLATFORM SHARING [NODE...]
#
# NODE... are the platform's node names (default h0 h1 h2). Prints one line
# per placement (placement, exact, approx, error %) with -v as a first
# argument, and always the summary: placements answered by both, mean
# |error|, min and max error (%, approx against exact), the worst placement.
# A placement either method refuses is counted apart. Accuracy does not
# depend on the machine's load.
# The job's throughput is read as the last task's compute (comp_N, N the
# number of tasks less one): the skeleton must end in a single task, not a
# farm, deal or loop, or the figures compared are not the job's.
set -u
verbose=0
if [ "${1:-}" = "-v" ]; then verbose=1; shift; fi
if [ $# -lt 4 ]; then
    echo "usage: $0 [-v] SKELSCHED SKELETON PLATFORM SHARING [NODE...]" >&2
    exit 2
fi
bin=$1 skel=$2 plat=$3 sharing=$4
shift 4
[ $# -gt 0 ] || set -- h0 h1 h2
ntasks=$("$bin" solve "$skel" --platform "$plat" --method approx --json 2>/dev/null |
         sed -n 's/.*"tasks": \([0-9]*\).*/\1/p')
if [ -z "$ntasks" ]; then
    echo "$0: $skel: the approximation refuses it" >&2
    exit 1
fi
nodes="$*"
# every placement, as t0=NODE,t1=NODE,... (the first task varies slowest)
places() {
    awk -v n="$ntasks" -v nodes="$nodes" 'BEGIN {
        k = split(nodes, name, " "); total = 1
        for (i = 0; i < n; i++) total *= k
        for (p = 0; p < total; p++) {
            s = ""; q = p
            for (i = n - 1; i >= 0; i--) { d[i] = q % k; q = int(q / k) }
            for (i = 0; i < n; i++) s = s (i ? "," : "") "t" i "=" name[d[i] + 1]
            print s
        }
    }'
}
# the items per second leaving the skeleton: the last task's computations
# (the first "comp_N" of the exact answer: its actions' throughputs)
last=comp_$((ntasks - 1))
places | while read -r pl; do
    ex=$("$bin" solve "$skel" --platform "$plat" --place "$pl" --sharing "$sharing" --json \
         2>/dev/null | grep -o "\"$last\": [0-9.e+-]*" | head -n 1 | sed 's/.*: //')
    ap=$("$bin" solve "$skel" --platform "$plat" --place "$pl" --sharing "$sharing" \
         --method approx --json 2>/dev/null |
         sed -n 's/.*"throughput": \([0-9.e+-]*\), "at_bound".*/\1/p')
    echo "$pl ${ex:-refused} ${ap:-refused}"
done | awk -v verbose="$verbose" '
    $2 == "refused" || $3 == "refused" { refused++; if (verbose) print $0; next }
    {
        e = 100 * ($3 - $2) / $2; a = e < 0 ? -e : e
        n++; sum += a
        if (n == 1 || e > max) { max = e; worst = $1 }
        if (n == 1 || e < min) min = e
        if (verbose) printf "%s %.6g %.6g %+.2f%%\n", $1, $2, $3, e
    }
    END {
        printf "placements %d (refused %d)  mean |error| %.2f%%  min %+.2f%%  max %+.2f%% at %s\n",
               n, refused, n ? sum / n : 0, min, max, worst
    }'
