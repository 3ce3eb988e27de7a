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
# timestamps give the throughput over a window after a warm-up, with a 95%
# confidence interval from batch means. Two modes:
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
if [ $QUICK = 1 ]; then WARM=20 WINDOW=100 BATCHES=4; else WARM=50 WINDOW=500 BATCHES=5; fi
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
    # throughput over WINDOW items after WARM, CI from BATCHES batch means
    stat=$(awk -v w=$WARM -v n=$WINDOW -v b=$BATCHES '
        NR > w && NR <= w + n + 1 { t[NR - w - 1] = $1 }
        END {
            if (length(t) < n + 1) { print "short"; exit }
            x = n / (t[n] - t[0]); k = n / b; s = 0; ss = 0
            for (i = 0; i < b; i++) { y = k / (t[(i + 1) * k] - t[i * k]); s += y; ss += y * y }
            m = s / b; sd = sqrt((ss - b * m * m) / (b - 1))
            split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262", tq, " ")
            printf "%.4f %.4f\n", x, tq[b - 1] * sd / sqrt(b)
        }' "$T/out/$id.ts")
    echo "$plan $stat"
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
# row SKEL MODE KIND PINS
row() {
    r=$(job "$1" "$2" "$4") || return 0
    set -- "$1" "$2" "$3" $r
    plan=$4 meas=$5 ci=${6:-nan}
    [ "$meas" = short ] && { fail "$1 $2 $plan: fewer items than the window"; return 0; }
    old=$(predict "$1" "$T/old.conf" "$plan")
    new=$old
    [ "$2" = real ] && new=$(predict "$1" "$T/new.conf" "$plan")
    echo "$1 $2 $3 $plan $meas $ci $old $new" | tee -a "$ROWS"
    pass "$1 $2 $3 measured"
}

echo "# skeleton mode kind placement measured ci95 predicted_old predicted_new"
if [ $QUICK = 1 ]; then
    row pipe3 model plugin -
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
    done
    row farm real plugin -
    row farm real default t0=n1,t1=n2,t2=n3,t3=n4
    row farm real forced t0=n1,t1=n2,t2=n2,t3=n3
    row farm real forced t0=n4,t1=n2,t2=n3,t3=n1
fi
echo
"$(dirname "$0")/summary.sh" "$ROWS"
[ $FAILS = 0 ]
