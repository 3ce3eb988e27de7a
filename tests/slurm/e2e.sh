#!/bin/sh
# End to end with a real Slurm: slurmctld and four `slurmd -N nX` on
# 127.0.0.1 with JobSubmitPlugins=skeleton, in a temporary directory.
# Checks (issue 8): a 3-stage pipeline is placed where `skelsched map`
# places it (n5, described but without a slurmd, is never a candidate),
# COMPLETES, and its stages ran on the planned nodes; a farm; a
# -w list; a job without #SKEL untouched; malformed #SKEL lines give sbatch
# a message naming the line; a corrupt skeleton.conf keeps the last good
# one; a burst of mixed submissions; the controller stays up throughout.
# Skips (77) unless root with slurmctld, slurmd and sbatch installed.
# The cluster and the helpers are tests/slurm/cluster.sh.

CLUSTER_NAME=skele2e
. "$(dirname "$0")/cluster.sh"
cluster_setup
# the platform, for skelsched map; skeleton.conf = the platform + plugin keys
cat >"$T/platform.conf" <<'EOF'
LocalLatency=0.0001
DefaultLatency=0.001
NodeName=n1 Speed=1
NodeName=n2 Speed=4
NodeName=n3 Speed=2
NodeName=n4 Speed=8
EOF
# n5 is the fastest node but no slurmd runs for it: it is never available,
# so a plan that used it would show the plugin ignoring slurmctld's bitmaps.
{ echo "Budget=2000"; echo "MaxStates=200000"; echo "MaxTasks=16"
  sed 's/^\(NodeName=.*\)$/\1 CPUs=2/' "$T/platform.conf"
  echo "NodeName=n5 Speed=16 CPUs=2"; } >"$T/skeleton.conf"
cp "$T/skeleton.conf" "$T/skeleton.conf.good"
# a second partition holding a subset of the nodes (-p slow checks below)
echo "PartitionName=slow Nodes=n[1-3] MaxTime=INFINITE State=UP" >>"$T/slurm.conf"

cluster_start

# ---- a 3-stage pipeline, placed as skelsched map places it ---------------
cat >"$T/pipe.skel" <<'EOF'
pipe(3);
  task("read", 4.0);
  task("work", 1.0);
  task("write", 2.0);
EOF
cat >"$T/pipe.sh" <<'EOF'
#!/bin/sh
#SBATCH -J skelpipe
#SBATCH -t 5
#SKEL pipe(3);
#SKEL   task("read", 4.0);
#SKEL   task("work", 1.0);
#SKEL   task("write", 2.0);
#SKEL --items 100
echo "plan=$SKEL_PLAN"
echo "nodes=$SKEL_NODES"
echo "throughput=$SKEL_THROUGHPUT"
i=0
while [ $i -lt "$SKEL_NTASKS" ]; do
    eval node=\$SKEL_NODES_T$i
    ran=$(srun --overlap -N1 -n1 -w "$node" sh -c 'echo $SLURMD_NODENAME')
    echo "t$i planned=$node ran=$ran"
    i=$((i + 1))
done
EOF
"$SKELSCHED" map "$T/pipe.skel" --platform "$T/platform.conf" --json >"$T/map.json" 2>"$T/map.err" ||
    fail "skelsched map: $(cat "$T/map.err")"
EXPECT=$(sed -n 's/^{"best": {"placement": \[\([^]]*\)\].*/\1/p' "$T/map.json" | tr -d '" ' |
    awk -F, '{for (i = 1; i <= NF; i++) printf "%st%d=%s", (i > 1 ? " " : ""), i - 1, $i}')
[ -n "$EXPECT" ] || fail "no placement in skelsched map's output"

