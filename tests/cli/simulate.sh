#!/bin/sh
# skelsched simulate, end to end: options, errors, JSON, reproducibility,
# and the estimates against the exact `solve` on PEPA, skeleton and BPEL
# inputs. Runs are short (SKELSCHED_QUICK=1 shortens them further for the
# sanitizer and valgrind runs).
. "$SRCDIR/tests/cli/lib.sh"
C="$SHARED_DIR/corpus/pepa"
E="$SRCDIR/examples"
SIMPLE="$C/pypepa/simple.pepa"
if [ -n "${SKELSCHED_QUICK:-}" ]; then N=3000; else N=30000; fi

expect_exit 0 "help" -- simulate --help
expect_out "help" "--precision"
expect_exit 0 "listed" -- --help
expect_out "listed" "^  simulate "

# usage errors: exit 2 and a message naming the option
expect_exit 2 "no file" -- simulate
expect_err "no file" "expected one model"
expect_exit 2 "zero events" -- simulate --events 0 "$SIMPLE"
expect_err "zero events" "--events must be 1 \.\. "
expect_exit 2 "events and until" -- simulate --events 10 --until 5 "$SIMPLE"
expect_err "events and until" "exclude each other"
expect_exit 2 "one replication" -- simulate --reps 1 "$SIMPLE"
expect_err "one replication" "--reps must be 2 \.\. 100000"
expect_exit 2 "negative warm-up" -- simulate --warmup -1 "$SIMPLE"
expect_err "negative warm-up" "--warmup must be 0 or more"
expect_exit 2 "fractional warm-up" -- simulate --warmup 2.5 "$SIMPLE"
expect_err "fractional warm-up" "whole number of events"
expect_exit 2 "precision of 2" -- simulate --precision 2 "$SIMPLE"
expect_err "precision of 2" "--precision must be a fraction"
expect_exit 2 "bad until" -- simulate --until abc "$SIMPLE"
expect_err "bad until" "bad value for --until: 'abc'"
expect_exit 2 "zero threads" -- simulate --threads 0 "$SIMPLE"
expect_exit 2 "unknown option" -- simulate --frobnicate "$SIMPLE"
expect_err "unknown option" "unknown or incomplete option '--frobnicate'"

# bad input: exit 1 and a message naming the file
expect_exit 1 "missing file" -- simulate "$TMP/nope.pepa"
expect_err "missing file" "nope\.pepa"
printf 'P = (a, 1.0).P1; P1 = (b, 1.0).P;\nQ = (a, 1.0).Q1; Q1 = (c, 1.0).Q;\nP <a, b, c> Q\n' >"$TMP/dead.pepa"
expect_exit 1 "deadlock" -- simulate --events 100 "$TMP/dead.pepa"
expect_err "deadlock" "dead\.pepa: replication 1: the model deadlocks: after 1 events .* state \(P1, Q1\)"
printf 'P = (a, 1.0).P;\nP = (b, 1.0).P;\nP\n' >"$TMP/twice.pepa"
expect_exit 1 "syntax" -- simulate "$TMP/twice.pepa"
expect_err "syntax" "twice\.pepa:2:"
expect_exit 1 "bad placement" -- simulate --platform "$E/platforms/cluster.conf" --place t0=nowhere "$E/skeletons/pipeline3.skel"
expect_err "bad placement" "nowhere"

# the table: the documented example (docs/simulate.md)
expect_exit 0 "table" -- simulate --events 20000 --seed 7 "$SIMPLE"
expect_out "table header" "^replications 10 x 20000 events, after 2000 warm-up events each$"
expect_out "table seed" "^seed +7 \("
# the estimates use no libm (holding times 1/q, uniform draws): the same
# digits on every IEEE machine, as docs/simulate.md shows them
expect_out "table a" "^a +1\.163670649 +0\.00371 +0\.32%$"
expect_out "table b" "^b +1\.170906394 +0\.00471 +0\.4%$"
expect_out "table local" "^  P1 +0\.[45][0-9]+ "

# JSON parses; the same seed gives the same numbers on 1 and 2 threads
expect_exit 0 "json 1 thread" -- simulate --json --events $N --reps 4 --threads 1 "$C/pepa-eclipse-plugin/browser.pepa"
sed -e 's/"threads": [0-9]*, //' -e 's/, "time": .*//' "$TMP/out" >"$TMP/one.json"
expect_exit 0 "json 2 threads" -- simulate --json --events $N --reps 4 --threads 2 "$C/pepa-eclipse-plugin/browser.pepa"
sed -e 's/"threads": [0-9]*, //' -e 's/, "time": .*//' "$TMP/out" >"$TMP/two.json"
if cmp -s "$TMP/one.json" "$TMP/two.json"; then ok; else fail "1 and 2 threads differ"; fi
expect_out "json fields" '"replications": 4, "threads": 2, "measured_events": [0-9]+, '
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["throughput"]["get"]["half_width"] > 0' "$TMP/out"
    then ok; else fail "json parses"; fi
