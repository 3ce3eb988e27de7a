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
{ echo "Budget=2000"; echo "MaxStates=200000"; echo "MaxTasks=16"; cat "$T/platform.conf"
  echo "NodeName=n5 Speed=16"; } >"$T/skeleton.conf"
cp "$T/skeleton.conf" "$T/skeleton.conf.good"

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
    printf 'pipe(2);\ntask("a", 1.0);\n' >"$T/bad.skel"
    if ID=$(submit "$T/spank.sh" --skeleton="$T/bad.skel"); then
        fail "--skeleton with a bad file: accepted (job $ID)"
    else
        grep -q -- "--skeleton:1:" "$T/sbatch.err" && pass "--skeleton bad file: $(tr '\n' ' ' <"$T/sbatch.err")" ||
            fail "--skeleton bad file: sbatch said '$(cat "$T/sbatch.err")'"
    fi
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

echo "$PASSES passed, $FAILS failed"
[ "$FAILS" = 0 ]