# check_pipeline JOBID EXPECTED_PLAN: completed, plan as expected, stages ran where planned
check_run() {
    id=$1 what=$2
    wait_for 90 done_job "$id" || { fail "$what: job $id not finished in 90 s ($(job_state "$id"))"; return 1; }
    st=$(job_state "$id")
    [ "$st" = COMPLETED ] && pass "$what: job $id COMPLETED" || { fail "$what: job $id $st"; cat "$T/out/$id.out"; return 1; }
    out="$T/out/$id.out"
    if grep -q '^t[0-9]* planned=' "$out" && ! grep '^t[0-9]* planned=' "$out" |
        awk '{split($2, a, "="); split($3, b, "="); if (a[2] != b[2]) bad = 1} END {exit bad}'; then
        fail "$what: a stage ran elsewhere than planned"; cat "$out"; return 1
    fi
    grep -q '^t0 planned=' "$out" && pass "$what: every stage ran on its planned node" ||
        { fail "$what: no stage output"; cat "$out"; return 1; }
    # the job's allocation is exactly the planned nodes
    want=$(sed -n 's/^nodes=//p' "$out" | tr ',' '\n' | sort | tr '\n' ' ')
    got=$(scontrol show hostnames "$(job_field "$id" NodeList)" | sort | tr '\n' ' ')
    [ "$want" = "$got" ] && pass "$what: allocation = planned nodes ($got)" ||
        fail "$what: allocated '$got', planned '$want'"
}

ID=$(submit "$T/pipe.sh")
if [ -n "$ID" ]; then
    check_run "$ID" "pipeline"
    PLAN=$(sed -n 's/^plan=//p' "$T/out/$ID.out")
    [ "$PLAN" = "$EXPECT" ] && pass "pipeline placed as skelsched map places it ($PLAN)" ||
        fail "pipeline plan '$PLAN', skelsched map '$EXPECT'"
    grep -q "job_submit/skeleton: uid=0 job=skelpipe tasks=3" "$T/log/slurmctld.log" &&
        pass "one log line for the placed job" || fail "no log line for the placed job"
else
    fail "pipeline: sbatch failed: $(cat "$T/sbatch.err")"
fi

# ---- a farm --------------------------------------------------------------
cat >"$T/farm.sh" <<'EOF'
#!/bin/sh
#SBATCH -J skelfarm
#SKEL pipe(3);
#SKEL   task("read", 8.0);
#SKEL   farm(2, "work", 1.0);
#SKEL   task("write", 8.0);
EOF
sed -n '/^echo "plan/,$p' "$T/pipe.sh" >>"$T/farm.sh"
ID=$(submit "$T/farm.sh")
if [ -n "$ID" ]; then
    check_run "$ID" "farm"
    grep -q '^t3 planned=' "$T/out/$ID.out" && pass "farm: 4 tasks planned" || fail "farm: not 4 tasks"
else
    fail "farm: sbatch failed: $(cat "$T/sbatch.err")"
fi

# ---- within a -w list ------------------------------------------------------
ID=$(submit "$T/pipe.sh" -w n1,n3)
if [ -n "$ID" ]; then
    check_run "$ID" "-w n1,n3"
    if sed -n 's/^plan=//p' "$T/out/$ID.out" | grep -Eq '=n[24]( |$)'; then
        fail "-w n1,n3: placed outside the list: $(sed -n 's/^plan=//p' "$T/out/$ID.out")"
    else
        pass "-w n1,n3: placed inside the list ($(sed -n 's/^plan=//p' "$T/out/$ID.out"))"
    fi
else
    fail "-w: sbatch failed: $(cat "$T/sbatch.err")"
fi

# ---- sbatch --skeleton=FILE (SPANK): the same placement, file read by sbatch -----
if [ -f "$SPANKSO" ]; then
    grep -v '^#SKEL' "$T/pipe.sh" >"$T/spank.sh"
    ID=$(submit "$T/spank.sh" --skeleton="$T/pipe.skel")
    if [ -n "$ID" ]; then
        check_run "$ID" "--skeleton"
        P=$(sed -n 's/^plan=//p' "$T/out/$ID.out")
        [ "$P" = "$EXPECT" ] && pass "--skeleton: placed as skelsched map places it" ||
            fail "--skeleton: plan '$P', expected '$EXPECT'"
    else
        fail "--skeleton: sbatch failed: $(cat "$T/sbatch.err")"
    fi
    # skeleton_refused FILE WANT: sbatch --skeleton=FILE fails with WANT
    skeleton_refused() {
        if ID=$(submit "$T/spank.sh" --skeleton="$1"); then
            fail "--skeleton $(basename "$1"): accepted (job $ID)"
        elif grep -q -- "$2" "$T/sbatch.err"; then
            pass "--skeleton $(basename "$1"): $(tr '\n' ' ' <"$T/sbatch.err")"
        else
            fail "--skeleton $(basename "$1"): sbatch said '$(cat "$T/sbatch.err")', expected '$2'"
        fi
    }
    printf 'pipe(2);\ntask("a", 1.0);\n' >"$T/bad.skel"
    skeleton_refused "$T/bad.skel" "--skeleton:1:"
