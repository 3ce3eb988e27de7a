#!/bin/sh
# Soak test of job_submit/skeleton in a real slurmctld (issue 10), on the
# cluster of tests/slurm/cluster.sh. For SOAK_SECONDS (default 30; `make
# soak` runs 600) SOAK_WORKERS submitters (default 2) send about SOAK_RATE
# jobs a second in all (default 10), cycling through a mix:
#   valid     #SKEL skeletons of several shapes, held (-H): placed, checked
#   run       a valid one that runs: must COMPLETE
#   slurmno   a valid one Slurm refuses after the plugin placed it (-c 64,
#             more CPUs than any node): the plugin's full path, no job record
#   invalid   syntax errors, unknown pins, too many tasks, bad options
#   hostile   5000-character lines, 1000-deep nesting, round-robin periods
#             past any integer, state-space explosions, extreme rates,
#             control bytes, absurd hostlists, garbage through --skeleton
#   plain     no #SKEL, held: untouched
# while skeleton.conf is rewritten every SOAK_RELOAD seconds (default 5):
# two good versions and a broken one in turn, with `scontrol reconfigure`
# every third time. A pinger asks the controller every second (and again
# after 0.5 s when it does not answer: Slurm itself drops a request now and
# then while it reconfigures) and samples its resident memory.
# Then: every sbatch answered; slurmctld answered every ping and is alive;
# every accepted job exists, a placed one on exactly the nodes the plugin
# logged for it, a plain one untouched, a run one COMPLETED; every refused
# one has no record; a final stretch of submissions that leave no job
# record (slurmno, invalid, hostile) must not grow slurmctld's memory
# beyond noise. Prints the figures docs/robustness.md reports: submissions,
# memory before/after, decision time p50/p99 (from the plugin's log lines),
# sbatch round trip p50/p99.
CLUSTER_NAME=skelsoak
# a request no node can satisfy is refused at submission (slurmno below)
CLUSTER_EXTRA_CONF=EnforcePartLimits=ALL
# One malloc arena in slurmctld, so that its resident memory is live memory
# plus one high-water mark: with one arena per RPC thread, each keeps the
# mark of the largest decision it made (a state-space explosion holds
# MaxStates= states for Budget= ms), tens of MiB that come and go with the
# timing of the samples and hide a leak or fake one.
CLUSTER_CTLD_ENV=MALLOC_ARENA_MAX=1
. "$(dirname "$0")/cluster.sh"

SECONDS_=${SOAK_SECONDS:-30}
WORKERS=${SOAK_WORKERS:-2}
RATE=${SOAK_RATE:-10}
RELOAD=${SOAK_RELOAD:-5}
# finished jobs keep their records until the checks at the end
CLUSTER_MIN_JOB_AGE=$((SECONDS_ + 900))

cluster_setup
conf_a() {
    printf 'Budget=200\nMaxStates=200000\nMaxTasks=16\nLocalLatency=0.0001\nDefaultLatency=0.001\n'
    printf 'NodeName=n1 Speed=1\nNodeName=n2 Speed=4\nNodeName=n3 Speed=2\nNodeName=n4 Speed=8\nNodeName=n5 Speed=16\n'
}
conf_b() {
    printf 'Budget=100\nMaxStates=100000\nMaxTasks=16\nLocalLatency=0.0002\nDefaultLatency=0.002\n'
    printf 'NodeName=n[1-2] Speed=3\nNodeName=n3 Speed=1\nNodeName=n4 Speed=2\nNodeName=n5 Speed=16\n'
    printf 'Link=n1,n4 Latency=0.01 Bandwidth=1e6\n'
}
conf_broken() { printf 'Budget=100\nNodeName=n1 Speed=-3\nthis is not a key\n'; }
conf_a >"$T/skeleton.conf"
cluster_start

