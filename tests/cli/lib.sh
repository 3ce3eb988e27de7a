# Shared helpers for the command-line tests (sourced, POSIX sh).
# SKELSCHED, SHARED_DIR and SRCDIR come from the test environment.
: "${SKELSCHED:=./skelsched}"
: "${SRCDIR:=.}"
: "${SHARED_DIR:=$SRCDIR/../shared}"
# Under valgrind (VALGRIND=1) every run must be free of memory errors and leaks.
if [ "${VALGRIND:-0}" = 1 ]; then
    RUN="$(command -v valgrind) -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite $SKELSCHED"
else
    RUN="$SKELSCHED"
fi
passed=0
failed=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok()   { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect_exit CODE NAME -- ARGS...: run skelsched, check its exit status;
# stdout goes to $TMP/out, stderr to $TMP/err.
expect_exit() {
    code=$1; name=$2; shift 3
    $RUN "$@" >"$TMP/out" 2>"$TMP/err"
    got=$?
    if [ "$got" -eq "$code" ]; then ok; else
        fail "$name: exit $got, expected $code"; sed 's/^/  | /' "$TMP/err" | head -5; fi
}

# expect_out NAME PATTERN: the last stdout matches the extended regex
expect_out() {
    if grep -Eq -- "$2" "$TMP/out"; then ok; else fail "$1: stdout lacks /$2/"; head -20 "$TMP/out" | sed 's/^/  | /'; fi
}

# expect_err NAME PATTERN: the last stderr matches the extended regex
expect_err() {
    if grep -Eq -- "$2" "$TMP/err"; then ok; else fail "$1: stderr lacks /$2/"; sed 's/^/  | /' "$TMP/err" | head -5; fi
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