fi
expect_exit 0 "another seed" -- simulate --json --seed 2 --events $N --reps 4 "$C/pepa-eclipse-plugin/browser.pepa"
sed -e 's/"threads": [0-9]*, //' -e 's/, "time": .*//' "$TMP/out" >"$TMP/seed2.json"
if cmp -s "$TMP/one.json" "$TMP/seed2.json"; then fail "seed 2 gives seed 1's numbers"; else ok; fi

# the exact throughput inside 2 half-widths (stated in tests/unit/test_sim.c)
# for a PEPA model, a placed skeleton and a BPEL process
cross_check() {
    name=$1; shift
    expect_exit 0 "$name solve" -- solve --json "$@"
    cp "$TMP/out" "$TMP/exact.json"
    expect_exit 0 "$name simulate" -- simulate --json --seed 5 --reps 20 --events $N "$@"
    command -v python3 >/dev/null 2>&1 || return 0
    if python3 - "$TMP/exact.json" "$TMP/out" <<'EOF'
import json, sys
exact = json.load(open(sys.argv[1]))["throughput"]
sim = json.load(open(sys.argv[2]))["throughput"]
bad = [a for a, v in exact.items() if v > 0 and abs(sim[a]["mean"] - v) > 2 * sim[a]["half_width"] + 1e-3 * v]
if bad:
    print("outside:", [(a, exact[a], sim[a]) for a in bad])
    sys.exit(1)
EOF
    then ok; else fail "$name: exact outside the interval"; fi
}
cross_check "lan4" "$C/pepa-eclipse-plugin/lan4.pepa"
cross_check "skeleton" --platform "$E/platforms/cluster.conf" --place t0=fast1,t1=n01,t2=fast2 "$E/skeletons/pipeline3.skel"
cross_check "bpel" "$E/bpel/order.bpel"
# a one-server loop over a pipe whose body shares a node under Sharing=ps
# (it segfaulted before 27 November: the node's product lacked the gate)
printf 'pipe(3); task("a",2.0); loop(1.5); pipe(2); task("b",3.0); task("c",4.0); task("d",1.0);\n' > "$TMP/loop1.skel"
printf 'LocalLatency=0.01 DefaultLatency=0.05 Input=h0 Output=h1\nNodeName=h0 Speed=2\nNodeName=h1 Speed=3\nNodeName=h2 Speed=4\n' > "$TMP/loop1.conf"
cross_check "loop body shared" --platform "$TMP/loop1.conf" --place t0=h0,t1=h2,t2=h2,t3=h1 "$TMP/loop1.skel"

# simulated time instead of events; a precision target, for all actions or one
expect_exit 1 "precision on nothing" -- simulate --precision 0.1 --precision-on nope "$SIMPLE"
expect_err "precision on nothing" "simple\.pepa: --precision-on: no action .nope. in the model"
expect_exit 0 "precision on a" -- simulate --json --events 1000 --precision 0.01 --precision-on a "$SIMPLE"
expect_out "precision on a" "\"precision_met\": true"
expect_exit 0 "until" -- simulate --until 2000 --warmup 10 --reps 3 "$SIMPLE"
expect_out "until" "^replications 3 x 200[0-9.]+ time units, after 10 of warm-up each$"
expect_exit 0 "precision" -- simulate --json --events 1000 --precision 0.02 --no-local "$SIMPLE"
expect_out "precision" '"precision_met": true'
if grep -q '"local"' "$TMP/out"; then fail "--no-local printed local states"; else ok; fi
expect_exit 0 "precision out of reach" -- simulate --events 1000 --precision 0.000001 --time-limit 0.3 --no-local "$SIMPLE"
expect_err "precision out of reach" "warning: --precision 1e-06 not reached within --time-limit 0\.3 s: the widest throughput interval is [0-9.e-]+ of its mean"


# a model far beyond the exact chain (Yaikhom et al. 2007's model2, over 110 M states)
expect_exit 0 "model2" -- simulate --events $((N / 10)) --reps 2 --no-local "$SHARED_DIR/corpus/wflow2pepa/model2.des"
expect_out "model2" "^comp_18 +0\.[0-9]+"

finish