fi

# ---- a user's -N1 does not conflict with a 3-node plan ------------------------
ID=$(submit "$T/pipe.sh" -N1)
if [ -n "$ID" ]; then check_run "$ID" "-N1"; else fail "-N1: sbatch failed: $(cat "$T/sbatch.err")"; fi
ID=$(submit "$T/pipe.sh" -n1)
if [ -n "$ID" ]; then check_run "$ID" "-n1"; else fail "-n1: sbatch failed: $(cat "$T/sbatch.err")"; fi

# ---- the time-limit warning: accepted, with a message ----------------------------
sed 's/^#SKEL --items 100$/#SKEL --items 100000000/; s/^#SBATCH -t 5$/#SBATCH -t 1/' "$T/pipe.sh" >"$T/long.sh"
ID=$(submit "$T/long.sh")
if [ -n "$ID" ] && grep -q "beyond the job's time limit of 1 min" "$T/sbatch.err"; then
    pass "time-limit warning: $(tr '\n' ' ' <"$T/sbatch.err")"
    wait_for 60 done_job "$ID"
else
    fail "time-limit warning: job '$ID', sbatch said '$(cat "$T/sbatch.err")'"
fi

# ---- the documented example ---------------------------------------------------------
EX="${SRCDIR:-$(dirname "$0")/../..}/examples/jobs/pipeline.sh"
if [ -f "$EX" ]; then
    ID=$(submit "$EX")
    if [ -n "$ID" ] && wait_for 90 done_job "$ID" && [ "$(job_state "$ID")" = COMPLETED ] &&
        grep -q "^read  on n1" "$T/out/$ID.out"; then
        pass "examples/jobs/pipeline.sh: COMPLETED, reader pinned on n1"
    else
        fail "examples/jobs/pipeline.sh: job '$ID' $(job_state "$ID"): $(cat "$T/sbatch.err" "$T/out/$ID.out" 2>/dev/null)"
    fi
fi

# ---- a job without #SKEL is untouched ----------------------------------------
printf '#!/bin/sh\n#SBATCH -J plain\nenv | grep "^SKEL_" || echo "no SKEL variables"\n' >"$T/plain.sh"
ID=$(submit "$T/plain.sh" -w n2)
if [ -n "$ID" ] && wait_for 60 done_job "$ID" && [ "$(job_state "$ID")" = COMPLETED ]; then
    [ "$(job_field "$ID" NodeList)" = n2 ] && grep -q "^no SKEL variables" "$T/out/$ID.out" &&
        pass "job without #SKEL unchanged" || fail "job without #SKEL changed: $(cat "$T/out/$ID.out")"
else
    fail "plain job did not complete"
fi

# ---- malformed #SKEL: sbatch fails with the line ------------------------------
bad() {
    what=$1 want=$2
    if ID=$(submit "$T/bad.sh"); then
        fail "$what: accepted (job $ID)"
    elif grep -q -- "$want" "$T/sbatch.err"; then
        pass "$what: sbatch says $(tr '\n' ' ' <"$T/sbatch.err")"
    else
        fail "$what: sbatch said '$(cat "$T/sbatch.err")', expected '$want'"
    fi
}
printf '#!/bin/sh\n#SKEL pipe(2);\n#SKEL task("a", 1.0);\n#SKEL task("b" 1.0);\nhostname\n' >"$T/bad.sh"
bad "syntax error" "batch script:4:"
printf '#!/bin/sh\n#SKEL task("a", 1.0);\n#SKEL --pin t0=nosuch\nhostname\n' >"$T/bad.sh"
bad "unknown node in a pin" "batch script:3:.*nosuch"
printf '#!/bin/sh\n#SKEL deal(1000000, "w", 1.0);\nhostname\n' >"$T/bad.sh"
bad "absurd size" "batch script:2:"
printf '#!/bin/sh\n#SKEL task("a", 1.0);\n#SKEL --items 1e99\nhostname\n' >"$T/bad.sh"
bad "absurd items" "batch script:3:"
scontrol ping >/dev/null 2>&1 && pass "controller up after malformed jobs" || fail "controller down"

