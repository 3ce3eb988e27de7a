# fidelity/: real pipelines on the Slurm test cluster against the model's
# predictions (docs/fidelity.md). `make fidelity` runs the full table (26
# placements, 3 jobs each); `make check` runs four short jobs
# (fidelity/check.sh: the harness end to end, no timing asserted).
noinst_PROGRAMS += fidelity/skelrun
fidelity_skelrun_SOURCES = fidelity/skelrun.c
fidelity_skelrun_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la -lm
EXTRA_DIST += fidelity/fidelity.sh fidelity/summary.sh fidelity/check.sh

if HAVE_SLURM
if !SANITIZE
TESTS += fidelity/check.sh
endif
endif

.PHONY: fidelity
fidelity: fidelity/skelrun skelsched
	@SKELSCHED=$(abs_top_builddir)/skelsched SLURM_PREFIX='$(slurm_prefix)' \
	 $(abs_top_srcdir)/fidelity/fidelity.sh
