# tests/: Check unit suites (tests/unit) and command-line tests (tests/cli).
# Tests read the shared corpus from $(SHARED_DIR) (default ../shared beside
# the source tree) and never copy it.
# (`./configure SHARED_DIR=DIR` or the environment at `make` time set it;
# `make distcheck` passes this tree's to the tarball's configure).
SHARED_DIR ?= @SHARED_DIR@
AM_TESTS_ENVIRONMENT = SHARED_DIR='$(SHARED_DIR)'; export SHARED_DIR; \
	SKELSCHED='$(abs_top_builddir)/skelsched'; export SKELSCHED; \
	SRCDIR='$(abs_top_srcdir)'; export SRCDIR; \
	SLURM_PREFIX='$(slurm_prefix)'; export SLURM_PREFIX; \
	CK_DEFAULT_TIMEOUT=$${CK_DEFAULT_TIMEOUT:-60}; export CK_DEFAULT_TIMEOUT;
# (Check's own default, 4 s of wall time per test, is a hang guard that a
# loaded machine or the sanitizer build trips on tests of 1 s of CPU;
# test cases that need more set their own with tcase_set_timeout.)

if HAVE_CHECK
UNIT_TESTS = tests/unit/test_pepa tests/unit/test_solve tests/unit/test_lu_order tests/unit/test_skel tests/unit/test_skel_control tests/unit/test_skel_amoget tests/unit/test_search tests/unit/test_search_prove tests/unit/test_search_psbound tests/unit/test_search_par tests/unit/test_bpel tests/unit/test_transient tests/unit/test_slurm tests/unit/test_bounds tests/unit/test_sim tests/unit/test_share tests/unit/test_link tests/unit/test_lump
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
tests_unit_test_pepa_SOURCES = tests/unit/test_pepa.c tests/unit/testutil.h tests/unit/suite.h
tests_unit_test_pepa_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_pepa_LDADD = pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_solve_SOURCES = tests/unit/test_solve.c tests/unit/chains.h \
	tests/unit/chaingen.c tests/unit/chaingen.h
tests_unit_test_solve_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_solve_LDADD = pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_lu_order_SOURCES = tests/unit/test_lu_order.c tests/unit/chains.h \
	tests/unit/chaingen.c tests/unit/chaingen.h
tests_unit_test_lu_order_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_lu_order_LDADD = pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_skel_SOURCES = tests/unit/test_skel.c
tests_unit_test_skel_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_skel_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_skel_control_SOURCES = tests/unit/test_skel_control.c tests/unit/testutil.h
tests_unit_test_skel_control_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_skel_control_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_skel_amoget_SOURCES = tests/unit/test_skel_amoget.c tests/unit/amoget.h
tests_unit_test_skel_amoget_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_skel_amoget_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_search_SOURCES = tests/unit/test_search.c tests/unit/amoget.h tests/unit/placed.h
tests_unit_test_search_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_search_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_search_prove_SOURCES = tests/unit/test_search_prove.c tests/unit/placed.h
tests_unit_test_search_prove_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_search_prove_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_search_psbound_SOURCES = tests/unit/test_search_psbound.c tests/unit/placed.h
tests_unit_test_search_psbound_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_search_psbound_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_search_par_SOURCES = tests/unit/test_search_par.c tests/unit/placed.h \
	tests/unit/searchgen.c tests/unit/searchgen.h
tests_unit_test_search_par_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_search_par_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_share_SOURCES = tests/unit/test_share.c tests/unit/placed.h
tests_unit_test_share_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_share_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_link_SOURCES = tests/unit/test_link.c tests/unit/placed.h
tests_unit_test_link_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_link_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_lump_SOURCES = tests/unit/test_lump.c
tests_unit_test_lump_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_lump_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_slurm_SOURCES = tests/unit/test_slurm.c tests/unit/placed.h
tests_unit_test_slurm_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_slurm_LDADD = slurm/libskelslurm.la bpel/libbpel.la skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(XML_LIBS) $(CHECK_LIBS)
tests_unit_test_bounds_SOURCES = tests/unit/test_bounds.c
tests_unit_test_bounds_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_bounds_LDADD = slurm/libskelslurm.la bpel/libbpel.la skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(XML_LIBS) $(CHECK_LIBS)
tests_unit_test_bpel_SOURCES = tests/unit/test_bpel.c tests/unit/testutil.h
tests_unit_test_bpel_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_bpel_LDADD = bpel/libbpel.la skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(XML_LIBS) $(CHECK_LIBS)
tests_unit_test_transient_SOURCES = tests/unit/test_transient.c tests/unit/testutil.h
tests_unit_test_transient_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_transient_LDADD = transient/libtransient.la pepa/libpepa.la base/libbase.la $(SUNDIALS_LIBS) $(CHECK_LIBS)
tests_unit_test_sim_SOURCES = tests/unit/test_sim.c tests/unit/testutil.h
tests_unit_test_sim_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_sim_LDADD = sim/libsim.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
endif

