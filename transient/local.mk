# transient/: transient analysis of the CTMC (CVODE BDF with a KLU-backed
# sparse direct solver, uniformisation) and the fluid approximation.
noinst_LTLIBRARIES += transient/libtransient.la
transient_libtransient_la_SOURCES = \
	transient/transient.h transient/internal.h \
	transient/opts.c \
	transient/klu_ls.c \
	transient/solve.c \
	transient/cvode.c \
	transient/ilu.c \
	transient/uniform.c \
	transient/series.c \
	transient/makespan.c \
	transient/fluid.c
transient_libtransient_la_LIBADD = $(SUNDIALS_LIBS) -lklu -lm
