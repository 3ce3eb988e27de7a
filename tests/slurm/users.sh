#!/bin/sh
# A user's and an administrator's first day with job_submit/skeleton
# (issue 17), on a real Slurm (tests/slurm/cluster.sh) with the
# documented configuration (plugstack.conf `optional`):
#  - sbatch --skeleton=missing.skel stops the submission;
#  - docs/user.md's first example, with stages that stream through FIFOs,
#    finishes (its stages run at the same time) and gets the CPUs its plan
#    needs per node;
#  - refusals carry Slurm's closest error code and the right #SKEL line;
#    a model beyond MaxStates is placed (method=approximate), not refused;
#  - the plan is shown at submission and with sbatch --test-only;
#    `skelsched plan` predicts the plugin's messages and plans;
#  - -N/-n given way to the plan with a warning; idle nodes preferred to
#    equal busy ones; arrays warned;
#  - no SPANK "option not found" in slurmd's log;
#  - administrators: the submit path stays short with Budget=60000, the
#    "loaded" line lists every key, BadInput=accept is labelled a warning,
#    users never see the configuration's path.
# Skips (77) unless root with Slurm's daemons.

CLUSTER_NAME=skelusers
. "$(dirname "$0")/cluster.sh"
SRC="${SRCDIR:-$(dirname "$0")/../..}"
cluster_setup
# n3 and n4 are interchangeable (same speed, no links): the idle one of
# them must be chosen. CPUs= caps what a node is asked for (CPUS_KEY= runs
# without it, e.g. against a build that does not know the key).
CPUS_KEY=${CPUS_KEY- CPUs=2}
cat >"$T/skeleton.conf" <<EOF
Budget=60000
MaxStates=200000
MaxTasks=16
LocalLatency=0.0001
DefaultLatency=0.001
NodeName=n1 Speed=1$CPUS_KEY
NodeName=n2 Speed=2$CPUS_KEY
NodeName=n3 Speed=8$CPUS_KEY
NodeName=n4 Speed=8$CPUS_KEY
EOF
echo "PartitionName=short Nodes=n[1-4] DefaultTime=1 MaxTime=INFINITE State=UP" >>"$T/slurm.conf"
cluster_start

# ---- administrators: the "loaded" line ------------------------------------------
LOADED=$(grep "job_submit/skeleton: loaded" "$T/log/slurmctld.log" | tail -1)
case $LOADED in
*MaxTasks=16*BadInput=reject*UnknownNodes=ignore*) pass "loaded line lists every key: $LOADED" ;;
*) fail "loaded line: '$LOADED'" ;;
esac
echo "$LOADED" | grep -q "capped to 500ms" && pass "loaded line says Budget=60000 is capped" ||
    fail "loaded line does not say the budget is capped"

# refused WHAT FILE WANT_MSG WANT_CODE [sbatch options]: sbatch fails with both
refused() {
    r_what=$1 r_file=$2 r_msg=$3 r_code=$4; shift 4
    if ID=$(submit "$r_file" "$@"); then
        fail "$r_what: accepted (job $ID)"
    elif ! grep -q -- "$r_msg" "$T/sbatch.err"; then
        fail "$r_what: sbatch said '$(cat "$T/sbatch.err")', expected '$r_msg'"
    elif ! grep -q "Batch job submission failed: $r_code" "$T/sbatch.err"; then
        fail "$r_what: not '$r_code': $(cat "$T/sbatch.err")"
    else
        pass "$r_what: $(tr '\n' ' ' <"$T/sbatch.err")"
    fi
}

# ---- --skeleton=missing under `optional`: no job -------------------------------
printf '#!/bin/sh\n#SBATCH -J missingskel\ntrue\n' >"$T/noskel.sh"
if ID=$(submit "$T/noskel.sh" --skeleton="$T/missing.skel"); then
    fail "--skeleton=missing.skel: submitted (job $ID) under plugstack optional"
else
    n=$(timeout 20 squeue -h -n missingskel | wc -l)
    [ "$n" = 0 ] && grep -q "missing.skel: No such file" "$T/sbatch.err" &&
        pass "--skeleton=missing.skel: not submitted: $(tr '\n' ' ' <"$T/sbatch.err")" ||
        fail "--skeleton=missing.skel: $n jobs, sbatch said $(cat "$T/sbatch.err")"
fi

