#!/bin/sh
# Run the libFuzzer targets built by tests/fuzz/fuzz.mk, each for FUZZ_TIME
# seconds, one after the other, niced, one job each (the machine is shared).
#   run.sh BUILDDIR SRCDIR SHARED_DIR [TARGET...]
# Each target's working corpus is BUILDDIR/fuzz/corpus/<target> (kept
# between runs), read together with its seeds (examples/ and the shared
# corpora) and its regression corpus; a crash, leak or timeout is written
# to BUILDDIR/fuzz/artifacts/ - copy it to tests/fuzz/regress/<target>/
# once fixed. One line per target is appended to BUILDDIR/fuzz/stats.tsv:
# date, target, seconds, executions, cov, ft, corpus size, artifacts.
set -eu
build=$1 src=$2 shared=$3
shift 3
targets=${*:-pepa skel platform slurm bpel}
time=${FUZZ_TIME:-60}
O=$build/fuzz
mkdir -p "$O/artifacts" "$O/logs"

# seeds_of TARGET: the directories of its seed inputs (made under $O/seed
# where the inputs are files, or are built from several files)
seeds_of() {
    d=$O/seed/$1
    rm -rf "$d"; mkdir -p "$d"
    case $1 in
    pepa) cp "$src"/examples/pepa/*.pepa "$d"/
          find "$shared/corpus/pepa" -type f \( -name '*.pepa' -o -name '*.pm' -o -name '*.txt' \) \
              -size -64k -exec cp {} "$d"/ \; 2>/dev/null || true ;;
    skel) cp "$src"/examples/skeletons/*.skel "$d"/
          cp "$shared"/corpus/wflow2pepa/*.des "$d"/ 2>/dev/null || true ;;
    platform) cp "$src"/examples/platforms/*.conf "$src"/examples/jobs/skeleton.conf "$d"/ ;;
    slurm) cp "$src"/examples/jobs/pipeline.sh "$d"/
           # CONF \0 SCRIPT \0 SKELETON \0 NODELIST: the plugin's four inputs
           for skel in "$src"/examples/skeletons/*.skel; do
               b=$(basename "$skel" .skel)
               { cat "$src/examples/jobs/skeleton.conf"; printf '\0#!/bin/sh\n#SKEL --style stream\n\0';
                 cat "$skel"; printf '\0c[1-2],n01'; } > "$d/spank-$b"
           done
           { cat "$src/examples/platforms/cluster.conf"; printf '\0'; cat "$src/examples/jobs/pipeline.sh"; } \
               > "$d/cluster-pipeline" ;;
    bpel) cp "$src"/examples/bpel/*.bpel "$d"/
          cp "$shared"/corpus/bpel/*.bpel "$d"/ 2>/dev/null || true ;;
    esac
    echo "$d"
}

# stat NAME LOG: the value of libFuzzer's final stat::NAME line
stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -n 1; }

for t in $targets; do
    case $t in bpel) len=65536 ;; pepa|slurm) len=8192 ;; *) len=4096 ;; esac
    mkdir -p "$O/corpus/$t" "$src/tests/fuzz/regress/$t"
    seeds=$(seeds_of "$t")
    before=$(ls "$O/artifacts" | wc -l)
    start=$(date +%s) execs=0 runs=0 cov=? ft=?
    echo "fuzz_$t: $time s"
    # A finding ends a libFuzzer run; the artifact is kept and fuzzing goes
    # on in a new run until the time is spent (-fork would need more cores).
    while left=$(( time - ($(date +%s) - start) )); [ "$left" -gt 0 ]; do
        runs=$((runs + 1))
        log=$O/logs/$t-$(date -u +%Y%m%dT%H%M%S)-$runs.log
        rc=0
        nice -n 15 "$O/fuzz_$t" -max_total_time="$left" -timeout=30 -rss_limit_mb=1024 \
            -malloc_limit_mb=1024 -max_len=$len -dict="$src/tests/fuzz/$t.dict" \
            -artifact_prefix="$O/artifacts/$t-" -print_final_stats=1 \
            "$O/corpus/$t" "$seeds" "$src/tests/fuzz/regress/$t" > "$log" 2>&1 || rc=$?
        n=$(stat number_of_executed_units "$log")
        execs=$((execs + ${n:-0}))
        last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
        c=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
        f=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
        cov=${c:-$cov} ft=${f:-$ft}
        if [ "$rc" -ne 0 ]; then
            echo "fuzz_$t: finding (exit $rc), see $log:"
            grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix)' "$log" | head -n 5
            [ -n "$n" ] || break          # did not even start: give up on this target
        fi
    done
    secs=$(( $(date +%s) - start ))
    corp=$(ls "$O/corpus/$t" | wc -l)
    found=$(( $(ls "$O/artifacts" | wc -l) - before ))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$secs" "$execs" "$cov" "$ft" \
        "$corp" "$found" >> "$O/stats.tsv"
    echo "fuzz_$t: $secs s, $execs executions in $runs run(s), cov $cov, ft $ft, corpus $corp, new artifacts $found"
done
