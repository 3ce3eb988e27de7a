# tests/slurm/cluster.sh: a real Slurm on 127.0.0.1 for the tests that
# source it (e2e.sh, soak.sh): slurmctld with JobSubmitPlugins=skeleton and
# `slurmd -N nX` for n1-n4 (n5 is described but has no slurmd), in a
# temporary directory, on ports chosen from the PID so that concurrent runs
# do not collide (../shared/notes/slurm-local-cluster.md). Every wait is
# bounded; the daemons are stopped by their recorded PIDs on exit.
# The Slurm is the system's (Debian's packages), or the installation in
# $SLURM_PREFIX (configure --with-slurm=PREFIX sets it for `make check`;
# contrib/slurm-build.sh makes one from a release tarball). Authentication
# is MUNGE, as every release's slurm.conf(5) documents (auth/none is
# undocumented, and cannot be built in without munge's headers
# since 23.11's auth/slurm needs libjwt): a private munged with its own key
# and socket in the cluster's directory.
#
#   . tests/slurm/cluster.sh    (CLUSTER_NAME set first; skips with 77
#                                unless root with Slurm's daemons)
#   cluster_setup               T, plugins, $T/slurm.conf ($CLUSTER_EXTRA_CONF appended)
#   ... write $T/skeleton.conf ...
#   cluster_start               slurmctld (CTLD = its PID; $CLUSTER_CTLD_ENV, e.g.
#                               MALLOC_ARENA_MAX=1, in its environment) and four
#                               slurmd, up and idle
# and the helpers pass, fail, wait_for, submit, job_state, job_field,
# done_job; scontrol, sinfo and sbatch are capped in time.

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root"
# contrib/check-all.sh's distcheck: the same sources ran in a real Slurm just before
[ "${SKELSCHED_SKIP_CLUSTER:-0}" = 1 ] && skip "SKELSCHED_SKIP_CLUSTER=1"
if [ -n "${SLURM_PREFIX:-}" ]; then
    [ -x "$SLURM_PREFIX/sbin/slurmctld" ] || skip "no slurmctld in SLURM_PREFIX=$SLURM_PREFIX"
    PATH="$SLURM_PREFIX/bin:$SLURM_PREFIX/sbin:$PATH"
    export PATH
fi
for c in slurmctld slurmd sbatch scontrol sinfo srun munged; do
    command -v $c >/dev/null 2>&1 || skip "$c is not installed"
done
SLURM_VERSION=$(slurmctld -V | sed -n 's/^slurm[^0-9]*\([0-9][0-9.]*\).*/\1/p')
SKELSCHED=${SKELSCHED:-$PWD/skelsched}
[ -x "$SKELSCHED" ] || skip "no skelsched binary ($SKELSCHED)"
BUILD=$(cd "$(dirname "$SKELSCHED")" && pwd)
SO="$BUILD/plugin/.libs/job_submit_skeleton.so"
SPANKSO="$BUILD/plugin/.libs/spank_skeleton.so"
[ -f "$SO" ] || skip "plugin not built ($SO)"
if [ -n "${SLURM_PREFIX:-}" ]; then
    SYSPLUG=$SLURM_PREFIX/lib/slurm
else
    SYSPLUG=$(dirname "$(find /usr/lib -name auth_munge.so -path '*slurm*' 2>/dev/null | head -1)")
fi
[ -f "$SYSPLUG/auth_munge.so" ] || skip "Slurm's plugins (auth_munge.so) not found"
echo "# Slurm $SLURM_VERSION (${SLURM_PREFIX:-system}), plugins from $SYSPLUG"

FAILS=0
PASSES=0
PIDS=""
pass() { echo "ok - $1"; PASSES=$((PASSES + 1)); }
fail() { echo "FAIL - $1"; FAILS=$((FAILS + 1)); }

cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    # bounded: give them 10 s, then force
    i=0
    while [ $i -lt 20 ]; do
        alive=0
        for p in $PIDS; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.5
        i=$((i + 1))
    done
    for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
    [ -f "$T/munged.pid" ] && kill "$(cat "$T/munged.pid")" 2>/dev/null
    if [ "${KEEP:-0}" = 1 ] || [ "$FAILS" != 0 ]; then
        echo "logs kept in $T"
    else
        rm -rf "$T"
    fi
}