# ---- errors: codes, lines, messages ------------------------------------------------
printf '#!/bin/sh\n#SKEL pipe(2);\n#SKEL task("a", 1.0);\n#SKEL task("b" 1.0);\nhostname\n' >"$T/bad.sh"
refused "syntax error" "$T/bad.sh" "batch script:4:" "Invalid argument"
printf '#!/bin/sh\n#SBATCH -J lone\n#SKEL --items 100\nhostname\n' >"$T/bad.sh"
refused "lone --items at line 3" "$T/bad.sh" "batch script:3: #SKEL options but no skeleton" "Invalid argument"
printf '#!/bin/sh\n#SKEL task("a", 1.0);\n#SKEL --pin t0=nosuch\nhostname\n' >"$T/bad.sh"
refused "unknown pinned node" "$T/bad.sh" "batch script:3: .*no node nosuch in skeleton.conf" "Invalid node name specified"
grep -q "$T" "$T/sbatch.err" && fail "the configuration's path reached the user: $(cat "$T/sbatch.err")" ||
    pass "the configuration's path is not shown to the user"
printf '#!/bin/sh\n#SKEL deal(40, "w", 1.0);\nhostname\n' >"$T/bad.sh"
refused "MaxTasks" "$T/bad.sh" "batch script:2: the skeleton has 40 tasks" "Task count specification invalid"
printf '#!/bin/sh\n#SKEL task("a", 1.0);\n#SKEL --pin t0=n2\nhostname\n' >"$T/bad.sh"
refused "pin outside -w" "$T/bad.sh" "batch script:3: #SKEL --pin t0=n2: that node is not available" \
    "Required node not available" -w n1
grep -q "Unspecified error" "$T/sbatch.err" && fail "an Unspecified error" || pass "no Unspecified error"
# MaxStates: a model beyond the site's limit; says what the user can do
sleep 1
sed 's/^MaxStates=.*/MaxStates=50/' "$T/skeleton.conf" >"$T/skeleton.conf.new" && mv "$T/skeleton.conf.new" "$T/skeleton.conf"
printf '#!/bin/sh\n#SBATCH -J big\n#SKEL pipe(3);\n#SKEL task("a", 1.0);\n#SKEL farm(3, "b", 1.0);\n#SKEL task("c", 1.0);\nhostname\n' >"$T/big.sh"
ID=$(submit "$T/big.sh" -H)
if [ -n "$ID" ] && grep -q "skeleton: warning: the skeleton's performance model has more than 50 states, this site's limit (MaxStates=50).*ask the administrators" "$T/sbatch.err"; then
    pass "MaxStates: placed approximately, with what the user can do: $(tr '\n' ' ' <"$T/sbatch.err")"
else
    fail "MaxStates: job '$ID': $(cat "$T/sbatch.err")"
fi
[ -n "$ID" ] && scancel "$ID" >/dev/null 2>&1
grep -q -- "--max-states" "$T/sbatch.err" && fail "MaxStates message names --max-states" ||
    pass "MaxStates message does not send the user to --max-states"
sleep 1
grep "job=big " "$T/log/slurmctld.log" | tail -1 | grep -q " method=approximate" &&
    pass "MaxStates: the log line says method=approximate" ||
    fail "MaxStates: no method=approximate in: $(grep "job=big " "$T/log/slurmctld.log" | tail -1)"
sleep 1
sed 's/^MaxStates=.*/MaxStates=200000/' "$T/skeleton.conf" >"$T/skeleton.conf.new" && mv "$T/skeleton.conf.new" "$T/skeleton.conf"

# ---- the plan at submission, and with --test-only ------------------------------------
cat >"$T/pipe.sh" <<'EOF'
#!/bin/sh
#SBATCH -J pipe
#SBATCH -t 5
#SKEL pipe(3);
#SKEL   task("read", 4.0);
#SKEL   task("work", 1.0);
#SKEL   task("write", 2.0);
#SKEL --items 100
echo "plan=$SKEL_PLAN"
EOF
ID=$(submit "$T/pipe.sh")
if [ -n "$ID" ] && grep -q "^sbatch: skeleton: plan t0=" "$T/sbatch.err"; then
    pass "plan shown at submission: $(tr '\n' ' ' <"$T/sbatch.err")"
else
    fail "no plan at submission: job '$ID', $(cat "$T/sbatch.err")"
