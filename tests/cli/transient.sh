#!/bin/sh
# skelsched transient and skelsched fluid, end to end.
. "$SRCDIR/tests/cli/lib.sh"
C="$SHARED_DIR/corpus/pepa"
E="$SRCDIR/examples"

expect_exit 0 "transient help" -- transient --help
expect_out "transient help" "--method"
expect_exit 0 "fluid help" -- fluid --help
expect_exit 2 "transient without --until" -- transient "$C/pypepa/simple.pepa"
expect_exit 2 "bad method" -- transient --until 1 --method magic "$C/pypepa/simple.pepa"
expect_exit 2 "bad times" -- transient --times 2,1 "$C/pypepa/simple.pepa"
expect_exit 2 "csv and json" -- transient --until 1 --csv --json "$C/pypepa/simple.pepa"
expect_exit 1 "missing file" -- transient --until 1 "$TMP/nope.pepa"
# a number out of range says so (both exited 2 silently before)
expect_exit 2 "until out of range" -- transient --until -1 "$C/pypepa/simple.pepa"
expect_err "until out of range" "^skelsched transient: --until must be a positive, finite time, not '-1'$"
expect_exit 2 "points out of range" -- fluid --points 1 "$C/pypepa/simple.pepa"
expect_err "points out of range" "^skelsched fluid: --points must be 2 \\.\\. 10000000, not 1$"

# PC-LAN4: EXPECTED.md's transient values, both methods
for m in cvode uniformisation; do
    expect_exit 0 "pc-lan4 $m" -- transient --json --method $m --rtol 1e-10 --atol 1e-14 --times 10,100 "$C/prism/PC-LAN4.pepa"
    expect_out "pc-lan4 $m t=10" '"PC11": \[0\.07005041(59|60)'
    expect_out "pc-lan4 $m t=100" '"PC11": \[[0-9.e-]+, 0\.13288766'
    expect_out "pc-lan4 $m method" "\"method\": \"$m\""
    expect_out "pc-lan4 $m steps" '"steps": [1-9][0-9]*'
done
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["times"]) == 2' "$TMP/out"; then ok; else fail "json parses"; fi
fi

# table: steady state and settle times
expect_exit 0 "table" -- transient --until 20 --points 41 "$C/pypepa/simple.pepa"
expect_out "table steady state" "^a +1\.16666666"
# CSV header and rows
expect_exit 0 "csv" -- transient --until 2 --points 3 --csv "$C/pypepa/simple.pepa"
expect_out "csv header" "^time,throughput:a,"
expect_out "csv last row" "^2,"
# makespan of a skeleton
expect_exit 0 "makespan" -- transient --until 5 --points 6 --items 100 --json "$E/skeletons/fig4.skel"
expect_out "makespan" '"makespan": \{"items": 100, "action": "comp_[0-9]+", "time": [0-9.]+'
expect_exit 1 "items without action" -- transient --until 1 --items 10 "$C/pypepa/simple.pepa"
expect_err "items without action" "count-action"
# an action the model does not have is named, not read past the table's end
expect_exit 1 "unknown count action" -- transient --until 1 --items 10 --count-action nosuch "$C/pypepa/simple.pepa"
expect_err "unknown count action" "--count-action: no action 'nosuch' in the model"

# issue 17: CSV by RFC 4180 (local-state names hold commas)
expect_exit 0 "csv quoting" -- transient --until 1 --points 2 --csv "$SRCDIR/examples/pepa/pipeline3.pepa"
expect_out "csv quoting" ',"local:[^"]*\(process1, [^"]*",'
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1]))); sys.exit(len(set(map(len, r))) != 1)' "$TMP/out"; then ok; else
        fail "transient csv: rows and header differ in field count"; fi
fi
expect_exit 0 "fluid csv quoting" -- fluid --until 1 --points 2 --csv "$SRCDIR/examples/pepa/pipeline3.pepa"
expect_out "fluid csv quoting" ',"local:[^"]*\(process1, [^"]*",'
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1]))); sys.exit(len(set(map(len, r))) != 1)' "$TMP/out"; then ok; else
        fail "fluid csv: rows and header differ in field count"; fi
fi
# the fluid limit on single components: a warning
expect_exit 0 "fluid on single copies" -- fluid --until 10 "$SRCDIR/examples/pepa/pipeline3.pepa"
expect_err "fluid on single copies warns" "pipeline3.pepa: warning: the fluid approximation is the limit of large populations, but .* has 1 copy"

# fluid: the corpus fluid limits
expect_exit 0 "fluid array0" -- fluid --until 10 --json "$C/pepa-eclipse-plugin/array0.pepa"
expect_out "fluid array0 fixed point" '"fixed_point": \{"converged": true, "time": [0-9.e+]+, "throughput": \{"a": 3\.33333333'
expect_exit 0 "fluid aggregation" -- fluid --until 10 "$C/pepa-eclipse-plugin/aggregation.pepa"
expect_out "fluid aggregation" "^a +1\.33333333"
expect_exit 0 "fluid csv" -- fluid --until 1 --points 2 --csv "$C/pepa-eclipse-plugin/aggregation.pepa"
expect_out "fluid csv" "^time,throughput:a,throughput:b,local:P\[2\]:P,local:P\[2\]:P2$"
printf 'P = (a, 1.0).P; Q = (a, infty).Q; R = (a, 2.0).R;\n(P || Q) <a> R\n' >"$TMP/mixed.pepa"
expect_exit 1 "fluid refuses" -- fluid --until 1 "$TMP/mixed.pepa"
expect_err "fluid refuses" "active on one side and passive"

# plots (only where gnuplot is installed)
if command -v gnuplot >/dev/null 2>&1; then
    expect_exit 0 "plot svg" -- transient --until 10 --plot "$TMP/t.svg" "$C/pypepa/simple.pepa"
    if grep -q "<svg" "$TMP/t.svg" 2>/dev/null; then ok; else fail "plot svg written"; fi
    expect_exit 0 "fluid plot png" -- fluid --until 10 --plot "$TMP/f.png" "$C/pepa-eclipse-plugin/array0.pepa"
    if [ -s "$TMP/f.png" ]; then ok; else fail "plot png written"; fi
    expect_exit 1 "plot bad suffix" -- transient --until 1 --plot "$TMP/t.pdf" "$C/pypepa/simple.pepa"
    expect_err "plot bad suffix" "svg or \.png"
fi
PATH=/nonexistent expect_exit 1 "plot without gnuplot" -- transient --until 1 --plot "$TMP/x.svg" "$C/pypepa/simple.pepa"
expect_err "plot without gnuplot" "gnuplot"

finish