# ---- a corrupt skeleton.conf keeps the last good one ---------------------------
sleep 1     # a new mtime for sure
printf 'NodeName=n1 Speed=-3\nthis is not a key\n' >"$T/skeleton.conf"
scontrol reconfigure >/dev/null 2>&1
wait_for 20 scontrol ping || fail "controller down after reconfigure with a corrupt skeleton.conf"
# since 23.11 reconfigure re-executes slurmctld and the slurmd: the nodes
# are available again once they registered (the plan depends on them)
# ("idle*" while a node does not respond)
idle4_responding() { [ "$(sinfo -h -N -o %t | grep -c '^idle$')" -ge 4 ]; }
sleep 1
wait_for 60 idle4_responding || fail "the four slurmd not idle again within 60 s of the reconfigure"
ID=$(submit "$T/pipe.sh")
if [ -n "$ID" ]; then
    check_run "$ID" "after corrupt skeleton.conf"
    [ "$(sed -n 's/^plan=//p' "$T/out/$ID.out")" = "$EXPECT" ] &&
        pass "corrupt skeleton.conf: the last good one is used" || fail "corrupt conf: plan changed"
else
    fail "after corrupt skeleton.conf: sbatch failed: $(cat "$T/sbatch.err")"
fi
grep -q "keeping the last good configuration" "$T/log/slurmctld.log" &&
    pass "corrupt skeleton.conf logged" || fail "corrupt skeleton.conf not logged"
# ---- BadInput=accept: a bad job is queued unchanged, with the message ---------------
sleep 1
{ echo "BadInput=accept"; cat "$T/skeleton.conf.good"; } >"$T/skeleton.conf"
printf '#!/bin/sh\n#SBATCH -J acceptbad\n#SKEL pipe(2);\n#SKEL task("a", 1.0);\nenv | grep "^SKEL_" || echo "no SKEL variables"\n' >"$T/acc.sh"
ID=$(submit "$T/acc.sh")
if [ -n "$ID" ] && grep -q "accepted without a placement" "$T/sbatch.err"; then
    if wait_for 60 done_job "$ID" && [ "$(job_state "$ID")" = COMPLETED ] && grep -q "^no SKEL variables" "$T/out/$ID.out"; then
        pass "BadInput=accept: queued unchanged with a warning"
    else
        fail "BadInput=accept: job $ID $(job_state "$ID")"
    fi
else
    fail "BadInput=accept: job '$ID', sbatch said '$(cat "$T/sbatch.err")'"
fi
sleep 1
cp "$T/skeleton.conf.good" "$T/skeleton.conf"
touch "$T/skeleton.conf"

# ---- a burst of submissions, good and bad mixed ---------------------------------
BURST=${BURST:-200}
rss() { ps -o rss= -p "$CTLD" 2>/dev/null | tr -d ' '; }
printf '#!/bin/sh\n#SBATCH -J burst\n#SKEL pipe(3);\n#SKEL task("a", 4.0);\n#SKEL task("b", 1.0);\n#SKEL task("c", 2.0);\ntrue\n' >"$T/good.sh"
printf '#!/bin/sh\n#SBATCH -J burstbad\n#SKEL pipe(3);\n#SKEL task("a", 4.0);\ntrue\n' >"$T/bad.sh"
before_log=$(grep -c "job=burst tasks=3" "$T/log/slurmctld.log")
R0=$(rss)
good=0 bad_ok=0 i=0 t0=$(date +%s)
while [ $i -lt "$BURST" ]; do
    # bounded: give up after 300 s in all
    [ $(($(date +%s) - t0)) -gt 300 ] && { fail "burst: took longer than 300 s"; break; }
    if [ $((i % 4)) = 3 ]; then
        submit "$T/bad.sh" >/dev/null && : || bad_ok=$((bad_ok + 1))
    else
        submit "$T/good.sh" >/dev/null && good=$((good + 1))
    fi
    i=$((i + 1))
