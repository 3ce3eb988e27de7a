#!/bin/sh
# skelsched estimate: the seeds' analytic models beside the Markov model.
. "$SRCDIR/tests/cli/lib.sh"
E="$SRCDIR/examples"
SK="$E/skeletons/pipeline3.skel"
PL="$E/platforms/three-processors.conf"

expect_exit 0 "help" -- estimate --help
expect_out "help" "Alt et al. 2002"
expect_exit 0 "help lists estimate" -- --help
expect_out "help lists estimate" "^  estimate "

# Benoit et al. 2004's pipeline on its three processors of speed 10 (0.1 s a stage),
# moves 0.0001 s: Darlington et al. 1993 and Zavanella 1999 give 1/(0.1 + 0.0001), Alt et al. 2002 counts
# the move twice (2 t_s); the Markov model gives the paper's 5.63467
expect_exit 0 "table" -- estimate "$SK" --platform "$PL" --style stream --place t0=p1,t1=p2,t2=p3
expect_out "markov" '^markov +5\.6346[67]'
expect_out "darlington" '^darlington +9\.9900[01][0-9]* +\+77\.[0-9]%'
expect_out "p3l" '^p3l +9\.9900[01]'
expect_out "remote" '^remote +9\.98003'
expect_out "p3l farm" 'n\^ = 2 workers, k\^ = 1 items per task'

# all three on one node: the shared node slows Darlington et al. 1993 and Zavanella 1999, not 004
expect_exit 0 "shared" -- estimate "$SK" --platform "$PL" --style stream --place t0=p1,t1=p1,t2=p1
expect_out "shared darlington" '^darlington +3\.3322'
expect_out "shared remote" '^remote +9\.98003'
expect_out "remote choice" 'a server for each task: t0=p1 t1=p1 t2=p1'

expect_exit 0 "json" -- estimate "$SK" --platform "$PL" --style stream --json --items 50 --grain 2
expect_out "json" '^\{"skeleton": ".*", "markov": \{"throughput": 5\.6346'
if command -v python3 >/dev/null 2>&1; then
    if python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("darlington", "p3l", "remote"):
    assert d[k]["throughput"] > 0 and len(d[k]["task_time"]) == 3
assert d["implementation"]["pipe"] > 0 and d["implementation"]["farm"] > 0
assert d["farm_degree"]["n"] >= 1 and len(d["server_choice"]["servers"]) == 3
PY
    then ok; else fail "json content"; fi
fi

# the models' keys in the platform file
cat "$PL" >"$TMP/keys.conf"
printf 'SetupFixed=0.5 SetupPerNode=0.1 GcRate=0.01 GcTime=0.2 BspL=0.01 InterArrival=0.05 CodeSize=1000\n' >>"$TMP/keys.conf"
expect_exit 0 "keys" -- estimate "$SK" --platform "$TMP/keys.conf" --style stream --place t0=p1,t1=p2,t2=p3
expect_out "keys p3l" '^p3l +9\.0909'
expect_out "keys p3l" 'to reach T_e 0\.05 s'

# errors
expect_exit 2 "bad items" -- estimate "$SK" --items 0
expect_exit 2 "bad grain" -- estimate "$SK" --grain x
expect_exit 2 "no skeleton" -- estimate
expect_err "no skeleton" "^skelsched estimate: expected a skeleton description$"
expect_exit 1 "missing" -- estimate "$TMP/none.skel"
printf 'NodeName=a\nBspNHalf=1 BspNHalf=2\n' >"$TMP/dup.conf"
expect_exit 1 "dup key" -- estimate "$SK" --platform "$TMP/dup.conf"
expect_err "dup key" "dup.conf:2:12: BspNHalf= given twice"

finish
