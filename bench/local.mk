# bench/: reproducible benchmarks; `make bench` prints one table each.
noinst_PROGRAMS += bench/bench_pepa
bench_bench_pepa_SOURCES = bench/bench_pepa.c
bench_bench_pepa_LDADD = pepa/libpepa.la

.PHONY: bench
bench: bench/bench_pepa
	@SHARED_DIR='$(SHARED_DIR)' $(abs_top_builddir)/bench/bench_pepa
