# bench/: reproducible benchmarks; `make bench` prints one table each.
noinst_PROGRAMS += bench/bench_pepa
bench_bench_pepa_SOURCES = bench/bench_pepa.c
bench_bench_pepa_LDADD = pepa/libpepa.la base/libbase.la

noinst_PROGRAMS += bench/bench_solve
bench_bench_solve_SOURCES = bench/bench_solve.c bench/bench_blas2.c bench/bench_blas2.h \
	bench/bench_decide.c bench/bench_decide.h bench/bench_dense.c bench/bench_dense.h \
	tests/unit/chaingen.c tests/unit/chaingen.h
bench_bench_solve_LDADD = pepa/libpepa.la base/libbase.la

noinst_PROGRAMS += bench/bench_map
bench_bench_map_SOURCES = bench/bench_map.c
bench_bench_map_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la

noinst_PROGRAMS += bench/bench_scale
bench_bench_scale_SOURCES = bench/bench_scale.c tests/unit/searchgen.c tests/unit/searchgen.h
bench_bench_scale_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la

noinst_PROGRAMS += bench/bench_transient
bench_bench_transient_SOURCES = bench/bench_transient.c
bench_bench_transient_LDADD = transient/libtransient.la pepa/libpepa.la base/libbase.la $(SUNDIALS_LIBS)

noinst_PROGRAMS += bench/bench_rank
bench_bench_rank_SOURCES = bench/bench_rank.c
bench_bench_rank_LDADD = advice/libadvice.la cost/libcost.la skeleton/libskeleton.la pepa/libpepa.la base/libbase.la

noinst_PROGRAMS += bench/bench_approx
bench_bench_approx_SOURCES = bench/bench_approx.c bench/bench_approx.h bench/bench_approx_case.c \
	bench/bench_approx_cov.c bench/bench_approx_deals.c bench/bench_approx_est.c bench/bench_approx_realcov.c bench/bench_approx_flows.c bench/bench_approx_parfes.c bench/bench_approx_gen.c \
	bench/bench_approx_links.c bench/bench_approx_score.c cli/input.c cli/opt.c cli/util.c \
	tests/unit/estgen.c tests/unit/estgen.h
bench_bench_approx_LDADD = slurm/libskelslurm.la bpel/libbpel.la skeleton/libskeleton.la sim/libsim.la pepa/libpepa.la base/libbase.la $(XML_LIBS)

noinst_PROGRAMS += bench/bench_lump
bench_bench_lump_SOURCES = bench/bench_lump.c
bench_bench_lump_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la

noinst_PROGRAMS += bench/bench_sim
bench_bench_sim_SOURCES = bench/bench_sim.c cli/input.c cli/opt.c cli/util.c
bench_bench_sim_LDADD = slurm/libskelslurm.la bpel/libbpel.la skeleton/libskeleton.la sim/libsim.la pepa/libpepa.la base/libbase.la $(XML_LIBS)

.PHONY: bench
bench: bench/bench_approx bench/bench_lump bench/bench_pepa bench/bench_solve bench/bench_map bench/bench_scale bench/bench_transient bench/bench_rank bench/bench_sim tests/slurm/bench_decision
	@SHARED_DIR='$(SHARED_DIR)' $(abs_top_builddir)/bench/bench_pepa
	@SHARED_DIR='$(SHARED_DIR)' $(abs_top_builddir)/bench/bench_solve all
	@SHARED_DIR='$(SHARED_DIR)' $(abs_top_builddir)/bench/bench_map
	@$(abs_top_builddir)/bench/bench_scale
	@$(abs_top_builddir)/bench/bench_lump
	@SHARED_DIR='$(SHARED_DIR)' $(abs_top_builddir)/bench/bench_transient
	@SHARED_DIR='$(SHARED_DIR)' $(abs_top_builddir)/bench/bench_sim
	@$(abs_top_builddir)/tests/slurm/bench_decision
	@SRCDIR='$(abs_top_srcdir)' $(abs_top_builddir)/bench/bench_rank
	@SRCDIR='$(abs_top_srcdir)' SHARED_DIR='$(SHARED_DIR)' $(abs_top_builddir)/bench/bench_approx
	@SKELSCHED=$(abs_top_builddir)/skelsched $(abs_top_srcdir)/tests/slurm/bench_submit.sh; \
	 rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]     # 77: no Slurm here (needs root and the daemons)
