# pepa/: the PEPA language, state-space derivation, CTMC, steady state.
noinst_LTLIBRARIES += pepa/libpepa.la
pepa_libpepa_la_SOURCES = \
	pepa/ast.c pepa/ast.h \
	pepa/parse.c pepa/parse.h \
	pepa/check.c pepa/check.h \
	pepa/system.c pepa/system.h \
	pepa/enum.c pepa/enum.h \
	pepa/derive.c pepa/space.h \
	pepa/index.c pepa/index.h pepa/internal.h \
	pepa/space.c \
	pepa/plan.c \
	pepa/classify.c \
	pepa/measure.c \
	pepa/export.c pepa/export.h \
	pepa/ctmc.c pepa/ctmc.h \
	pepa/solve.c pepa/solve.h \
	pepa/solve_direct.c \
	pepa/solve_probe.c \
	pepa/lu.c pepa/lu.h pepa/lu_front.h pepa/lu_par.c pepa/lu_par.h pepa/lu_blas.h \
	pepa/lu_sub.c pepa/lu_sub.h \
	pepa/solve_gs.c \
	pepa/solve_gmres.c
pepa_libpepa_la_LIBADD = $(UMFPACK_LIBS) -lpthread -lm
