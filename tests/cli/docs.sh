#!/bin/sh
# The documentation's examples are real: every command shown with its
# output in README.md and docs/*.md is run, and its output compared with
# what the page shows.
#
# A shown example is a fenced block (```) whose first line starts with "$ ".
# Each "$ " line is a command (a line ending in "\" continues it); the
# lines up to the next "$ " line are its output, stdout and stderr together.
# The command runs with sh in a scratch directory where examples/, docs/ and
# ./skelsched are the tree's and ../shared is the shared corpora, so a page
# writes "./skelsched solve examples/pepa/pipeline3.pepa" and files a
# command writes stay in the scratch directory. Commands of one page run in
# order, in one directory.
#
# What varies from run to run is elided on the page, narrowly:
#   - "..." inside a line matches any text within that line
#     (e.g. "time         parse ... s, derive ... s, solve ... s");
#   - a line that is only "..." matches any number of lines.
# Trailing blanks are ignored. Nothing else is: a number, a column or a
# line that changes makes this test fail, naming the page, the block's line
# and the first line that differs, so whoever changes an output updates the
# page in the same commit.
. "$SRCDIR/tests/cli/lib.sh"

W=$TMP/work
mkdir -p "$W" "$TMP/blocks"
ln -s "$SRCDIR/examples" "$W/examples"
ln -s "$SRCDIR/docs" "$W/docs"
ln -s "$SHARED_DIR" "$TMP/shared"
# ./skelsched and skelsched (on PATH): the built one, under valgrind if asked
printf '#!/bin/sh\nexec %s "$@"\n' "$RUN" >"$W/skelsched"
chmod +x "$W/skelsched"
PATH=$W:$PATH
export PATH

# extract PAGE: write $TMP/blocks/N.cmd, N.exp, N.where for each command
extract() {
    awk -v page="$1" -v dir="$TMP/blocks" -v n="$2" '
        function flush() { if (cmd != "") { n++; print cmd > (dir "/" n ".cmd"); close(dir "/" n ".cmd")
                               printf "%s", text > (dir "/" n ".exp"); close(dir "/" n ".exp")
                               print page ":" at > (dir "/" n ".where"); close(dir "/" n ".where") }
                           cmd = ""; text = ""; cont = 0 }
        /^```/ { if (!fence) { fence = 1; first = 1; shown = 0 } else { flush(); fence = 0 }; next }
        !fence { next }
        first { first = 0; shown = ($0 ~ /^\$ /) }
        !shown { next }
        cont { cmd = cmd "\n" $0; cont = ($0 ~ /\\$/); next }
        /^\$ / { flush(); cmd = substr($0, 3); at = NR; cont = ($0 ~ /\\$/); next }
        { text = text $0 "\n" }
        END { print n > (dir "/count") }' "$SRCDIR/$1"
}

# match EXPECTED GOT: exit 0 when GOT matches EXPECTED under the elision
# rules; else print the first difference
match() {
    awk -v expfile="$1" '
        function rx(s,   out, i, c) {   # a page line as an anchored regex
            sub(/[ \t]+$/, "", s); out = ""
            while ((i = index(s, "...")) > 0) { out = out quote(substr(s, 1, i - 1)) ".*"; s = substr(s, i + 3) }
            return "^" out quote(s) "$"
        }
        function quote(s,   out, i, c) {
            out = ""
            for (i = 1; i <= length(s); i++) {
                c = substr(s, i, 1)
                if (c == "\\") out = out "\\\\"
                else if (c == "^") out = out "\\^"
                else if (index("$.[]|()*+?{}/", c)) out = out "[" c "]"
                else out = out c
            }
            return out
        }
        function m(i, j,   k) {   # expected lines i.., got lines j..
            if (i > ne) { if (j <= ng && i > bi) { bi = i; bj = j }; return j > ng }
            if (e[i] == "...") { for (k = j; k <= ng + 1; k++) if (m(i + 1, k)) return 1; return 0 }
            if (j > ng) { if (i > bi) { bi = i; bj = j }; return 0 }
            if (g[j] !~ r[i]) { if (i > bi) { bi = i; bj = j }; return 0 }
            return m(i + 1, j + 1)
        }
        BEGIN { while ((getline l < expfile) > 0) { e[++ne] = l; r[ne] = rx(l) } }
        { sub(/[ \t]+$/, ""); g[++ng] = $0 }
        END {
            bi = 0; bj = 1
            if (m(1, 1)) exit 0
            if (bi == 0) { bi = 1 }
            printf "    page line %d: %s\n", bi, (bi <= ne ? e[bi] : "(end of the shown output)")
            printf "    output    : %s\n", (bj <= ng ? g[bj] : "(end of the output)")
            exit 1
        }' "$2"
}

total=0
for page in README.md $(cd "$SRCDIR" && ls docs/*.md); do   # paths relative to the tree
    [ -f "$SRCDIR/$page" ] || continue
    rm -f "$TMP"/blocks/*
    extract "$page" 0
    n=$(cat "$TMP/blocks/count")
    i=1
    while [ "$i" -le "$n" ]; do
        b=$TMP/blocks/$i
        (cd "$W" && sh "$b.cmd") >"$b.got" 2>&1 </dev/null
        if match "$b.exp" "$b.got" >"$b.diff"; then ok; else
            fail "$(cat "$b.where"): the output differs from the page for: $(head -n 1 "$b.cmd")"
            cat "$b.diff"
        fi
        i=$((i + 1))
        total=$((total + 1))
    done
done
# the man pages render without a warning from groff (a raw form feed once
# stood where "\\f" was meant, and `plan`'s synopsis lost its fonts)
if command -v groff > /dev/null; then
    for m in "$SRCDIR"/docs/*.1 "$SRCDIR"/docs/*.5 "$SRCDIR"/docs/*.8; do
        w=$(groff -man -ww -z "$m" 2>&1)
        if [ -z "$w" ]; then ok; else fail "$m: groff warns: $w"; fi
    done
else
    echo "skip - groff is not installed: the man pages are not rendered"
fi
# the pages do show examples (13 when this was written)
if [ "$total" -ge 10 ]; then ok; else fail "only $total shown commands found in README.md and docs/"; fi
finish
