#!/bin/sh
# bench_submit: submission latency of job_submit/skeleton on a real Slurm
# (issue 8: "with and without the plugin, as a ratio"). On the local
# cluster of cluster.sh, the same held 3-stage #SKEL job is submitted
# BENCH_SUBMITS times (default 50) with the plugin, then again after the
# plugin was removed from slurm.conf and slurmctld restarted, BENCH_ROUNDS
# times (default 3); a plain job (no #SKEL, the plugin's fast path) is
# measured with the plugin too. The
# clock is sbatch's wall time, what a user waits for (slurmctld's usec= for
# the submit RPC does not include job_submit, measured: a 0.7 ms decision
# in a 0.3 ms RPC); the plugin's own decision time comes from its log
# lines. Prints one table; skips (77) unless root with Slurm's daemons.
# Usage (from the build directory; `make bench` runs it):
#     SRCDIR=.. tests/slurm/bench_submit.sh
HERE=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$HERE/cluster.sh" ]; then
    echo "bench_submit: skipped: needs tests/slurm/cluster.sh"
    exit 77
fi
CLUSTER_NAME=skelbench
. "$HERE/cluster.sh"
N=${BENCH_SUBMITS:-50}

cluster_setup
{ echo "Budget=50"; echo "LocalLatency=0.0001"; echo "DefaultLatency=0.001"
  echo "NodeName=n1 Speed=1"; echo "NodeName=n2 Speed=4"; echo "NodeName=n3 Speed=2"
  echo "NodeName=n4 Speed=8"; } >"$T/skeleton.conf"
cluster_start >"$T/start.log" 2>&1 || { cat "$T/start.log"; exit 1; }

printf '#!/bin/sh\n#SBATCH -J bskel\n#SKEL pipe(3);\n#SKEL task("a", 4.0);\n#SKEL task("b", 1.0);\n#SKEL task("c", 2.0);\ntrue\n' >"$T/skel.sh"
printf '#!/bin/sh\n#SBATCH -J bplain\ntrue\n' >"$T/plain.sh"

# run NAME FILE: N held submissions, sbatch's wall time (us) in $T/NAME.us
run() {
    name=$1 file=$2
    : >"$T/$name.us"
    k=0
    while [ $k -lt "$N" ]; do
        s0=$(date +%s%N)
        submit "$file" -H >/dev/null || { echo "bench_submit: sbatch failed: $(cat "$T/sbatch.err")"; exit 1; }
        echo $((($(date +%s%N) - s0) / 1000)) >>"$T/$name.us"
        k=$((k + 1))
    done
    scancel -n bskel >/dev/null 2>&1
    scancel -n bplain >/dev/null 2>&1
}
# pct FILE P: the P-th percentile (nearest rank) of a column of numbers
pct() { sort -n "$1" | awk -v p="$2" '{v[NR] = $1} END {i = int(p / 100 * NR + 0.999); if (i < 1) i = 1; print v[i]}'; }

# restart_ctld on|off: slurmctld restarted on the same state (slurmd kept),
# with or without JobSubmitPlugins=skeleton
restart_ctld() {
    kill "$CTLD"
    i=0
    while kill -0 "$CTLD" 2>/dev/null && [ $i -lt 40 ]; do sleep 0.25; i=$((i + 1)); done
    kill -0 "$CTLD" 2>/dev/null && { echo "bench_submit: slurmctld did not stop"; exit 1; }
    sed -i '/^JobSubmitPlugins=/d' "$T/slurm.conf"
    [ "$1" = on ] && echo "JobSubmitPlugins=skeleton" >>"$T/slurm.conf"
    slurmctld -D -f "$T/slurm.conf" >>"$T/log/slurmctld.stdout" 2>&1 &
    CTLD=$!
    PIDS="$PIDS $CTLD"
    wait_for 30 scontrol ping || { echo "bench_submit: slurmctld did not restart"; exit 1; }
    # node bitmaps stay empty until the slurmd register again
    wait_for 60 idle4 || { echo "bench_submit: the slurmd did not register again"; exit 1; }
    if [ "$1" = on ]; then want=skeleton; else want="(null)"; fi
    [ "$(scontrol show config | sed -n 's/^JobSubmitPlugins *= *//p')" = "$want" ] ||
        { echo "bench_submit: JobSubmitPlugins is not $want"; exit 1; }
}

# The machine's load drifts: ROUNDS alternations of with and without the
# plugin; the ratio of the pooled medians, and each round's.
ROUNDS=${BENCH_ROUNDS:-3}
: >"$T/ratios"
r=1
while [ $r -le "$ROUNDS" ]; do
    [ $r -gt 1 ] && restart_ctld on
    run with$r "$T/skel.sh"
    [ $r = 1 ] && run plain "$T/plain.sh"
    restart_ctld off
    run without$r "$T/skel.sh"
    echo "$(pct "$T/with$r.us" 50) $(pct "$T/without$r.us" 50)" | awk '{printf "%.4f\n", $1 / $2}' >>"$T/ratios"
    r=$((r + 1))
done
cat "$T"/with[0-9]*.us >"$T/with.us"
cat "$T"/without[0-9]*.us >"$T/without.us"
grep "job=bskel tasks=3" "$T/log/slurmctld.log" | sed -n 's/.* decision=\([0-9.]*\)ms.*/\1/p' >"$T/decision.ms"
[ "$(wc -l <"$T/decision.ms")" -eq $((N * ROUNDS)) ] || { echo "bench_submit: the plugin did not place every job"; exit 1; }

echo "submission latency of job_submit/skeleton: 3-stage #SKEL pipeline, 4 nodes, held jobs,"
echo "$ROUNDS rounds of $N sbatch with and without the plugin (slurmctld restarted between them)"
printf '%-30s %-12s %s\n' "case" "sbatch p50" "sbatch p99"
for c in "with:#SKEL job, plugin" "plain:plain job, plugin" "without:#SKEL job, no plugin"; do
    k=${c%%:*} label=${c#*:}
    printf '%-30s %-12s %s\n' "$label" "$(pct "$T/$k.us" 50) us" "$(pct "$T/$k.us" 99) us"
done
awk -v a="$(pct "$T/with.us" 50)" -v b="$(pct "$T/without.us" 50)" -v r="$(tr '\n' ' ' <"$T/ratios")" \
    'BEGIN {printf "ratio with/without the plugin (sbatch p50 of all rounds): %.2f (per round: %s)\n", a / b, r}'
d50=$(pct "$T/decision.ms" 50)
echo "decision inside slurmctld (the plugin's log): p50 $d50 ms, p99 $(pct "$T/decision.ms" 99) ms"
# the wall-clock ratio is at the mercy of the machine's load; the part the
# plugin adds is its decision, so this is the ratio it accounts for
awk -v d="$d50" -v b="$(pct "$T/without.us" 50)" \
    'BEGIN {printf "ratio the decision accounts for: 1 + decision / sbatch without the plugin = %.3f\n", 1 + d * 1000 / b}'
