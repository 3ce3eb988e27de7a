#!/bin/sh
# skelsched map: the placement search, end to end.
. "$SRCDIR/tests/cli/lib.sh"
E="$SRCDIR/examples"
SK="$E/skeletons/pipeline3.skel"
PL="$E/platforms/three-processors.conf"

expect_exit 0 "map help" -- map --help
expect_out "map help" "--candidates FILE"
expect_exit 0 "help lists map" -- --help
expect_out "help lists map" "^  map "

# Benoit et al. 2004, first row of the table: (p1,p2,p3) gives 5.63467
expect_exit 0 "table" -- map "$SK" --platform "$PL" --style stream --pin t0=p1
expect_out "table best" "^1 +5\.634666[0-9]* +t[0-9] +p1 p2 p3$"
expect_out "table optimal" "^optimal +yes"

# JSON: the shape of the issue, and it parses
expect_exit 0 "json" -- map "$SK" --platform "$PL" --style stream --pin t0=p1 --json --top 3
expect_out "json best" '^\{"best": \{"placement": \["p1", "p2", "p3"\], "throughput": 5\.634666'
expect_out "json ranked" '"ranked": \[\{"placement": \["p1", "p2", "p3"\], "throughput": '
expect_out "json fields" '"optimal": true, .*"evaluated": [0-9]+, "pruned": [0-9]+, .*"states": 27, .*"seconds": [0-9.]+, "method": "exact", "constructive": [0-9.e+-]+, "why": ""\}$'
if command -v python3 >/dev/null 2>&1; then
    if python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(["best", "ranked", "optimal", "evaluated", "pruned", "states", "seconds"]) <= set(d)
assert d["best"]["placement"][0] == "p1" and len(d["ranked"]) <= 3
assert all(r["placement"][0] == "p1" for r in d["ranked"])
t = [r["throughput"] for r in d["ranked"]]
assert t == sorted(t, reverse=True)
PY
    then ok; else fail "json content"; fi
fi

# pins are honoured: t1 and t2 on p3
expect_exit 0 "pins" -- map "$SK" --platform "$PL" --style stream --pin t0=p1 --pin t1=p3,t2=p3 --json
expect_out "pins" '"best": \{"placement": \["p1", "p3", "p3"\]'
expect_out "pins count" '"placements": 1,'

# the paper's 8 candidates
printf '# Benoit et al. 2004, section 4.2\np1,p1,p1\np1,p1,p2\np1,p2,p2\np1,p2,p1\np1,p1,p3\np1,p3,p3\n p1 , p3 , p1 \np1,p2,p3\n' > "$TMP/cand.txt"
expect_exit 0 "candidates" -- map "$SK" --platform "$PL" --style stream --candidates "$TMP/cand.txt" --json
expect_out "candidates best" '"best": \{"placement": \["p1", "p2", "p3"\], "throughput": 5\.634666'
expect_out "candidates count" '"placements": 8,'

# ties are reported as ties (p1,p1,p2 and p1,p2,p2 give the same throughput)
expect_exit 0 "ties" -- map "$SK" --platform "$PL" --style stream --pin t0=p1 --pin t2=p2
expect_out "ties" "^2 +3\.2054904[0-9]* .*p1 p2 p2$"
expect_out "ties share a rank" "^2 +3\.2054904[0-9]* .*p1 p1 p2$"

# a budget: still a valid answer (this one is too small to matter)
expect_exit 0 "budget" -- map "$SK" --platform "$PL" --style stream --budget 30 --json
expect_out "budget" '"optimal": true'

