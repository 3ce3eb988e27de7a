# slurm/: #SKEL directives, skeleton.conf, candidate nodes and the placement
# decision for the job_submit plugin, without Slurm's headers (unit-tested).
# Built as PIC convenience library: the plugin module links it in.
noinst_LTLIBRARIES += slurm/libskelslurm.la
slurm_libskelslurm_la_SOURCES = slurm/skelslurm.h slurm/skelslurm_int.h \
	slurm/skelslurm.c slurm/skelslurm_conf.c slurm/skelslurm_job.c slurm/skelslurm_env.c \
	slurm/decide.c
EXTRA_DIST += docs/admin.md docs/user.md examples/jobs/pipeline.sh examples/jobs/skeleton.conf tests/fuzz/fuzz_slurm.c

# The decision-time benchmark (issue 8: p50/p99 for 3-8 stages on 16 nodes)
# and the submission latency with and without the plugin on a real Slurm
# (bench_submit.sh); both run from `make bench`.
EXTRA_DIST += tests/slurm/bench_submit.sh
noinst_PROGRAMS += tests/slurm/bench_decision
tests_slurm_bench_decision_SOURCES = tests/slurm/bench_decision.c
tests_slurm_bench_decision_LDADD = slurm/libskelslurm.la bpel/libbpel.la skeleton/libskeleton.la pepa/libpepa.la \
	base/libbase.la $(XML_LIBS)