# ---- the job scripts: $T/jobs/KIND-N.sh, with the sbatch options of each
# variant in $T/jobs/KIND-N.opt ------------------------------------------------
J=$T/jobs
mkdir -p "$J"
variant() {   # variant KIND N OPTIONS: script body on stdin
    k=$1 n=$2; shift 2
    { printf '#!/bin/sh\n'; cat; printf 'true\n'; } >"$J/$k-$n.sh"
    echo "$*" >"$J/$k-$n.opt"
}
variant valid 1 <<'EOF'
#SKEL pipe(3);
#SKEL   task("read", 4.0); task("work", 1.0); task("write", 2.0);
EOF
variant valid 2 <<'EOF'
#SKEL pipe(3); task("read", 8.0); farm(2, "work", 1.0); task("write", 8.0);
EOF
variant valid 3 <<'EOF'
#SKEL deal(3, "w", 2.0);
EOF
variant valid 4 <<'EOF'
#SKEL pipe(4); task("a", 3); task("b", 1); task("c", 2); task("d", 5);
#SKEL --pin t0=n1
#SKEL --style stream
EOF
variant valid 5 <<'EOF'
#SKEL xdeal(2);
#SKEL   pipe(2); task("a", 2); task("b", 1);
#SKEL   pipe(2); task("a", 2); task("b", 1);
EOF
variant valid 6 <<'EOF'
#SKEL pipe(2); task("a", 1, data=1e6); task("b", 2);
#SKEL --items 1000
EOF
variant valid 7 '-w n1,n2,n3' <<'EOF'
#SKEL pipe(3); task("x", 1); task("y", 1); task("z", 1);
EOF
variant run 1 '-t 1' <<'EOF'
#SKEL pipe(3); task("read", 4.0); task("work", 1.0); task("write", 2.0);
EOF
variant slurmno 1 '--cpus-per-task=64' <<'EOF'
#SKEL pipe(3); task("read", 4.0); task("work", 1.0); task("write", 2.0);
EOF
variant invalid 1 <<'EOF'
#SKEL pipe(2); task("a" 1.0); task("b", 1.0);
EOF
variant invalid 2 <<'EOF'
#SKEL pipe(2); task("a", 1.0);
EOF
variant invalid 3 <<'EOF'
#SKEL task("a", 1.0);
#SKEL --pin t0=nosuch
EOF
variant invalid 4 <<EOF
#SKEL pipe(20); $(i=0; while [ $i -lt 20 ]; do printf 'task("t", 1); '; i=$((i + 1)); done)
EOF
variant invalid 5 <<'EOF'
#SKEL --items 10
EOF
variant invalid 6 <<'EOF'
#SKEL task("a", 1.0);
#SKEL --items 1e99
EOF
variant invalid 7 <<'EOF'
#SKEL task("a", 1.0);
#SKEL --style sideways
EOF
variant hostile 1 <<EOF
#SKEL pipe(1); task("$(i=0; while [ $i -lt 500 ]; do printf 'xxxxxxxxxx'; i=$((i + 1)); done)", 1);
EOF
variant hostile 2 <<EOF
$(i=0; while [ $i -lt 1000 ]; do echo '#SKEL pipe(1);'; i=$((i + 1)); done)
#SKEL task("t", 1);
EOF
variant hostile 3 <<'EOF'
#SKEL xdeal(2);
#SKEL  pipe(2); deal(97, "a", 1); deal(89, "b", 1);
#SKEL  pipe(2); deal(83, "a", 1); deal(79, "b", 1);
EOF
variant hostile 4 <<'EOF'
#SKEL pipe(3); farm(6, "a", 1); farm(6, "b", 1); farm(4, "c", 1);
EOF
variant hostile 5 <<'EOF'
#SKEL pipe(2); task("a", 1e308*10); task("b", 1);
EOF
variant hostile 6 <<'EOF'
#SKEL pipe(2); task("a", 1e-300); task("b", 1e300);
EOF
printf '#!/bin/sh\n#SKEL pipe(2); task("\001\002\033[31m", 1); task("b", \177);\ntrue\n' >"$J/hostile-7.sh"
: >"$J/hostile-7.opt"
variant hostile 8 <<'EOF'
#SKEL deal(1000000000, "w", 1);
EOF
variant hostile 9 '-w n[1-999999999]' <<'EOF'
#SKEL pipe(2); task("a", 1); task("b", 1);
EOF
variant hostile 10 <<'EOF'
#SKEL pipe(2); task("a", 1); task("b", 1);
#SKEL --pin t0=n1,t0=n2,t1=n5
EOF
if [ -f "$T/plugins/spank_skeleton.so" ]; then
    head -c 3000 /dev/urandom | tr -d '\000' >"$J/garbage.skel"
    variant hostile 11 "--skeleton=$J/garbage.skel" </dev/null
fi
variant plain 1 <<'EOF'
#SBATCH --comment="#SKEL only in a comment"
EOF
# hostile 6 may be placed or refused; every other hostile one is refused
expect() {    # expect KIND N: accept, refuse or any
    case $1-$2 in
    valid-*|run-*|plain-*) echo accept ;;
    hostile-6) echo any ;;
    *) echo refuse ;;
    esac
}
nvar() { ls "$J" | grep -c "^$1-[0-9]*\.sh$"; }