done
R1=$(rss)
placed=$(($(grep -c "job=burst tasks=3" "$T/log/slurmctld.log") - before_log))
scontrol ping >/dev/null 2>&1 && pass "controller up after $i submissions" || fail "controller down after the burst"
want_good=$((i - i / 4))
[ "$good" = "$want_good" ] && [ "$placed" = "$good" ] &&
    pass "burst: all $good good jobs accepted and placed" ||
    fail "burst: $good accepted, $placed placed, of $want_good good"
[ "$bad_ok" = $((i / 4)) ] && pass "burst: all $bad_ok bad jobs refused" || fail "burst: $bad_ok of $((i / 4)) bad jobs refused"
echo "# slurmctld RSS before/after the burst: ${R0} kB / ${R1} kB"
if [ -n "$R0" ] && [ -n "$R1" ] && [ $((R1 - R0)) -gt 65536 ]; then
    fail "slurmctld grew by $((R1 - R0)) kB in the burst"
fi
scancel -n burst >/dev/null 2>&1

# ---- submission latency, informational: #SKEL jobs against plain ones --------------
lat() {    # lat FILE COUNT: mean ms per sbatch
    s0=$(date +%s%N) k=0
    while [ $k -lt "$2" ]; do submit "$1" -H >/dev/null; k=$((k + 1)); done
    echo $((($(date +%s%N) - s0) / 1000000 / $2))
}
printf '#!/bin/sh\n#SBATCH -J burst\ntrue\n' >"$T/plainlat.sh"
LP=$(lat "$T/plainlat.sh" 20) LS=$(lat "$T/good.sh" 20)
echo "# sbatch latency: plain ${LP} ms, #SKEL ${LS} ms (mean of 20, held jobs)"
scancel -n burst >/dev/null 2>&1

# placed_as WHAT PLAN FILE [sbatch options]: the job completes on PLAN
placed_as() {
    # (check_run sets want and what: keep the plan apart)
    pa_what=$1 pa_plan=$2 f=$3; shift 3
    ID=$(submit "$f" "$@")
    if [ -z "$ID" ]; then
        fail "$pa_what: sbatch failed: $(cat "$T/sbatch.err")"
        return 1
    fi
    check_run "$ID" "$pa_what"
    P=$(sed -n 's/^plan=//p' "$T/out/$ID.out")
    [ "$P" = "$pa_plan" ] && pass "$pa_what: placed as map places it ($P)" ||
        fail "$pa_what: plan '$P', map '$pa_plan'"
}

# map_plan JSON: skelsched map's best placement as a SKEL_PLAN ("t0=n3 t1=n4 ...")
map_plan() {
    sed -n 's/^{"best": {"placement": \[\([^]]*\)\].*/\1/p' "$1" | tr -d '" ' |
        awk -F, '{for (i = 1; i <= NF; i++) printf "%st%d=%s", (i > 1 ? " " : ""), i - 1, $i}'
}

# ---- the job's partition: candidates are its nodes only -----------------------
# "slow" holds n1-n3: the plan must avoid n4 and equal skelsched map's on
# the platform without n4.
grep -v '^NodeName=n4 ' "$T/platform.conf" >"$T/platform-slow.conf"
"$SKELSCHED" map "$T/pipe.skel" --platform "$T/platform-slow.conf" --json >"$T/map-slow.json" 2>"$T/map.err" ||
    fail "skelsched map (slow): $(cat "$T/map.err")"
EXPECT_SLOW=$(map_plan "$T/map-slow.json")
placed_as "-p slow (map without n4)" "$EXPECT_SLOW" "$T/pipe.sh" -p slow
ID=$(submit "$T/pipe.sh" -p slow -w n4)
if [ -z "$ID" ] && grep -q "partition" "$T/sbatch.err"; then
    pass "-p slow -w n4: refused: $(tr '\n' ' ' <"$T/sbatch.err")"
else
    fail "-p slow -w n4: job '$ID', sbatch said '$(cat "$T/sbatch.err")'"
