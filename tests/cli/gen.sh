#!/bin/sh
# skelsched gen end to end: the examples and the wflow2pepa corpus generate;
# exit codes 0 / 1 (bad input, file:line:col on stderr) / 2 (usage).
. "$SRCDIR/tests/cli/lib.sh"
S="$SRCDIR/examples/skeletons"
P="$SRCDIR/examples/platforms"

# has NAME STRING: the last stdout contains STRING (fixed, not a regex)
has() {
    if grep -Fq -- "$2" "$TMP/out"; then ok; else fail "$1: stdout lacks '$2'"; head -20 "$TMP/out" | sed 's/^/  | /'; fi
}
# err_has NAME STRING: the last stderr contains STRING
err_has() {
    if grep -Fq -- "$2" "$TMP/err"; then ok; else fail "$1: stderr lacks '$2'"; sed 's/^/  | /' "$TMP/err" | head -5; fi
}

# Yaikhom et al. 2007, Fig. 4: the rate-1 network without a platform
expect_exit 0 "fig4" -- gen "$S/fig4.skel"
has "fig4 task" "Task0 = (comp_0, infty).(move_0_1, infty).Task0;"
has "fig4 system" "Network <move_0_1, move_1_2, move_2_3, move_3_4> (Task0 <move_0_1> Task1"
has "fig4 rate" "mu_1 = 3.0;"
has "fig4 network" "lambda_3_4 = 1.0;"

# par, choice and loop (docs/skeleton-language.md): the fork, the join, the
# weighted decision and the repeated computation, as written by hand there
expect_exit 0 "orchestration" -- gen "$S/orchestration.skel"
has "fork" "Task0_1 = (move_0_1, infty).Task0_2 + (move_0_2, infty).Task0_3;"
has "join" "Task3 = (move_1_3, infty).Task3_1 + (move_2_3, infty).Task3_2;"
has "decision" "Task3_3 = (comp_3, 0.9 * infty).Task3_4 + (comp_3, 0.1 * infty).Task3_5;"
has "repeat" "(comp_6, 0.33333333333333337 * infty).Task6_1"
expect_exit 0 "orchestration map" -- map "$S/orchestration.skel" --platform "$P/cluster.conf" --budget 2
has "orchestration ranks" "rank  throughput"
printf 'pipe(2); task("a", 1); loop(2, cap=3); pipe(2); task("b", 1); task("c", 1);\n' >"$TMP/cap.skel"
expect_exit 1 "loop cap" -- gen "$TMP/cap.skel"
err_has "loop cap message" "cap.skel:1:24: cap=3: a loop over 2 tasks holds at most 1 items at once"

# Benoit et al. 2004 on its platform, stream style, two stages sharing p1
expect_exit 0 "three processors" -- gen "$S/pipeline3.skel" --style stream \
    --platform "$P/three-processors.conf" --place t0=p1,t1=p1,t2=p2
has "three processors shared node" "mu_0 = 5.0;"
has "three processors input" "lambda_in_0 = 10000.0;"
has "three processors stage" "Task0 = (move_in_0, infty).(comp_0, infty).(move_0_1, infty).Task0;"

expect_exit 0 "option=value forms" -- gen "$S/replicated.skel" --style=stream \
    --platform="$P/cluster.conf" --place=t0=io1
has "bandwidth" "lambda_0_1 = 95.238095238095"
expect_exit 0 "fig2" -- gen "$S/fig2.skel"
has "fig2 consumer" "Task12 = (move_9_12, infty).(comp_12, infty).(move_10_12, infty)"

# standard input
if $RUN gen - <"$S/fig4.skel" >"$TMP/out" 2>"$TMP/err"; then ok; else fail "stdin"; fi
has "stdin" "Task4 = (move_3_4, infty).(comp_4, infty).Task4;"