# wait_for SECONDS COMMAND...: poll until the command succeeds (wall clock)
wait_for() {
    end=$(($(date +%s) + $1)); shift
    while [ "$(date +%s)" -le $end ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.25
    done
    return 1
}
# Slurm's clients retry for long when the controller does not answer: cap them.
SCONTROL=$(command -v scontrol) SINFO=$(command -v sinfo) SBATCH=$(command -v sbatch)
scontrol() { timeout 20 "$SCONTROL" "$@"; }
sinfo() { timeout 20 "$SINFO" "$@"; }
sbatch() { timeout 30 "$SBATCH" "$@"; }

cluster_setup() {
    T=$(mktemp -d "/tmp/skel-${CLUSTER_NAME:-test}.XXXXXX") || exit 1
    trap cleanup EXIT
    trap 'exit 1' INT TERM HUP
    mkdir -p "$T/state" "$T/spool" "$T/log" "$T/plugins" "$T/out"
    install -m 0755 "$SO" "$T/plugins/job_submit_skeleton.so"
    if [ -f "$SPANKSO" ]; then
        install -m 0755 "$SPANKSO" "$T/plugins/spank_skeleton.so"
        # `optional`, as docs/admin.md recommends (CLUSTER_SPANK=required to
        # run the other form)
        echo "${CLUSTER_SPANK:-optional} $T/plugins/spank_skeleton.so" >"$T/plugstack.conf"
    else
        : >"$T/plugstack.conf"
    fi
    # distinct ports per run, so concurrent runs on one machine do not collide
    BASE=$((20000 + ($$ % 2000) * 10))
    HOST=$(hostname -s)
    cat >"$T/slurm.conf" <<CONF
ClusterName=${CLUSTER_NAME:-test}
SlurmctldHost=$HOST
SlurmctldPort=$BASE
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.sock
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MailProg=/bin/true
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool/%n
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd-%n.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd-%n.log
PluginDir=$SYSPLUG:$T/plugins
JobSubmitPlugins=skeleton
PlugStackConfig=$T/plugstack.conf
MinJobAge=${CLUSTER_MIN_JOB_AGE:-600}
NodeName=n[1-5] NodeHostname=$HOST NodeAddr=127.0.0.1 Port=[$((BASE + 1))-$((BASE + 5))] CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
${CLUSTER_EXTRA_CONF:-}
CONF
    SLURM_CONF=$T/slurm.conf
    export SLURM_CONF
}

idle4() { [ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -ge 4 ]; }

# munged, as root (--force), on the cluster's own key and socket
munge_start() {
    dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null
    chmod 0400 "$T/munge.key"
    chmod 0755 "$T"
    munged --force --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
        --log-file="$T/log/munged.log" --seed-file="$T/munged.seed" ||
        { fail "munged did not start: $(cat "$T/log/munged.log")"; exit 1; }
}

cluster_start() {
    munge_start
    # shellcheck disable=SC2086
    env ${CLUSTER_CTLD_ENV:-} slurmctld -D -i -f "$T/slurm.conf" >"$T/log/slurmctld.stdout" 2>&1 &
    CTLD=$!
    PIDS="$CTLD"
    if ! wait_for 30 scontrol ping; then
        fail "slurmctld did not answer scontrol ping within 30 s"
        tail -20 "$T/log/slurmctld.log" "$T/log/slurmctld.stdout" 2>/dev/null
        exit 1
    fi
    for n in n1 n2 n3 n4; do
        slurmd -D -N $n -f "$T/slurm.conf" >"$T/log/slurmd-$n.stdout" 2>&1 &
        PIDS="$PIDS $!"
    done
    if ! wait_for 60 idle4; then
        fail "the four slurmd did not register within 60 s"
        sinfo -N
        exit 1
    fi
    pass "slurmctld and 4 slurmd up"
    grep -q "job_submit/skeleton: loaded" "$T/log/slurmctld.log" && pass "plugin loaded skeleton.conf" ||
        fail "plugin did not log loading skeleton.conf"
    ! grep -q "built without Slurm's source tree" "$T/log/slurmctld.log" &&
        pass "plugin reads slurmctld's records (built with Slurm's own headers)" ||
        fail "plugin built without --with-slurm-source: no partition restriction, no update check (docs/admin.md, Install)"
}

# job_state JOBID: its JobState
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.* JobState=\([A-Z_]*\).*/\1/p'; }
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
done_job() { s=$(job_state "$1"); case $s in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) return 0 ;; esac; return 1; }
# submit FILE [sbatch options]: job id on stdout, sbatch's messages in $T/sbatch.err
submit() {
    f=$1; shift
    sbatch --parsable -D "$T/out" -o "$T/out/%j.out" "$@" "$f" 2>"$T/sbatch.err"
}
