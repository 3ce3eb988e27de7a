#!/bin/sh
# A three-stage pipeline placed by job_submit/skeleton (docs/user.md).
# Submit with: sbatch examples/jobs/pipeline.sh
#
# Ordinary Slurm options first; -t lets the plugin warn when the stream
# (--items below) cannot finish in time at the predicted throughput.
#SBATCH -J pipeline
#SBATCH -t 10
#
# The skeleton (docs/skeleton-language.md): three stages, tasks t0, t1, t2.
# Rates are items per second on a node of Speed=1 in skeleton.conf; the
# slow "work" stage will get a fast node.
#SKEL pipe(3);
#SKEL   task("read", 4.0);
#SKEL   task("work", 1.0);
#SKEL   task("write", 2.0);
#
# Options: 1000 items go through the pipeline; the reader must run on n1
# (say, where the data is). Remove the pin to let the model choose.
#SKEL --items 1000
#SKEL --pin t0=n1
#
# Directives end at the first command, as for #SBATCH.

echo "plan: $SKEL_PLAN (predicted $SKEL_THROUGHPUT items/s)"

# Start each stage on its node; --overlap lets the steps share the job's
# CPUs with the batch step. Replace the commands with the real stages.
srun --overlap -N1 -n1 -w "$SKEL_NODES_T0" sh -c 'echo "read  on $SLURMD_NODENAME"' &
srun --overlap -N1 -n1 -w "$SKEL_NODES_T1" sh -c 'echo "work  on $SLURMD_NODENAME"' &
srun --overlap -N1 -n1 -w "$SKEL_NODES_T2" sh -c 'echo "write on $SLURMD_NODENAME"' &
wait