fi
# several partitions: the best plan over them (debug has n4: the plan of -p debug)
placed_as "-p slow,debug (the better partition's plan)" "$EXPECT" "$T/pipe.sh" -p slow,debug
# an unknown partition is left to Slurm and its own message
if ID=$(submit "$T/pipe.sh" -p nosuch); then
    fail "-p nosuch: accepted (job $ID)"
elif grep -q "Invalid partition" "$T/sbatch.err" && grep -q "no known partition in 'nosuch'; left to Slurm" "$T/log/slurmctld.log"; then
    pass "-p nosuch: left to Slurm: $(tr '\n' ' ' <"$T/sbatch.err")"
else
    fail "-p nosuch: sbatch said '$(cat "$T/sbatch.err")'"
fi
grep -q "not restricted to the job's partition" "$T/log/slurmctld.log" &&
    fail "the plugin could not read the partition: $(grep "not restricted" "$T/log/slurmctld.log" | head -1)" ||
    pass "partition nodes read from slurmctld"

# ---- scontrol update of a pending placed job: kept on its plan -----------------
ID=$(submit "$T/pipe.sh" -H)
if [ -n "$ID" ]; then
    PLANNED=$(job_field "$ID" ReqNodeList)
    ONE=$(scontrol show hostnames "$PLANNED" | head -1)
    upd() {    # upd WHAT EXPECT(ok|refused) ARGS...
        what=$1 want=$2; shift 2
        if scontrol update JobId="$ID" "$@" >"$T/upd.out" 2>&1; then got=ok; else got=refused; fi
        [ "$got" = "$want" ] && pass "update $what: $got $(tr '\n' ' ' <"$T/upd.out")" ||
            fail "update $what: $got, expected $want: $(cat "$T/upd.out")"
    }
    upd "TimeLimit" ok TimeLimit=4
    upd "ExcNodeList=n5 (off the plan)" ok ExcNodeList=n5
    upd "ExcNodeList=$ONE (on the plan)" refused ExcNodeList="$ONE"
    upd "ReqNodeList=n1" refused ReqNodeList=n1
    upd "Partition=slow (without n4)" refused Partition=slow
    upd "NumNodes=1" refused NumNodes=1
    upd "Partition=debug (holds the plan)" ok Partition=debug
    upd "ReqNodeList=$PLANNED (the plan's nodes)" ok ReqNodeList="$PLANNED"
    grep -q "job_submit/skeleton: uid=0 job=$ID: update refused: ExcNodeList=$ONE excludes" "$T/log/slurmctld.log" &&
        pass "refused update logged with its reason" || fail "refused update not logged"
    [ "$(job_field "$ID" ReqNodeList)" = "$PLANNED" ] && pass "plan unchanged after the updates ($PLANNED)" ||
        fail "ReqNodeList now $(job_field "$ID" ReqNodeList), was $PLANNED"
    scontrol release "$ID" >/dev/null 2>&1
    check_run "$ID" "updated then released"
else
    fail "held pipeline: sbatch failed: $(cat "$T/sbatch.err")"
fi
ID=$(submit "$T/plain.sh" -H)
if [ -n "$ID" ] && scontrol update JobId="$ID" ExcNodeList=n1 NumNodes=1 >"$T/upd.out" 2>&1; then
    pass "update of a job without #SKEL: untouched"
else
    fail "update of a job without #SKEL: '$ID' $(cat "$T/upd.out")"
fi
[ -n "$ID" ] && scancel "$ID" >/dev/null 2>&1
# a job without a batch script (salloc) has no saved environment: its
# update passes, and the plugin does not make slurmctld look for one
if command -v salloc >/dev/null 2>&1; then
    timeout 60 salloc -H -N1 -J skelalloc --no-shell >/dev/null 2>&1 &
    SALLOC=$!
    alloc_id() { timeout 20 squeue -h -n skelalloc -o %i | head -1; }
    wait_for 20 sh -c "timeout 20 squeue -h -n skelalloc -o %i | grep -q ."
    AID=$(alloc_id)
    if [ -n "$AID" ] && scontrol update JobId="$AID" ExcNodeList=n1 >"$T/upd.out" 2>&1 &&
        ! grep -q "Could not open environment file for JobId=$AID" "$T/log/slurmctld.log"; then
        pass "update of an salloc job: passes, no environment looked up"
    else
        fail "update of an salloc job '$AID': $(cat "$T/upd.out"; grep "JobId=$AID" "$T/log/slurmctld.log" | tail -3)"
    fi
    [ -n "$AID" ] && scancel "$AID" >/dev/null 2>&1
    wait "$SALLOC" 2>/dev/null