# bad input: exit 1 with file:line:col
printf 'p1,p2\n' > "$TMP/short.txt"
expect_exit 1 "short candidate" -- map "$SK" --platform "$PL" --candidates "$TMP/short.txt"
expect_err "short candidate" "short.txt:1:6: 2 nodes for the 3 tasks"
printf '# x\np1, p2 ,p9\n' > "$TMP/nonode.txt"
expect_exit 1 "unknown node" -- map "$SK" --platform "$PL" --candidates "$TMP/nonode.txt"
expect_err "unknown node" "nonode.txt:2:9: no node 'p9'"
printf 'p2,p2,p2\n' > "$TMP/against.txt"
expect_exit 1 "candidate against a pin" -- map "$SK" --platform "$PL" --pin t0=p1 --candidates "$TMP/against.txt"
expect_err "candidate against a pin" "pinned to p1"
expect_exit 1 "missing candidates" -- map "$SK" --platform "$PL" --candidates "$TMP/none.txt"
expect_err "missing candidates" "none.txt: No such file"
expect_exit 1 "pin unknown task" -- map "$SK" --platform "$PL" --pin t5=p1
expect_err "pin unknown task" "--pin: no task t5"
expect_exit 1 "pin unknown node" -- map "$SK" --platform "$PL" --pin t0=zz
expect_err "pin unknown node" "no node zz"
printf 'pipe(2);\n\ttask("a", 1.0)\n' > "$TMP/bad.skel"
expect_exit 1 "bad skeleton" -- map "$TMP/bad.skel" --platform "$PL"
expect_err "bad skeleton" "bad.skel:[0-9]+:[0-9]+: "
printf 'NodeName=a Speed=-1\n' > "$TMP/bad.conf"
expect_exit 1 "bad platform" -- map "$SK" --platform "$TMP/bad.conf"
expect_err "bad platform" "bad.conf:1:[0-9]+: "

# skeleton.conf as the platform: the Slurm plugin's own keys are accepted
# (and checked); the placement is the one of the bare platform (table above)
{ echo "Budget=50"; echo "MaxStates=100000"; echo "MaxTasks=32"; echo "UnknownNodes=reject"
  echo "BadInput=accept"; cat "$PL"; } >"$TMP/skeleton.conf"
expect_exit 0 "skeleton.conf keys" -- map "$SK" --platform "$TMP/skeleton.conf" --style stream --pin t0=p1
expect_out "skeleton.conf keys" "^1 +5\.634666[0-9]* +t[0-9] +p1 p2 p3$"
{ echo "Budget=0"; cat "$PL"; } >"$TMP/badkey.conf"
expect_exit 1 "skeleton.conf bad key" -- map "$SK" --platform "$TMP/badkey.conf"
expect_err "skeleton.conf bad key" "badkey.conf:1:[0-9]+: Budget= must be"
{ echo "Budgte=5"; cat "$PL"; } >"$TMP/typo.conf"
expect_exit 1 "skeleton.conf unknown key" -- map "$SK" --platform "$TMP/typo.conf"
expect_err "skeleton.conf unknown key" "typo.conf:1:[0-9]+: .*Budgte"

# usage: exit 2
expect_exit 2 "no platform" -- map "$SK"
expect_exit 2 "no skeleton" -- map --platform "$PL"
expect_exit 2 "bad top" -- map "$SK" --platform "$PL" --top 0
expect_exit 2 "bad budget" -- map "$SK" --platform "$PL" --budget -1
expect_exit 2 "bad style" -- map "$SK" --platform "$PL" --style sideways
expect_exit 2 "unknown option" -- map "$SK" --platform "$PL" --frobnicate
expect_exit 2 "two skeletons" -- map "$SK" "$SK" --platform "$PL"

# ties (docs/mapping.md, "Ties"): the two workers of a farm are
# interchangeable, so swapping their nodes ties exactly; tied placements
# are listed in node order (x before y before z for t1, then t2), the
# first of them is the best, and the bottleneck among tied utilisations is
# the lowest numbered task (t0 and t3, alone on x, compute alike)
printf 'pipe(3);\n\ttask("a", 1.0);\n\tfarm(2, "w", 1.0);\n\ttask("c", 1.0);\n' >"$TMP/farm.skel"
printf 'Budget=500\nNodeName=x Speed=1\nNodeName=y Speed=2\nNodeName=z Speed=3\nDefaultLatency=0.01\nLocalLatency=0.0001\n' >"$TMP/xyz.conf"
expect_exit 0 "ties" -- map "$TMP/farm.skel" --platform "$TMP/xyz.conf" --pin t0=x,t3=x --top 9
grep -E '^[0-9]+ ' "$TMP/out" | awk '{print $1, $3, $4, $5, $6, $7}' >"$TMP/ties"
printf '%s\n' '1 t0 x y z x' '1 t0 x z y x' '3 t0 x z z x' '4 t0 x y y x' '5 t0 x x z x' \
    '5 t0 x z x x' '7 t0 x x y x' '7 t0 x y x x' '9 t0 x x x x' >"$TMP/ties.want"