# ---- the pinger: the controller must answer every second; its RSS -------------
rss() { ps -o rss= -p "$CTLD" 2>/dev/null | tr -d ' '; }
pinger() {
    while [ ! -f "$T/stop" ]; do
        s0=$(date +%s%N)
        if timeout 10 "$SCONTROL" ping >/dev/null 2>&1; then
            r=ok
        else
            sleep 0.5
            if timeout 10 "$SCONTROL" ping >/dev/null 2>&1; then r=retried; else r=down; fi
        fi
        echo "$(date +%s) $r $((($(date +%s%N) - s0) / 1000000)) $(rss)" >>"$T/ping.log"
        sleep 1
    done
}

# ---- the reloader: skeleton.conf rewritten, one version in three broken -------------
reloader() {
    k=0
    while [ ! -f "$T/stop" ]; do
        sleep "$RELOAD"
        [ -f "$T/stop" ] && break
        k=$((k + 1))
        case $((k % 3)) in
        1) conf_b ;; 2) conf_broken ;; 0) conf_a ;;
        esac >"$T/skeleton.conf.new"
        mv "$T/skeleton.conf.new" "$T/skeleton.conf"
        echo "$(date +%s) $((k % 3))" >>"$T/reloads.log"
        [ $((k % 3)) = 0 ] && timeout 20 "$SCONTROL" reconfigure >/dev/null 2>&1
    done
}

# ---- the submitters -----------------------------------------------------------------
PATTERN="valid valid invalid hostile valid slurmno plain valid invalid hostile valid run valid invalid hostile valid slurmno invalid hostile valid"
# worker W END PERIOD_MS [KINDS]: submit until END (epoch s), one every
# PERIOD_MS; one line per submission in $T/sub-W.tsv:
#   kind variant name exit jobid milliseconds
worker() {
    w=$1 end=$2 period=$3 kinds=${4:-$PATTERN}
    i=0
    set -- $kinds
    np=$#
    while [ "$(date +%s)" -lt "$end" ]; do
        i=$((i + 1))
        eval "kind=\${$(( (i - 1) % np + 1 ))}"
        nv=$(nvar "$kind")
        v=$(( (i / np) % nv + 1 ))
        name="sk-$kind-$w-$i"
        opts=$(cat "$J/$kind-$v.opt")
        # held, so that the queue only grows; not run (it runs) nor slurmno
        # (Slurm checks a held job's request only when it is released)
        hold=-H
        case $kind in run|slurmno) hold= ;; esac
        s0=$(date +%s%N)
        # shellcheck disable=SC2086
        id=$(timeout 30 "$SBATCH" --parsable -J "$name" $hold -D "$T/out" -o "$T/out/%j.out" $opts \
            "$J/$kind-$v.sh" 2>>"$T/sbatch-$w.err")
        rc=$?
        ms=$((($(date +%s%N) - s0) / 1000000))
        echo "$kind $v $name $rc ${id:--} $ms" >>"$T/sub-$w.tsv"
        [ "$ms" -lt "$period" ] && sleep "$(awk "BEGIN {print ($period - $ms) / 1000}")"
    done
}
run_workers() {    # run_workers SECONDS PREFIX [KINDS [WORKERS]]
    end=$(($(date +%s) + $1))
    nw=${4:-$WORKERS}
    period=$((1000 * nw / RATE))
    WPIDS=""
    w=0
    while [ $w -lt "$nw" ]; do
        w=$((w + 1))
        worker "$2$w" "$end" "$period" "$3" &
        WPIDS="$WPIDS $!"
    done
    # bounded: the workers stop at END; an sbatch is capped at 30 s
    for p in $WPIDS; do wait "$p"; done
}

pinger &
PIDS="$PIDS $!"
R0=$(rss)
T0=$(date +%s)
reloader &
RELOADER=$!
PIDS="$PIDS $RELOADER"
echo "# soak: $SECONDS_ s, $WORKERS workers, about $RATE submissions/s, skeleton.conf rewritten every $RELOAD s"
run_workers "$SECONDS_" main
# the reloader ends with the main phase: the last good conf back for the checks
kill "$RELOADER" 2>/dev/null
wait "$RELOADER" 2>/dev/null
conf_a >"$T/skeleton.conf"
R1=$(rss)
T1=$(date +%s)

# ---- every submission answered, the controller up throughout ---------------------------
cat "$T"/sub-main*.tsv >"$T/main.tsv"
N=$(wc -l <"$T/main.tsv")
TIMEOUTS=$(awk '$4 == 124' "$T/main.tsv" | wc -l)
[ "$N" -gt 0 ] && [ "$TIMEOUTS" = 0 ] && pass "$N submissions, every sbatch answered" ||
    fail "$N submissions, $TIMEOUTS sbatch timed out"