fi

# ---- the environment: a stale SKEL_PLAN from the user is replaced, once -------
sed 's/^echo "plan=\$SKEL_PLAN"$/echo "plan=$SKEL_PLAN"; echo "planvars=$(env | grep -c "^SKEL_PLAN=")"/' "$T/pipe.sh" >"$T/envtest.sh"
ID=$(export SKEL_PLAN=stale SKEL_NODES_T0=nowhere; submit "$T/envtest.sh")
if [ -n "$ID" ]; then
    check_run "$ID" "stale SKEL_* in the user's environment"
    [ "$(sed -n 's/^planvars=//p' "$T/out/$ID.out")" = 1 ] && [ "$(sed -n 's/^plan=//p' "$T/out/$ID.out")" = "$EXPECT" ] &&
        pass "environment: one SKEL_PLAN, the plugin's" || fail "environment: $(cat "$T/out/$ID.out")"
else
    fail "env test: sbatch failed: $(cat "$T/sbatch.err")"
fi

# ---- BPEL through sbatch --skeleton=FILE.bpel (inline, parsed from memory) -----
BP="${SRCDIR:-$(dirname "$0")/../..}/examples/bpel/order.bpel"
if [ -f "$SPANKSO" ] && [ -f "$BP" ]; then
    ID=$(submit "$T/spank.sh" --skeleton="$BP")
    if [ -n "$ID" ]; then
        check_run "$ID" "--skeleton order.bpel"
        N=$(sed -n 's/^plan=//p' "$T/out/$ID.out" | wc -w)
        [ "$N" = 9 ] && pass "--skeleton order.bpel: 9 tasks placed" || fail "--skeleton order.bpel: $N tasks"
    else
        fail "--skeleton order.bpel: sbatch failed: $(cat "$T/sbatch.err")"
    fi
    # parameters missing: accepted, sbatch shows the defaults used
    printf '<process name="p" xmlns="http://docs.oasis-open.org/wsbpel/2.0/process/executable">\n<sequence><receive name="r" createInstance="yes"/><invoke name="a"/></sequence>\n</process>\n' >"$T/bare.bpel"
    ID=$(submit "$T/spank.sh" --skeleton="$T/bare.bpel")
    if [ -n "$ID" ] && grep -q "skeleton: BPEL .*warning: .*defaults used" "$T/sbatch.err"; then
        check_run "$ID" "--skeleton bare.bpel (defaults)"
        pass "--skeleton bare.bpel: $(tr '\n' ' ' <"$T/sbatch.err")"
    else
        fail "--skeleton bare.bpel: job '$ID', sbatch said '$(cat "$T/sbatch.err")'"
    fi
    printf '<?xml version="1.0"?>\n<process>\n  <sequence>\n</process>\n' >"$T/bad.bpel"
    skeleton_refused "$T/bad.bpel" "--skeleton:4:"
fi

# ---- skelsched map reads skeleton.conf itself (the plugin's keys included) ------
grep -v '^NodeName=n5 ' "$T/skeleton.conf.good" >"$T/skeleton4.conf"
"$SKELSCHED" map "$T/pipe.skel" --platform "$T/skeleton4.conf" --json >"$T/map4.json" 2>"$T/map.err" &&
    [ "$(map_plan "$T/map4.json")" = "$EXPECT" ] &&
    pass "skelsched map --platform skeleton.conf previews the plugin's plan" ||
    fail "skelsched map --platform skeleton.conf: $(cat "$T/map.err" "$T/map4.json")"
scontrol ping >/dev/null 2>&1 && pass "controller up at the end" || fail "controller down at the end"

echo "$PASSES passed, $FAILS failed"
[ "$FAILS" = 0 ]