# the corpus, both styles
if [ -d "$SHARED_DIR/corpus/wflow2pepa" ]; then
    for f in "$SHARED_DIR"/corpus/wflow2pepa/*.des; do
        expect_exit 0 "$(basename "$f")" -- gen "$f"
        expect_exit 0 "$(basename "$f") stream" -- gen "$f" --style stream
    done
else
    fail "no corpus at $SHARED_DIR/corpus/wflow2pepa"
fi

# bad input: exit 1, file:line:col
printf 'pipe(2);\n  task("a", 1.0);\n' >"$TMP/short.skel"
expect_exit 1 "missing component" -- gen "$TMP/short.skel"
err_has "missing component" "short.skel:1:1: pipe(2) has only 1 of its 2 components"
printf 'task("a", 1.0 - 1);\n' >"$TMP/rate.skel"
expect_exit 1 "zero rate" -- gen "$TMP/rate.skel"
err_has "zero rate" "rate.skel:1:11: the rate of a task must be positive (got 0)"
printf 'NodeName=a\nLatency=2\n' >"$TMP/bad.conf"
expect_exit 1 "bad platform" -- gen "$S/fig4.skel" --platform "$TMP/bad.conf"
err_has "bad platform" "bad.conf:2:1: Latency= belongs on a Link= line"
expect_exit 1 "unknown node" -- gen "$S/fig4.skel" --place t0=nowhere
err_has "unknown node" "no node nowhere"
expect_exit 1 "missing file" -- gen "$TMP/none.skel"

# Sharing=ps (default): stages 1 and 3 share fast1 and are one component
# that offers each computation at mu_i / (stages computing); static: Benoit et al. 2004
PLACE="--style stream --platform $SRCDIR/examples/platforms/cluster.conf --place t0=fast1,t1=fast2,t2=fast1"
expect_exit 0 "ps gen" -- gen $PLACE "$S/pipeline3.skel"
expect_out "ps gen" '^Node1_4 = \(comp_0, mu_0 / 2\.0\)\.Node1_6 \+ \(comp_2, mu_2 / 2\.0\)\.Node1_7;$'
expect_out "ps gen" '^mu_0 = 10\.0;$'
expect_exit 0 "ps solve" -- solve $PLACE "$S/pipeline3.skel"
expect_out "ps solve" '^comp_0 +4\.344151679$'
expect_out "ps solve" '^states +27$'
expect_exit 0 "static solve" -- solve $PLACE --sharing static "$S/pipeline3.skel"
expect_out "static solve" '^comp_0 +3\.365066329$'
printf 'Sharing=static\n' | cat - "$SRCDIR/examples/platforms/cluster.conf" >"$TMP/static.conf"
expect_exit 0 "static key" -- solve --style stream --platform "$TMP/static.conf" --place t0=fast1,t1=fast2,t2=fast1 "$S/pipeline3.skel"
expect_out "static key" '^comp_0 +3\.365066329$'
expect_exit 0 "option over key" -- solve --style stream --platform "$TMP/static.conf" --place t0=fast1,t1=fast2,t2=fast1 --sharing ps "$S/pipeline3.skel"
expect_out "option over key" '^comp_0 +4\.344151679$'
printf 'Sharing=fair\nNodeName=a\n' >"$TMP/fair.conf"
expect_exit 1 "bad sharing" -- gen "$S/fig4.skel" --platform "$TMP/fair.conf"
err_has "bad sharing" "fair.conf:1:9: Sharing= must be ps or static, not 'fair'"
expect_exit 2 "bad sharing option" -- gen "$S/fig4.skel" --sharing fair

# ps with Erlang and H2 work inside Node<j> components: the exact chain's
# throughput within the 95% interval of the Gillespie simulation of the
# same model (an independent engine; fixed seed, so deterministic)
printf 'pipe(5); task("a", 2.0, scv=0.25); task("b", 1.5, scv=0.25); task("c", 2.5, scv=4);\n task("d", 1.0, scv=0.5); task("e", 2.0);\n' >"$TMP/var.skel"
VAR="--style stream --platform $SRCDIR/examples/platforms/cluster.conf --place t0=n01,t1=n01,t2=n02,t3=n02,t4=n01"
expect_exit 0 "variable exact" -- solve $VAR "$TMP/var.skel"
exact=$(awk '$1 == "comp_0" { print $2 }' "$TMP/out")
expect_exit 0 "variable simulated" -- simulate $VAR --events 200000 --reps 10 --no-local "$TMP/var.skel"
if awk -v x="$exact" '$1 == "comp_0" { d = $2 - x; if (d < 0) d = -d; ok = x > 0 && d <= $3 } END { exit !ok }' "$TMP/out"; then
    ok
else
    fail "variable: exact $exact outside the simulation's interval: $(grep '^comp_0' "$TMP/out")"
fi

# usage: exit 2
expect_exit 2 "no argument" -- gen
expect_exit 2 "bad style" -- gen "$S/fig4.skel" --style fast
expect_exit 2 "unknown option" -- gen "$S/fig4.skel" --frobnicate
expect_exit 2 "two files" -- gen a.skel b.skel
expect_exit 2 "option without value" -- gen "$S/fig4.skel" --platform
expect_exit 0 "help" -- gen --help
has "help" "usage: skelsched gen"

finish