CLI_TESTS = tests/cli/solve.sh tests/cli/gen.sh tests/cli/bpel.sh tests/cli/map.sh tests/cli/transient.sh tests/cli/simulate.sh \
	tests/cli/docs.sh
TESTS += $(CLI_TESTS)
EXTRA_DIST += $(CLI_TESTS) tests/cli/lib.sh tests/cli/models/ring6.pepa tests/cli/models/gen_transient.sh

# A real slurmctld and four slurmd on 127.0.0.1 with the plugin; skips (77)
# unless root with Slurm's daemons installed.
# soak.sh: thousands of valid, invalid and hostile submissions and
# skeleton.conf reloads against the same cluster (docs/robustness.md);
# `make check` runs it for 30 s, `make soak` for SOAK_SECONDS (default 600).
# users.sh: issue 17's user and administrator checks on the documented
# configuration; install.sh: what make install puts where.
EXTRA_DIST += tests/slurm/e2e.sh tests/slurm/cluster.sh tests/slurm/soak.sh tests/slurm/users.sh \
	tests/slurm/install.sh tests/slurm/scale.sh
# Not in the sanitizer build: an ASan-instrumented plugin cannot be loaded
# by an uninstrumented slurmctld.
if HAVE_SLURM
TESTS += tests/slurm/install.sh
if !SANITIZE
TESTS += tests/slurm/e2e.sh tests/slurm/soak.sh tests/slurm/users.sh tests/slurm/scale.sh
endif
endif

# advice/ and cost/ (docs/advice.md)
if HAVE_CHECK
check_PROGRAMS += tests/unit/test_cost tests/unit/test_advice
TESTS += tests/unit/test_cost tests/unit/test_advice
tests_unit_test_cost_SOURCES = tests/unit/test_cost.c tests/unit/placed.h
tests_unit_test_cost_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_cost_LDADD = cost/libcost.la skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
tests_unit_test_advice_SOURCES = tests/unit/test_advice.c
tests_unit_test_advice_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_advice_LDADD = advice/libadvice.la skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)
endif
CLI_TESTS += tests/cli/advise.sh tests/cli/estimate.sh
SOAK_SECONDS = 600
soak: all
	SKELSCHED='$(abs_top_builddir)/skelsched' SOAK_SECONDS='$(SOAK_SECONDS)' \
		sh $(abs_top_srcdir)/tests/slurm/soak.sh
.PHONY: soak

check_PROGRAMS += tests/unit/test_approx
TESTS += tests/unit/test_approx
tests_unit_test_approx_SOURCES = tests/unit/test_approx.c tests/unit/placed.h tests/unit/approx_sim.h
tests_unit_test_approx_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_approx_LDADD = skeleton/libskeleton.la sim/libsim.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)

check_PROGRAMS += tests/unit/test_approx_est
TESTS += tests/unit/test_approx_est
tests_unit_test_approx_est_SOURCES = tests/unit/test_approx_est.c tests/unit/placed.h tests/unit/approx_sim.h \
	tests/unit/estgen.c tests/unit/estgen.h
tests_unit_test_approx_est_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_approx_est_LDADD = skeleton/libskeleton.la sim/libsim.la pepa/libpepa.la base/libbase.la $(CHECK_LIBS)

check_PROGRAMS += tests/unit/test_approx_parfes
TESTS += tests/unit/test_approx_parfes
tests_unit_test_approx_parfes_SOURCES = tests/unit/test_approx_parfes.c tests/unit/placed.h
tests_unit_test_approx_parfes_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_approx_parfes_LDADD = bpel/libbpel.la skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(XML_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/unit/test_approx_flow
TESTS += tests/unit/test_approx_flow
tests_unit_test_approx_flow_SOURCES = tests/unit/test_approx_flow.c tests/unit/placed.h
tests_unit_test_approx_flow_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_approx_flow_LDADD = bpel/libbpel.la skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(XML_LIBS) $(CHECK_LIBS)

# The real-Slurm suite against a Slurm release built from its tarball into
# a cache directory (once): make check-slurm SLURM_TARBALL=slurm-25.11.7.tar.gz
# (README.md, docs/admin.md). SLURM_SYSTEM=1: the system's daemons, the
# tarball of the same release for slurmctld's headers.
EXTRA_DIST += contrib/check-slurm.sh contrib/slurm-build.sh
check-slurm:
	@test -n '$(SLURM_TARBALL)' || { echo "usage: make check-slurm SLURM_TARBALL=slurm-VERSION.tar.gz [SLURM_SYSTEM=1]" >&2; exit 2; }
	system='$(SLURM_SYSTEM)'; sh $(abs_top_srcdir)/contrib/check-slurm.sh $${system:+--system} '$(SLURM_TARBALL)'
.PHONY: check-slurm