fi
if timeout 30 "$SBATCH" --test-only -D "$T/out" "$T/pipe.sh" >"$T/test-only.out" 2>&1 &&
    grep -q "skeleton: plan t0=" "$T/test-only.out" && grep -q "to start at" "$T/test-only.out"; then
    pass "sbatch --test-only shows the plan: $(tr '\n' ' ' <"$T/test-only.out")"
else
    fail "sbatch --test-only: $(cat "$T/test-only.out")"
fi

# ---- skelsched plan predicts the plugin ---------------------------------------------
# agree WHAT FILE [sbatch options]: the messages and the plan are the same.
# The plugin sees n1-n4 available, all of partition debug.
agree() {
    a_what=$1 a_file=$2; shift 2
    submit "$a_file" -H "$@" >"$T/agree.id"
    sed -n 's/^sbatch: \(error: \)\{0,1\}\(skeleton: .*\)/\2/p' "$T/sbatch.err" >"$T/agree.sbatch"
    "$SKELSCHED" plan "$a_file" --conf "$T/skeleton.conf" --nodes n1,n2,n3,n4 --idle n1,n2,n3,n4 \
        --partition-nodes "n[1-5]" "$@" >"$T/agree.plan" 2>&1
    grep '^skeleton: ' "$T/agree.plan" >"$T/agree.plan.msgs"
    if [ -s "$T/agree.sbatch" ] && cmp -s "$T/agree.sbatch" "$T/agree.plan.msgs"; then
        pass "skelsched plan agrees with the plugin: $a_what"
    else
        fail "skelsched plan: $a_what: sbatch '$(cat "$T/agree.sbatch")', plan '$(cat "$T/agree.plan")'"
    fi
    ID=$(cat "$T/agree.id")
    [ -n "$ID" ] && scancel "$ID" >/dev/null 2>&1
}
wait_for 60 idle4
agree "a pipeline" "$T/pipe.sh"
sed 's/^#SKEL --items 100$/#SKEL --items 100000/' "$T/pipe.sh" >"$T/pipe-long.sh"
agree "a pipeline with -t 1 and many items" "$T/pipe-long.sh" -t 1
agree "-N 5 -n 8" "$T/pipe.sh" -N 5 -n 8
agree "-w n1,n2" "$T/pipe.sh" -w n1,n2
printf '#!/bin/sh\n#SKEL deal(40, "w", 1.0);\nhostname\n' >"$T/bad.sh"
agree "a refusal (MaxTasks)" "$T/bad.sh"
printf '#!/bin/sh\n#SBATCH -J lone\n#SKEL --items 100\nhostname\n' >"$T/bad.sh"
agree "a refusal (no skeleton)" "$T/bad.sh"

# ---- -N and -n give way to the plan, with a warning -----------------------------
ID=$(submit "$T/pipe.sh" -N5 -n8)
if [ -n "$ID" ] && grep -q "warning: -N 5 replaced by the plan's [0-9] node" "$T/sbatch.err" &&
    grep -q "warning: -n 8 replaced by the plan's 3 tasks" "$T/sbatch.err" &&
    wait_for 90 done_job "$ID" && [ "$(job_state "$ID")" = COMPLETED ]; then
    pass "-N5 -n8: warned and COMPLETED: $(tr '\n' ' ' <"$T/sbatch.err")"
else
    fail "-N5 -n8: job '$ID' $(job_state "$ID"): $(cat "$T/sbatch.err")"
fi

# ---- an array: warned --------------------------------------------------------------
ID=$(submit "$T/pipe.sh" --array=1-2)
if [ -n "$ID" ] && grep -q "warning: a job array: every task of the array gets this plan" "$T/sbatch.err"; then
    pass "array: warned"
else
    fail "array: job '$ID': $(cat "$T/sbatch.err")"
fi
[ -n "$ID" ] && scancel "$ID" >/dev/null 2>&1

# ---- --items without -t: the partition's DefaultTime (1 min in "short") -----------
sed '/^#SBATCH -t 5$/d; s/^#SKEL --items 100$/#SKEL --items 100000/' "$T/pipe.sh" >"$T/nolimit.sh"
ID=$(submit "$T/nolimit.sh" -p short -H)
if [ -n "$ID" ] && grep -q "beyond the job's time limit of 1 min (the partition's default" "$T/sbatch.err"; then
    pass "--items without -t: the partition's DefaultTime: $(tr '\n' ' ' <"$T/sbatch.err")"
else
    fail "--items without -t: job '$ID': $(cat "$T/sbatch.err")"
