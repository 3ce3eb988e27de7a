#!/bin/sh
# skelsched advise: replication advice and the Yaikhom et al. 2007 Fig. 5-6 sweep.
. "$SRCDIR/tests/cli/lib.sh"
E="$SRCDIR/examples"
SK="$E/skeletons/bottleneck5.skel"
PL="$E/platforms/identical8.conf"

expect_exit 0 "help" -- advise --help
expect_out "help" "--sweep SPEC"
expect_exit 0 "help lists advise" -- --help
expect_out "help lists advise" "^  advise "

# the bottleneck (t2, rate 50) and its replications; farm 2 is the
# smallest to reach 50 items per second
expect_exit 0 "table" -- advise "$SK" --platform "$PL" --replicas 3 --target 50
expect_out "table bottleneck" '^bottleneck +t2 "bottleneck" on n2'
expect_out "table throughput" '^throughput +36\.76'
expect_out "table deal" '^deal +2 +46\.15[0-9]* +\+25\.5[0-9]% +n2 n5$'
expect_out "table farm" '^farm +3 +56\.58[0-9]* .* n2 n5 n6$'
expect_out "table target" '^target +50: farm of 2 \(n2 n5\), throughput 51\.5'

expect_exit 0 "json" -- advise "$SK" --platform "$PL" --replicas 3 --target 50 --json
expect_out "json" '"replicated": "t2", "free_nodes": 3, "options": \[\{"kind": "deal", "task": "t2", "degree": 2, "throughput": 46\.15'
expect_out "json reach" '"reach": \{"kind": "farm", "degree": 2\}\}$'
if command -v python3 >/dev/null 2>&1; then
    if python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
opts = d["options"]
assert [(o["kind"], o["degree"]) for o in opts] == [("deal", 2), ("deal", 3), ("farm", 2), ("farm", 3)]
assert all(o["throughput"] > d["throughput"] for o in opts)
assert opts[2]["throughput"] > opts[0]["throughput"] and opts[3]["throughput"] > opts[1]["throughput"]
PY
    then ok; else fail "json content"; fi
fi

# without a platform: one node per task plus room for the replicas
expect_exit 0 "default platform" -- advise "$E/skeletons/fig4.skel" --replicas 2 --task t1
expect_out "default platform" '^platform +<default platform> \(6 nodes, 1 free\)'
expect_out "default task" '^replicating +t1$'

# every node busy: nothing to replicate on. Placed round robin, the reader
# t0 (rate 4 on io1) and the farm's workers t5, t6 (rate 2 each, half the
# items) are equally busy, 0.5153 each: a tie, and the bottleneck named is
# the lowest numbered (docs/advice.md), whatever the last digits say
expect_exit 0 "no free node" -- advise "$E/skeletons/replicated.skel" --platform "$E/platforms/cluster.conf" --no-merge
expect_out "no free node" "no free node to put a replica of t0 on"
expect_out "tied bottleneck" '^bottleneck +t0 "read" on io1, utilisation 0\.5153$'


# merging fast stages (Zavanella 1999): the outer stages at 400
printf 'pipe(5); task("a", 400); task("b", 400); task("c", 50); task("d", 400); task("e", 400);\n' >"$TMP/fast.skel"
expect_exit 0 "merge" -- advise "$TMP/fast.skel" --platform "$PL" --replicas 2
expect_out "merge" '^merge t0\+t1 +- +46\.8[0-9]* .* n0 \(frees n1\)$'
# grouped on one node, the two stages share it as they compute (Sharing=ps)
expect_out "group" '^group t3\+t4 +- +48\.1[0-9]* .* n3 \(frees n4\)$'
expect_exit 0 "group static" -- advise "$TMP/fast.skel" --platform "$PL" --replicas 2 --sharing static
expect_out "group static" '^group t3\+t4 +- +46\.3[0-9]* .* n3 \(frees n4\)$'
expect_exit 0 "no merge" -- advise "$TMP/fast.skel" --platform "$PL" --replicas 2 --no-merge
if grep -qE '^(merge|group)' "$TMP/out"; then fail "--no-merge still merges"; else ok; fi

# Fig. 5-6: the sweep, its data, script and plots
expect_exit 0 "sweep" -- advise "$SK" --platform "$PL" --sweep t0,t1,t3,t4=100:500:200 --plot "$TMP/fig"
expect_out "sweep header" '^rate +uniform +current +deal2 +deal3 +farm2 +farm3'
expect_out "sweep row" '^500 +232\.99[0-9]* +48\.67[0-9]* +71\.2[0-9]* +89\.5[0-9]* +94\.9[0-9]* +137\.7[0-9]*'
if [ -s "$TMP/fig.dat" ] && [ -s "$TMP/fig.gp" ] && grep -q "^300 " "$TMP/fig.dat"; then ok; else fail "sweep data and script"; fi
if command -v gnuplot >/dev/null 2>&1; then
    if grep -q "<svg" "$TMP/fig-bottleneck.svg" && grep -q "<svg" "$TMP/fig-replication.svg"; then ok
    else fail "sweep plots"; fi
fi

# errors
expect_exit 2 "no skeleton" -- advise --json
expect_err "no skeleton" "^skelsched advise: expected a skeleton description$"
expect_exit 2 "plot without sweep" -- advise "$SK" --plot "$TMP/x"
expect_err "plot without sweep" "--plot goes with --sweep"
expect_exit 2 "bad replicas" -- advise "$SK" --replicas 1
expect_exit 2 "bad task" -- advise "$SK" --task x3
expect_exit 1 "task out of range" -- advise "$SK" --task t9
expect_err "task out of range" "no task t9"
expect_exit 1 "bad sweep" -- advise "$SK" --sweep t0=100:50:10
expect_err "bad sweep" "FROM:TO:STEP"
expect_exit 1 "sweep task" -- advise "$SK" --sweep t0,t7=100:200:50
expect_err "sweep task" "no task t7"
expect_exit 1 "missing file" -- advise "$TMP/none.skel"
expect_err "missing file" "none.skel"
printf 'NodeName=n[0-4]\nBspG=x\n' >"$TMP/bad.conf"
expect_exit 1 "bad platform" -- advise "$SK" --platform "$TMP/bad.conf"
expect_err "bad platform" "bad.conf:2:6: BspG=x: not a number"

finish
