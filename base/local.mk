# base/: diagnostics, timing, arenas, array growth and name maps shared by every module;
# the BLAS kernels a program runs on.
noinst_LTLIBRARIES += base/libbase.la
base_libbase_la_SOURCES = \
	base/diag.c base/diag.h \
	base/clock.c base/clock.h \
	base/arena.c base/arena.h \
	base/mem.c base/mem.h \
	base/strmap.c base/strmap.h \
	base/blaskern.c base/blaskern.h