if cmp -s "$TMP/ties" "$TMP/ties.want"; then ok; else fail "ties in node order"; diff "$TMP/ties.want" "$TMP/ties" | sed 's/^/  | /'; fi
# the plugin's prediction picks the same first of the tied placements
printf '#!/bin/sh\n#SKEL pipe(3);\n#SKEL task("a", 1.0);\n#SKEL farm(2, "w", 1.0);\n#SKEL task("c", 1.0);\n#SKEL --pin t0=x,t3=x\nsrun true\n' >"$TMP/farm.sh"
expect_exit 0 "plan ties" -- plan "$TMP/farm.sh" --conf "$TMP/xyz.conf"
# the decision is anytime within the plugin's 0.5 s: under valgrind beside
# other jobs it once stopped before the first tied placement in node order
# and answered the other, equally good one, saying so; only there is either
# tied plan accepted
if [ "${VALGRIND:-0}" = 1 ] && grep -q "best found within the decision time" "$TMP/out"; then
    expect_out "plan ties (unfinished)" '^SKEL_PLAN=t0=x t1=(y t2=z|z t2=y) t3=x$'
    expect_out "plan ties (unfinished)" '^SKEL_THROUGHPUT=0\.498477$'
else
    expect_out "plan ties" '^SKEL_PLAN=t0=x t1=y t2=z t3=x$'
fi

# never a progress bar when stderr is not a terminal
expect_exit 0 "no bar" -- map "$SK" --platform "$PL"
if [ -s "$TMP/err" ]; then fail "no bar: stderr not empty"; else ok; fi

# the job's buffering is in the chain searched (docs/mapping.md): with 3
# items per move the slow link is overlapped and the tasks spread out,
# as `solve --buffer 3` of each placement says; rendezvous co-locates them
printf 'pipe(2); task("a", 10.0); task("b", 10.0);\n' >"$TMP/p2.skel"
printf 'LocalLatency=0.001 DefaultLatency=0.05\nNodeName=n1 Speed=2\nNodeName=n2 Speed=1.5\n' >"$TMP/p2.conf"
expect_exit 0 "buffer" -- map "$TMP/p2.skel" --platform "$TMP/p2.conf" --buffer 3 --top 1
expect_out "buffer best" "^1 +13\.3126[0-9]* +t[01] +n2 n1$"
expect_exit 0 "buffer solve" -- solve "$TMP/p2.skel" --platform "$TMP/p2.conf" --buffer 3 --place t0=n2,t1=n1
expect_out "buffer solve" "^comp_1 +13\.3126"
expect_exit 0 "rendezvous" -- map "$TMP/p2.skel" --platform "$TMP/p2.conf" --buffer 0 --top 1
expect_out "rendezvous best" "^1 +9\.90099[0-9]* +t0 +n1 n1$"
expect_exit 1 "bad buffer" -- map "$TMP/p2.skel" --platform "$TMP/p2.conf" --buffer 17
expect_err "bad buffer" "--buffer must be a whole number of items from 0 to 16"

