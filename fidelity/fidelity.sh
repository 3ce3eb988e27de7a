#!/bin/sh
# fidelity/fidelity.sh [--quick]: real pipelines on the real Slurm test
# cluster (tests/slurm/cluster.sh: slurmctld with the skeleton plugin, slurmd
# n1-n4 on this machine), measured against skelsched's predictions
# (docs/fidelity.md). Run from the build directory (`make fidelity`; the
# short version, --quick, is part of `make check`).
#
# For each skeleton and placement a batch job is submitted through the
# plugin: without pins (the placement the plugin chose) or with `#SKEL
# --pin` (placements it did not choose, Slurm's default among them); the
# job script starts one fidelity/skelrun per task with
# `srun -w "$SKEL_NODES_T<i>"`, as docs/user.md tells users (at nice -10,
# so that the other load of this shared machine delays its wake-ups less:
# the emulation's time is the wall clock's). The sink's
# timestamps give the throughput over a window after a warm-up; each
# placement runs as REPS independent jobs (each job id seeds its own draws),
# and the row gives their mean with a 95% Student-t confidence interval over
# the jobs. Two modes:
#   model: exponential work and latency, rendezvous, static sharing (the
#          seeds' semantics, which `--sharing static` predicts);
#   real:  fixed work and latency, links buffering 2 items (#SKEL --buffer
#          2), processor sharing; predicted with the new semantics
#          (Sharing=ps, WorkSCV=LinkSCV=0.05, DefaultBuffer=2) and with the
#          old ones beside them.
# Prints one table row per run, then the ranking and gain summaries.
set -u
QUICK=0
[ "${1:-}" = --quick ] && QUICK=1
CLUSTER_NAME=fidelity
. "$(dirname "$0")/../tests/slurm/cluster.sh"
RUNNER=${SKELRUN:-$BUILD/fidelity/skelrun}
[ -x "$RUNNER" ] || skip "no runner ($RUNNER)"
if [ $QUICK = 1 ]; then WARM=20 WINDOW=60 REPS=2; else WARM=50 WINDOW=300 REPS=3; fi
ITEMS=$((WARM + WINDOW + 10))
# the tasks' ports: above the kernel's ephemeral range (32768-60999), apart
# for concurrent runs of the harness (each cluster numbers its jobs from 1)
PORTS=$((61000 + ($$ % 45) * 100))

cluster_setup
cat >"$T/platform.conf" <<'EOF'
LocalLatency=0.0002
DefaultLatency=0.004
NodeName=n1 Speed=1
NodeName=n2 Speed=2
NodeName=n3 Speed=1.5
NodeName=n4 Speed=0.5
Link=n1,n2 Latency=0.002
Link=n3,n4 Latency=0.008
EOF
# what the site tells the plugin: real stages are near-fixed, CPUs are shared
{ echo "Budget=2000"; echo "MaxStates=200000"; echo "MaxTasks=16"; echo "WorkSCV=0.25"
  sed 's/^\(NodeName=.*\)$/\1 CPUs=2/' "$T/platform.conf"; } >"$T/skeleton.conf"
{ echo "Sharing=static"; cat "$T/platform.conf"; } >"$T/old.conf"
# fixed times as Erlang-20 phases (docs/fidelity.md, "Fixed times as phases")
{ echo "Sharing=ps WorkSCV=0.05 LinkSCV=0.05 DefaultBuffer=2"; cat "$T/platform.conf"; } >"$T/new.conf"
cluster_start

cat >"$T/pipe3.skel" <<'EOF'
pipe(3);
  task("read", 40);
  task("work", 25);
  task("write", 50);
EOF
cat >"$T/pipe5.skel" <<'EOF'
pipe(5);
  task("read", 60);
  task("parse", 40);
  task("work", 30);
  task("filter", 50);
  task("write", 80);
EOF
cat >"$T/farm.skel" <<'EOF'
pipe(3);
  task("read", 50);
  farm(2, "work", 20);
  task("write", 60);
EOF

