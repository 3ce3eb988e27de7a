#!/bin/sh
# skelsched bpel, end to end: the corpus, the bundled example, options,
# side files and hostile input.
. "$SRCDIR/tests/cli/lib.sh"
C="$SHARED_DIR/corpus/bpel"
E="$SRCDIR/examples/bpel/order.bpel"

expect_exit 0 "bpel help" -- bpel --help
expect_out "bpel help" "--params"
expect_exit 0 "help lists bpel" -- --help
expect_out "help lists bpel" "^  bpel "
expect_exit 2 "bpel without file" -- bpel
expect_exit 2 "bad emit" -- bpel --emit xml "$E"
expect_exit 2 "unknown option" -- bpel --frob "$E"

# the annotated example: no defaults, a hand-checked skeleton
expect_exit 0 "example" -- bpel "$E"
expect_out "example pipe" "^pipe\(6\);$"
expect_out "example par" "^	par\(2\);$"
expect_out "example review" "task\(\"manualReview\", 2\.5\);"
expect_out "example forEach" "^	par\(3\);$"
expect_out "example forEach copies" "^		task\(\"packParcel\", 3\);$"
expect_out "example loop" "^	loop\(1\.5\);$"
expect_out "example loop body" "^		task\(\"bookCarrier\", 6\);$"
if [ -s "$TMP/err" ]; then fail "example: unexpected warning"; sed 's/^/  | /' "$TMP/err"; else ok; fi
expect_exit 0 "example tree" -- bpel --emit tree "$E"
expect_out "tree deal" "^  deal forEach \"pack\" /process/sequence\[1\]/forEach\[1\] line=[0-9]+ workers=3$"
expect_exit 0 "example pepa" -- bpel --emit pepa "$E"
expect_out "pepa processors" "^Processor0 = \(comp_0, mu_0\)\.Processor0;"
cp "$TMP/out" "$TMP/order.pepa"
expect_exit 0 "example solves" -- solve "$TMP/order.pepa"
expect_out "example throughput" "^comp_0 +0\.2079074"

# solve (and the other analysis commands) accept a .bpel file directly
expect_exit 0 "solve bpel" -- solve "$E"
expect_out "solve bpel throughput" "^comp_0 +0\.2079074"

# every corpus file imports (defaults reported once) and its model solves
for f in "$C"/*.bpel; do
    b=$(basename "$f")
    expect_exit 0 "$b" -- bpel --emit pepa "$f"
    expect_err "$b warning" "^$f: warning: [0-9]+ performance parameters? missing, defaults used:$"
    n=$(grep -c 'performance parameter' "$TMP/err")
    if [ "$n" -eq 1 ]; then ok; else fail "$b: $n missing-parameter warnings, expected one"; fi
    # one parameter a line, the file named once per warning
    if grep -v "^  \(/process\|link \)[^ ]* .*=[0-9.]*$" "$TMP/err" | grep -qv "^$f"; then
        fail "$b: a warning line names no file and is no parameter"; sed 's/^/  | /' "$TMP/err"
    else ok; fi
    cp "$TMP/out" "$TMP/m.pepa"
    expect_exit 0 "$b solves" -- solve "$TMP/m.pepa"
    expect_out "$b throughput" "^comp_0 +[0-9]"
done

# a side file keyed by name and by generated path
cat >"$TMP/side" <<'P'
# rates for the loan example (BPEL 2.0 spec)
/process/flow[1]/receive[1] arrival=0.5
/process/flow[1]/invoke[1] rate=2
/process/flow[1]/invoke[2] rate=4
/process/flow[1]/reply[1] rate=8
receive-to-assess prob=0.6      # small loans go to the assessor
receive-to-approval prob=0.4
assess-to-setMessage prob=0.7   # low risk
assess-to-approval prob=0.3
P
expect_exit 0 "side file" -- bpel --params "$TMP/side" "$C/spec20-loanApprovalProcess.bpel"
expect_out "side file rate" "task\(\"/process/flow\[1\]/invoke\[1\]\", 3\.33333"
# approval runs for 0.4 + 0.6 * 0.3 = 0.58 of the loans: 4 / 0.58
expect_out "side file link" "task\(\"/process/flow\[1\]/invoke\[2\]\", 6\.896551"
expect_out "side file reply" "task\(\"/process/flow\[1\]/reply\[1\]\", 8\);"
if [ -s "$TMP/err" ]; then fail "side file: unexpected warning"; sed 's/^/  | /' "$TMP/err"; else ok; fi
# the spec's purchase order links activities of different sequences: said
expect_exit 0 "non-sibling links" -- bpel "$C/spec20-purchaseOrderProcess.bpel"
expect_err "non-sibling links" "spec20-purchaseOrderProcess.bpel:107: warning: link 'ship-to-invoice' from <invoke .*> \(line 104\) to <invoke .*> \(line 134\) joins activities that are not children of the same <flow>: ignored"
# a side-file entry nothing reads: file and line
printf '/process/flow[1]/receive[1] arrival=0.5\n/process/flow[1]/invok[1] rate=2\n' >"$TMP/typo"
expect_exit 0 "side file typo" -- bpel --params "$TMP/typo" "$C/spec20-loanApprovalProcess.bpel"
expect_err "side file typo" "typo:2: warning: no activity or link is named '/process/flow\[1\]/invok\[1\]' or has that path: ignored"
printf 'x speed=2\n' >"$TMP/bad"
expect_exit 1 "bad side file" -- bpel --params "$TMP/bad" "$E"
expect_err "bad side file message" "bad:1:3: unknown key 'speed'"

# hostile input: rejected with a message naming the file, nothing fetched
printf '<!DOCTYPE p [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<process xmlns="http://docs.oasis-open.org/wsbpel/2.0/process/executable"><empty name="&x;"/></process>\n' >"$TMP/xxe.bpel"
expect_exit 1 "xxe" -- bpel "$TMP/xxe.bpel"
expect_err "xxe message" "xxe.bpel:1: DOCTYPE declarations are not accepted"
if grep -q root: "$TMP/out" "$TMP/err"; then fail "xxe expanded"; else ok; fi
printf '<process xmlns="http://docs.oasis-open.org/wsbpel/2.0/process/executable"><empty/></process>' | gzip -c >"$TMP/z.bpel"
expect_exit 1 "gzip" -- bpel "$TMP/z.bpel"
expect_err "gzip message" "compressed file"
printf '<process xmlns="urn:x"/>' >"$TMP/other.bpel"
expect_exit 1 "not bpel" -- bpel "$TMP/other.bpel"
expect_err "not bpel message" "other.bpel:1: the root element is <process> in namespace 'urn:x'"
expect_exit 1 "missing file" -- bpel "$TMP/nonexistent.bpel"
expect_err "missing file message" "cannot open"

finish