# beyond the chain, on buffered links with phases: the large-scale search
# and the plugin's decision (`plan`, MaxStates= below the chain) answer
# with a placement of every task (docs/approximation.md)
awk 'BEGIN { printf "pipe(8);"; for (i = 0; i < 8; i++) printf " task(\"t%d\", %d);", i, 1 + i % 5; print "" }' > "$TMP/p8.skel"
printf 'Budget=2000\nMaxStates=1000\nDefaultBuffer=2 LinkSCV=0.5\nNodeName=x Speed=1\nNodeName=y Speed=2\nNodeName=w[1-4] Speed=4\nDefaultLatency=0.01\nLocalLatency=0.0001\n' > "$TMP/buf.conf"
expect_exit 0 "buffer large-scale" -- map "$TMP/p8.skel" --platform "$TMP/buf.conf" --budget 2 --top 1
expect_out "buffer large-scale method" "^method +approximate"
expect_out "buffer large-scale answer" "^1 +[0-9.]+ +t[0-9] +([a-z0-9]+ ){7}[a-z0-9]+$"
{ printf '#!/bin/sh\n'; sed 's/^/#SKEL /; s/; /;\n#SKEL /g' "$TMP/p8.skel"; printf 'srun true\n'; } > "$TMP/p8.sh"
expect_exit 0 "buffer plan" -- plan "$TMP/p8.sh" --conf "$TMP/buf.conf"
expect_out "buffer plan placed" "^SKEL_PLAN=t0=[a-z0-9]+ t1=.* t7=[a-z0-9]+$"
expect_out "buffer plan approximate" "placed by the approximate search"

# a par in the search (docs/mapping.md "A par in the search"): the BPEL
# corpus's purchase process (10,434 states) with its chain refused by
# --max-states; the answer's throughput is the approximation's value of its
# placement (its par's block held whole: the search's time affords it),
# within 5% of that placement's exact throughput (the old code: the bound's
# value, +63.7%)
printf 'pipe(3); task("receive", 2); par(3);\n pipe(2); task("ship1", 1); task("ship2", 3);\n pipe(3); task("inv1", 2); task("inv2", 1); task("inv3", 4);\n pipe(2); task("sched1", 3); task("sched2", 1.5);\ntask("reply", 2);\n' > "$TMP/purchase.skel"
printf 'LocalLatency=0.001\nDefaultLatency=0.05\nInput=local\nOutput=local\nNodeName=a Speed=1\nNodeName=b Speed=2\nNodeName=c Speed=2\nNodeName=d Speed=4\n' > "$TMP/p4.conf"
expect_exit 0 "par search" -- map "$TMP/purchase.skel" --platform "$TMP/p4.conf" --max-states 5000 --top 1
expect_out "par search method" "^method +approximate: .*more than 5000 states"
expect_out "par search evaluator" "valued by the analytical approximation"
cp "$TMP/out" "$TMP/par.out"
x=$(awk '$1 == "1" { print $2 }' "$TMP/out")
place=$(awk '$1 == "1" { for (i = 4; i <= NF; i++) printf "%st%d=%s", (i > 4 ? "," : ""), i - 4, $i }' "$TMP/out")
expect_exit 0 "par search exact" -- solve "$TMP/purchase.skel" --platform "$TMP/p4.conf" --place "$place"
ex=$(awk '$1 == "comp_0" { print $2 }' "$TMP/out")
if awk -v x="$x" -v e="$ex" 'BEGIN { d = x / e - 1; exit !(e > 0 && d <= 0.05 && d >= -0.05) }'; then ok; else
    fail "par search: answer $x, exact $ex of its placement $place"; fi
# its utilisations (docs/mapping.md "Utilisations of an estimate"): the par's
# visit ratios are known (every branch once per item), so the answer's
# node utilisations and bottleneck are those of the exact chain at the same
# placement (all tasks pinned, the chain fits: 10,434 states) to 1e-6 (the old
# code: 0.000000 on every node, bottleneck t0, as if idle)
pins=$(echo "$place" | sed 's/,/ --pin /g')
# shellcheck disable=SC2086
expect_exit 0 "par search utilisation exact" -- map "$TMP/purchase.skel" --platform "$TMP/p4.conf" --top 1 --pin $pins
expect_out "par search utilisation exact" "^optimal +yes"
awk '/^utilisation of/ { u = 1; next } u && NF == 2 { print $1, $2 } $1 == "1" { print "bottleneck", $3 }' "$TMP/out" > "$TMP/util.exact"
awk '/^utilisation of/ { u = 1; next } u && NF == 2 { print $1, $2 } $1 == "1" { print "bottleneck", $3 }' "$TMP/par.out" > "$TMP/util.approx"
if [ "$(wc -l < "$TMP/util.exact")" -eq 5 ] && grep -q '^bottleneck t[0-9]$' "$TMP/util.exact" &&
   awk 'NR == FNR { e[$1] = $2; next }
        !($1 in e) { exit 1 }
        $1 == "bottleneck" { if ($2 != e[$1]) exit 1; next }
        { d = $2 - e[$1]; if (!(e[$1] > 0.1) || d > 1e-6 || d < -1e-6) exit 1; n++ }
        END { exit n != 4 }' "$TMP/util.exact" "$TMP/util.approx"; then ok; else
    fail "par search utilisation: approximate answer"; sed 's/^/  | approx /' "$TMP/util.approx"
    sed 's/^/  | exact /' "$TMP/util.exact"; fi