fi
[ -n "$ID" ] && scancel "$ID" >/dev/null 2>&1

# ---- a busy node is not chosen while an equal idle one exists ---------------------
wait_for 60 idle4
printf '#!/bin/sh\n#SBATCH -J hold\nsleep 300\n' >"$T/hold.sh"
HOLD=$(submit "$T/hold.sh" -w n3 --exclusive)
wait_for 30 sh -c "[ \"\$(timeout 20 squeue -h -j $HOLD -o %T)\" = RUNNING ]"
printf '#!/bin/sh\n#SBATCH -J one\n#SKEL task("a", 1.0);\necho "plan=$SKEL_PLAN"\n' >"$T/one.sh"
ID=$(submit "$T/one.sh")
if [ -n "$ID" ] && [ "$(job_field "$ID" ReqNodeList)" = n4 ]; then
    pass "busy n3: the equal idle n4 is chosen ($(tr '\n' ' ' <"$T/sbatch.err"))"
else
    fail "busy n3: job '$ID' on '$(job_field "$ID" ReqNodeList)': $(cat "$T/sbatch.err")"
fi
scancel "$HOLD" >/dev/null 2>&1
[ -n "$ID" ] && wait_for 60 done_job "$ID"

# ---- docs/user.md's first example, with stages streaming through FIFOs ------------
# Three stages on two nodes (-w n1,n2): two of them share a node. The reader
# blocks until the worker opens its FIFO, so stages that run one after
# another never finish.
wait_for 60 idle4
mkdir -p "$T/out/stream"
sed -n '/^```sh$/,/^```$/p' "$SRC/docs/user.md" | sed '1d;$d' | sed -n '1,/^wait$/p' >"$T/stream.sh"
sed -i 's/^#SBATCH -t 30$/#SBATCH -t 2/' "$T/stream.sh"
cat >"$T/out/read" <<'EOF'
#!/bin/sh
seq 1 1000 >fifo1
EOF
cat >"$T/out/work" <<'EOF'
#!/bin/sh
sed 's/$/ done/' <fifo1 >fifo2
EOF
cat >"$T/out/write" <<'EOF'
#!/bin/sh
wc -l <fifo2 >result
EOF
chmod +x "$T/out/read" "$T/out/work" "$T/out/write"
# stream_run WHAT SCRIPT: the job completes and 1000 lines went through
stream_run() {
    rm -f "$T/out/fifo1" "$T/out/fifo2" "$T/out/result"
    mkfifo "$T/out/fifo1" "$T/out/fifo2"
    ID=$(submit "$2" -w n1,n2)
    if [ -z "$ID" ]; then
        fail "$1: sbatch failed: $(cat "$T/sbatch.err")"
    elif wait_for 100 done_job "$ID" && [ "$(job_state "$ID")" = COMPLETED ] &&
        [ "$(tr -d ' ' <"$T/out/result" 2>/dev/null)" = 1000 ]; then
        pass "$1: a streaming pipeline of 3 stages on 2 nodes COMPLETED"
    else
        fail "$1: job $ID $(job_state "$ID"), result '$(cat "$T/out/result" 2>/dev/null)': $(cat "$T/out/$ID.out")"
        scancel "$ID" >/dev/null 2>&1
    fi
}
stream_run "docs/user.md example" "$T/stream.sh"
# the CPUs it got: at least one per stage, 2 on the node holding two
# stages; Slurm 22.05 gives every node of the job the largest per-node
# count (4 in all), 24.11 and 25.11 each node its own (3 in all)
PLANNED=$(sed -n 's/.*skeleton: plan \([^(]*\) (.*/\1/p' "$T/sbatch.err")
CPUS=$(timeout 20 "$SCONTROL" show job -d "$ID" 2>/dev/null | sed -n 's/.*NumCPUs=\([0-9]*\).*/\1/p' | head -1)
case $CPUS in
3|4) pass "docs/user.md example: $CPUS CPUs for 3 stages on 2 nodes ($PLANNED)" ;;
*) fail "docs/user.md example: NumCPUs=$CPUS for $PLANNED (3 or 4 expected)" ;;
esac
# ---- no SPANK "option not found" in slurmd's log -----------------------------------
printf 'pipe(2);\ntask("a", 1.0);\ntask("b", 1.0);\n' >"$T/two.skel"
printf '#!/bin/sh\n#SBATCH -J spankstep\nsrun --overlap -N1 -n1 -w "$SKEL_NODES_T0" true\n' >"$T/spank.sh"
ID=$(submit "$T/spank.sh" --skeleton="$T/two.skel")
if [ -n "$ID" ] && wait_for 60 done_job "$ID" && [ "$(job_state "$ID")" = COMPLETED ]; then
    if grep -h 'option "skeleton" not found' "$T"/log/slurmd-*.log >/dev/null 2>&1; then
        fail "slurmd logs: $(grep -h 'option "skeleton" not found' "$T"/log/slurmd-*.log | head -1)"
    else
        pass "a --skeleton job with a step: no 'option not found' in slurmd's logs"
    fi