# job SKEL MODE PINS: submit, wait, print "plan measured ci" (PINS "-": none)
job() {
    sk=$1 mode=$2 pins=$3
    if [ "$mode" = model ]; then opts="--work exp --latency exp --sharing static --buffer 0"
    else opts="--work fixed --latency fixed --sharing ps --buffer 2"; fi
    {
        echo "#!/bin/sh"
        echo "#SBATCH -J fid-$sk -t 10"
        sed 's/^/#SKEL /' "$T/$sk.skel"
        [ "$mode" = real ] && echo "#SKEL --buffer 2"
        [ "$pins" != - ] && echo "#SKEL --pin $pins"
        cat <<EOF
port=\$(($PORTS + (SLURM_JOB_ID % 10) * 10))
plan=\$(echo "\$SKEL_PLAN" | tr ' ' ',')
echo "plan=\$plan"
i=0
while [ \$i -lt "\$SKEL_NTASKS" ]; do
    eval node=\\\$SKEL_NODES_T\$i
    srun --overlap -N1 -n1 -w "\$node" nice -n -10 "$RUNNER" --skeleton "$T/$sk.skel" \\
        --platform "$T/platform.conf" --plan "\$plan" --task \$i --port \$port \\
        --job "\$SLURM_JOB_ID" $opts --items $ITEMS --seed \$SLURM_JOB_ID \\
        --out "$T/out/\$SLURM_JOB_ID.ts" &
    i=\$((i + 1))
done
wait
rm -f /dev/shm/skelrun.\$SLURM_JOB_ID.*
EOF
    } >"$T/job.sh"
    id=$(submit "$T/job.sh") || { fail "$sk $mode $pins: sbatch: $(cat "$T/sbatch.err")"; return 1; }
    wait_for 600 done_job "$id" || { fail "$sk $mode: job $id not done"; return 1; }
    [ "$(job_state "$id")" = COMPLETED ] || { fail "$sk $mode: job $id $(job_state "$id")";
                                              cat "$T/out/$id.out"; return 1; }
    plan=$(sed -n 's/^plan=//p' "$T/out/$id.out")
    # throughput over WINDOW items after WARM; the arbiters' race counts
    meas=$(awk -v w=$WARM -v n=$WINDOW 'NR == w + 1 { t0 = $1 } NR == w + n + 1 { t1 = $1 }
        END { if (NR < w + n + 1) print "short"; else printf "%.4f\n", n / (t1 - t0) }' "$T/out/$id.ts")
    races=$(awk '$4 == "races" { r += $5; l += $7 } END { printf "%d %d\n", r, l }' "$T/out/$id.out")
    echo "$plan $meas $races"
}

# predict SKEL PLATFORM PLAN: the job's throughput (items leaving the last task)
predict() {
    last=$(($(grep -c 'task(' "$T/$1.skel") - 1))
    [ "$1" = farm ] && last=3
    x=$("$SKELSCHED" solve "$T/$1.skel" --platform "$2" --place "$3" --max-states 300000 2>/dev/null |
        awk -v a="comp_$last" '$1 == a { print $2; exit }')
    [ -n "$x" ] || x=$("$SKELSCHED" simulate "$T/$1.skel" --platform "$2" --place "$3" \
        --precision 0.005 --no-local --time-limit 60 2>/dev/null |
        awk -v a="comp_$last" '$1 == a { print $2; exit }')
    echo "${x:-nan}"
}

ROWS="$T/rows"
: >"$ROWS"
RACES=0 LATE=0
# row SKEL MODE KIND PINS: REPS jobs of one placement, their mean and 95% CI
row() {
    runs="" plan0=""
    rep=0
    while [ $rep -lt $REPS ]; do
        r=$(job "$1" "$2" "$4") || { fail "$1 $2 $3: $r"; return 0; }
        set -- "$1" "$2" "$3" "$4" $r
        [ "$6" = short ] && { fail "$1 $2 $5: fewer items than the window"; return 0; }
        [ -n "$plan0" ] && [ "$5" != "$plan0" ] && { fail "$1 $2 $3: placed $plan0, then $5"; return 0; }
        plan0=$5 runs="$runs${runs:+,}$6" RACES=$((RACES + $7)) LATE=$((LATE + $8))
        set -- "$1" "$2" "$3" "$4"
        rep=$((rep + 1))
    done
    stat=$(echo "$runs" | awk -F, '{
        for (i = 1; i <= NF; i++) { s += $i; ss += $i * $i }
        m = s / NF; v = NF > 1 ? (ss - NF * m * m) / (NF - 1) : 0
        split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262", tq, " ")
        printf "%.4f %.4f\n", m, (NF > 1 ? tq[NF - 1] * sqrt(v > 0 ? v : 0) / sqrt(NF) : 0) }')
    old=$(predict "$1" "$T/old.conf" "$plan0")
    new=$old
    [ "$2" = real ] && new=$(predict "$1" "$T/new.conf" "$plan0")
    echo "$1 $2 $3 $plan0 $stat $old $new $runs" | tee -a "$ROWS"
    pass "$1 $2 $3 measured ($REPS jobs)"
}

echo "# skeleton mode kind placement measured ci95 predicted_old predicted_new runs"
if [ $QUICK = 1 ]; then
    row farm model plugin -
    row pipe3 real plugin -
else
    for mode in model real; do
        row pipe3 $mode plugin -
        row pipe3 $mode default t0=n1,t1=n2,t2=n3
        row pipe3 $mode forced t0=n2,t1=n2,t2=n3
        row pipe3 $mode forced t0=n3,t1=n2,t2=n1
        row pipe3 $mode forced t0=n4,t1=n1,t2=n2
        row pipe5 $mode plugin -
        row pipe5 $mode default t0=n1,t1=n2,t2=n3,t3=n4,t4=n1
        row pipe5 $mode forced t0=n1,t1=n2,t2=n2,t3=n3,t4=n3
        row pipe5 $mode forced t0=n3,t1=n3,t2=n2,t3=n2,t4=n1
        row farm $mode plugin -
        row farm $mode default t0=n1,t1=n2,t2=n3,t3=n4
        row farm $mode forced t0=n1,t1=n2,t2=n2,t3=n3
        row farm $mode forced t0=n4,t1=n2,t2=n3,t3=n1
    done
fi
echo
echo "# rendezvous races decided by an arbiter: $RACES; partners' messages that came late for one: $LATE"
echo
"$(dirname "$0")/summary.sh" "$ROWS"
[ $FAILS = 0 ]