expect_exit 0 "par search json" -- map "$TMP/purchase.skel" --platform "$TMP/p4.conf" --max-states 5000 --top 1 --json
expect_out "par search json bottleneck" '"bottleneck": "t[0-9]", "utilisation": \{"a": 0\.[1-9]'
# a farm's workers' visit ratios are not known to the estimate (the
# placement sets their shares): their utilisations and nodes' are "-"
# (JSON null) and no bottleneck is named, never 0 nor an argmax of the rest
printf 'pipe(2); task("a", 2); par(2); farm(3, "w", 3); task("c", 1);\n' > "$TMP/parfarm.skel"
expect_exit 0 "unknown utilisation" -- map "$TMP/parfarm.skel" --platform "$TMP/p4.conf" --max-states 20 --top 1
expect_out "unknown utilisation method" "^method +approximate"
expect_out "unknown utilisation bottleneck" "^1 +[0-9.]+ +- +"
expect_out "unknown utilisation node" "^  [a-d] +-$"
if grep -Eq '^  [a-d] +0\.0+$' "$TMP/out"; then fail "unknown utilisation: a node at 0"; else ok; fi
expect_exit 0 "unknown utilisation json" -- map "$TMP/parfarm.skel" --platform "$TMP/p4.conf" --max-states 20 --top 1 --json
expect_out "unknown utilisation json" '"bottleneck": null, "utilisation": \{.*null.*"task_utilisation": \[[0-9.]+, (null|[0-9.]+)'
expect_out "unknown utilisation json task" '"task_utilisation": \[[^]]*null'
# A task's utilisation is a time fraction, at most 1, in an exact answer
# and an estimate alike (skeleton/search.c search_utils). A farm, a deal
# and a last task on identical8 under static sharing, the chain refused,
# the placement pinned: z (rate 1) shares n1 with the deal's e3, so it
# computes at 0.5 and the job can pass at most 0.5 items/s, but the
# approximation estimates 0.525269 (+5.1%): z's X_i / mu_i is 1.050537,
# shown as 1, and n1's work over capacity counts z's 0.5 of it
# (0.558363 = 0.5 + e3's 0.058363). (Small, so that the search values it
# by the approximation, not the bound, under ASan too: about 1 s there.)
printf 'pipe(3); farm(3, "f", 3.0); deal(3, "e", 3.0); task("z", 1.0);\n' > "$TMP/overcap.skel"
expect_exit 0 "estimate over capacity" -- map "$TMP/overcap.skel" --platform "$E/platforms/identical8.conf" \
    --sharing static --max-states 2 --top 1 --pin t0=n6,t1=n2,t2=n3,t3=n7,t4=n2,t5=n1,t6=n1 --json
expect_out "estimate over capacity method" '"method": "approximate"'
expect_out "estimate over capacity throughput" '"best": \{[^}]*"throughput": 0\.52526'
expect_out "estimate over capacity z" '"task_utilisation": \[[^]]*, 1\]'
expect_out "estimate over capacity n1" '"n1": 0\.55836'
expect_exit 2 "bad max-states" -- map "$TMP/purchase.skel" --platform "$TMP/p4.conf" --max-states 0
expect_err "bad max-states" "--max-states must be 1 .. 100000000$"
# the plugin's MaxStates= range (SLURMSK_MAX_STATES_LIMIT), not 4e9
expect_exit 2 "max-states past MaxStates" -- map "$TMP/purchase.skel" --platform "$TMP/p4.conf" --max-states 100000001
expect_err "max-states past MaxStates" "^skelsched map: --max-states must be 1 .. 100000000$"

finish