else
    fail "--skeleton job with a step: job '$ID' $(job_state "$ID"): $(cat "$T/sbatch.err")"
fi

# ---- administrators: BadInput=accept says "warning:" --------------------------------
sleep 1
sed 's/^MaxTasks=16$/MaxTasks=16\nBadInput=accept/' "$T/skeleton.conf" >"$T/skeleton.conf.new" &&
    mv "$T/skeleton.conf.new" "$T/skeleton.conf"
printf '#!/bin/sh\n#SBATCH -J acc\n#SKEL pipe(2);\n#SKEL task("a", 1.0);\ntrue\n' >"$T/acc.sh"
ID=$(submit "$T/acc.sh" -H)
if [ -n "$ID" ] && grep -q "^sbatch: skeleton: warning: batch script:3:" "$T/sbatch.err" &&
    grep -q "skeleton: warning: the job is accepted without a placement" "$T/sbatch.err"; then
    pass "BadInput=accept: labelled warning: $(tr '\n' ' ' <"$T/sbatch.err")"
else
    fail "BadInput=accept: job '$ID': $(cat "$T/sbatch.err")"
fi
[ -n "$ID" ] && scancel "$ID" >/dev/null 2>&1

# ---- administrators: no usable skeleton.conf: the users do not see its path ----------
scontrol ping >/dev/null 2>&1 || fail "controller down"

# ---- administrators: Budget=60000 does not hold other submissions -----------------
# A skeleton whose search takes long without the cap; a plain job submitted
# meanwhile must not wait for it.
sleep 1
sed 's/^BadInput=accept$//; s/^MaxStates=.*/MaxStates=2000000/' "$T/skeleton.conf" >"$T/skeleton.conf.new" &&
    mv "$T/skeleton.conf.new" "$T/skeleton.conf"
printf '#!/bin/sh\n#SBATCH -J long\n#SKEL pipe(4); task("a", 1.0); farm(4, "b", 1.0); farm(4, "c", 1.0); task("d", 1.0);\ntrue\n' >"$T/long.sh"
printf '#!/bin/sh\n#SBATCH -J plainq\ntrue\n' >"$T/plainq.sh"
s0=$(date +%s%N)
submit "$T/long.sh" -H >/dev/null 2>&1
LONG_MS=$((($(date +%s%N) - s0) / 1000000))
(submit "$T/long.sh" -H >/dev/null 2>&1) &
BG=$!
sleep 0.05
s0=$(date +%s%N)
submit "$T/plainq.sh" -H >/dev/null
PLAIN_MS=$((($(date +%s%N) - s0) / 1000000))
wait $BG
echo "# #SKEL job with Budget=60000: sbatch took ${LONG_MS} ms; a plain sbatch behind it ${PLAIN_MS} ms"
[ "$LONG_MS" -lt 2000 ] && pass "a long decision is cut at the cap (${LONG_MS} ms)" ||
    fail "a #SKEL decision with Budget=60000 took ${LONG_MS} ms"
[ "$PLAIN_MS" -lt 2000 ] && pass "a plain sbatch behind it: ${PLAIN_MS} ms" ||
    fail "a plain sbatch waited ${PLAIN_MS} ms behind a decision"
grep "job=long" "$T/log/slurmctld.log" | tail -1 | grep -q "decision=" &&
    echo "# $(grep "job=long" "$T/log/slurmctld.log" | tail -1 | sed 's/.*decision=/decision=/')"
timeout 20 scancel -n long -n plainq >/dev/null 2>&1

scontrol ping >/dev/null 2>&1 && pass "controller up at the end" || fail "controller down at the end"
echo "$PASSES passed, $FAILS failed"
[ "$FAILS" = 0 ]