DOWN=$(grep -c ' down ' "$T/ping.log")
RETRIED=$(grep -c ' retried ' "$T/ping.log")
PINGS=$(wc -l <"$T/ping.log")
[ "$DOWN" = 0 ] && pass "the controller answered all $PINGS pings ($RETRIED at the second try)" ||
    fail "$DOWN of $PINGS pings unanswered twice"
kill -0 "$CTLD" 2>/dev/null && pass "slurmctld alive" || fail "slurmctld died"

# ---- accepted and refused as expected; every accepted job consistent --------------------
scontrol show job -o >"$T/jobs.txt" 2>/dev/null
# expand a Slurm hostlist (n[1-3,5],n7) into sorted names, one line
expand() {
    echo "$1" | awk '{
        s = $0; out = ""
        while (length(s) > 0) {
            if (match(s, /^[^,\[]+\[[^]]*\]/)) { tok = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1) }
            else if (match(s, /^[^,]+/)) { tok = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1) }
            sub(/^,/, "", s)
            if (tok ~ /\[/) {
                pre = tok; sub(/\[.*/, "", pre); r = tok; sub(/^[^\[]*\[/, "", r); sub(/\]$/, "", r)
                n = split(r, parts, ",")
                for (k = 1; k <= n; k++) {
                    if (split(parts[k], ab, "-") == 2) for (x = ab[1] + 0; x <= ab[2] + 0; x++) out = out " " pre x
                    else out = out " " pre parts[k]
                }
            } else if (tok != "") out = out " " tok
        }
        n = split(out, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        r = ""; for (i = 1; i <= n; i++) r = r (i > 1 ? "," : "") a[i]; print r }'
}
LOG=$T/log/slurmctld.log
bad_expect=0 lost=0 ghost=0 wrong=0 placed=0 runs=0
while read -r kind v name rc id ms; do
    want=$(expect "$kind" "$v")
    rec=$(grep "JobName=$name " "$T/jobs.txt")
    if [ "$rc" = 0 ]; then
        [ "$want" = refuse ] && { bad_expect=$((bad_expect + 1)); echo "# accepted, expected refused: $name"; }
        [ -n "$rec" ] || { lost=$((lost + 1)); echo "# lost: $name (job $id)"; continue; }
        req=$(echo "$rec" | tr ' ' '\n' | sed -n 's/^ReqNodeList=//p')
        case $kind in
        plain)
            [ "$req" = "(null)" ] || { wrong=$((wrong + 1)); echo "# plain job $name changed: ReqNodeList=$req"; } ;;
        *)
            line=$(grep "job_submit/skeleton: uid=0 job=$name tasks=" "$LOG" | tail -n 1)
            planned=$(echo "$line" | sed -n 's/.* nodes=\([^ ]*\) .*/\1/p')
            nn=$(echo "$rec" | tr ' ' '\n' | sed -n 's/^NumNodes=\([0-9]*\).*/\1/p')
            if [ -z "$planned" ] || [ "$(expand "$req")" != "$(expand "$planned")" ] ||
                [ "$nn" != "$(expand "$planned" | tr ',' '\n' | wc -l)" ]; then
                wrong=$((wrong + 1)); echo "# $name: ReqNodeList=$req NumNodes=$nn, plugin planned '$planned'"
            fi
            placed=$((placed + 1)) ;;
        esac
        [ "$kind" = run ] && runs=$((runs + 1))
    else
        [ "$want" = accept ] && { bad_expect=$((bad_expect + 1)); echo "# refused, expected accepted: $name (exit $rc)"; }
        [ -z "$rec" ] || { ghost=$((ghost + 1)); echo "# refused but recorded: $name"; }
    fi
done <"$T/main.tsv"
[ "$bad_expect" = 0 ] && pass "every submission accepted or refused as expected" ||
    fail "$bad_expect submissions accepted or refused against expectation"
[ "$lost" = 0 ] && [ "$ghost" = 0 ] && pass "no job lost, no refused job recorded" ||
    fail "$lost accepted jobs lost, $ghost refused jobs recorded"
[ "$wrong" = 0 ] && pass "$placed placed jobs on exactly their planned nodes, plain jobs untouched" ||
    fail "$wrong jobs inconsistent with the plugin's plan"
# the run jobs finish
finished() {
    for id in $(awk '$1 == "run" && $4 == 0 {print $5}' "$T/main.tsv"); do done_job "$id" || return 1; done
}
wait_for 120 finished || fail "run jobs not finished in 120 s"
notdone=0
for id in $(awk '$1 == "run" && $4 == 0 {print $5}' "$T/main.tsv"); do
    [ "$(job_state "$id")" = COMPLETED ] || { notdone=$((notdone + 1)); echo "# run job $id: $(job_state "$id")"; }
done
[ "$notdone" = 0 ] && pass "all $runs run jobs COMPLETED" || fail "$notdone of $runs run jobs did not complete"

# ---- reloads: the broken conf kept the last good one; good ones loaded -------------------
NRELOAD=$(wc -l <"$T/reloads.log" 2>/dev/null || echo 0)
NLOADED=$(grep -c "job_submit/skeleton: loaded" "$LOG")
NKEPT=$(grep -c "keeping the last good configuration" "$LOG")
if [ "$NRELOAD" -ge 2 ]; then
    [ "$NKEPT" -ge 1 ] && [ "$NLOADED" -ge 2 ] &&
        pass "$NRELOAD rewrites of skeleton.conf: $NLOADED loads, broken one kept the last good $NKEPT times" ||
        fail "$NRELOAD rewrites: $NLOADED loads, $NKEPT 'keeping the last good'"
fi

# ---- memory: submissions that leave no job record must not grow slurmctld ----------------
# One submitter (see CLUSTER_CTLD_ENV above). Measured one kind at a time,
# each kind's growth over 600 refused submissions was 0 (docs/robustness.md).
# MaxStates= rather than Budget= ends the explosion, so that its memory is
# the same every time and the warm-up reaches the high-water mark.
sleep 1
conf_a | sed 's/^MaxStates=.*/MaxStates=20000/' >"$T/skeleton.conf"
scancel -u root >/dev/null 2>&1
LEAKKINDS="slurmno invalid hostile slurmno hostile invalid"
LEAKSECS=$((SECONDS_ / 3 < 10 ? 10 : SECONDS_ / 3))
run_workers "$LEAKSECS" warm "$LEAKKINDS" 1
RW=$(rss)
run_workers "$LEAKSECS" leak "$LEAKKINDS" 1
RL=$(rss)
NL=$(cat "$T"/sub-leak*.tsv | wc -l)
NW=$(cat "$T"/sub-warm*.tsv | wc -l)
slurmno_logged=$(grep -c "job=sk-slurmno-leak.* tasks=" "$LOG")
echo "# record-free stretch: $NW submissions to warm up, then $NL more: slurmctld RSS ${RW} kB -> ${RL} kB ($slurmno_logged placed by the plugin, then refused by Slurm)"
# noise: 4 MiB (page granularity and malloc arenas), i.e. a leak of more
# than 4 MiB / NL per submission fails
if [ -n "$RW" ] && [ -n "$RL" ] && [ $((RL - RW)) -gt 4096 ]; then
    fail "slurmctld grew by $((RL - RW)) kB over $NL submissions that leave no record"
else
    pass "slurmctld memory flat over $NL record-free submissions ($((RL - RW)) kB)"
fi
touch "$T/stop"
scontrol ping >/dev/null 2>&1 && pass "controller up at the end" || fail "controller down at the end"

# ---- the figures ------------------------------------------------------------------------------
pct() {    # pct P FILE: the P-th percentile of a column of numbers
    sort -n "$2" | awk -v p="$1" '{a[NR] = $1} END {if (NR == 0) {print "-"; exit} k = int(p * NR / 100 + 0.999999); if (k < 1) k = 1; if (k > NR) k = NR; print a[k]}'
}
sed -n 's/.*job_submit\/skeleton: uid=[0-9]* job=sk-.* decision=\([0-9.]*\)ms.*/\1/p' "$LOG" >"$T/decisions.txt"
cat "$T"/sub-*.tsv | awk '{print $6}' >"$T/roundtrip.txt"
ALL=$(cat "$T"/sub-*.tsv | wc -l)
RMAX=$(awk '{print $4}' "$T/ping.log" | sort -n | tail -n 1)
echo "# soak: $((T1 - T0)) s main phase, $N submissions ($ALL with the memory stretch), $placed placed, $runs ran"
echo "# slurmctld RSS: ${R0} kB at start, ${R1} kB after the main phase (with its job records), peak ${RMAX} kB"
echo "# plugin decision time (ms, $(wc -l <"$T/decisions.txt") decisions): p50 $(pct 50 "$T/decisions.txt"), p99 $(pct 99 "$T/decisions.txt"), max $(pct 100 "$T/decisions.txt")"
echo "# sbatch round trip (ms): p50 $(pct 50 "$T/roundtrip.txt"), p99 $(pct 99 "$T/roundtrip.txt"), max $(pct 100 "$T/roundtrip.txt")"
echo "$PASSES passed, $FAILS failed"
[ "$FAILS" = 0 ]
