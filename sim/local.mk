# sim/: stochastic simulation of PEPA models, for chains too large to derive.
noinst_LTLIBRARIES += sim/libsim.la
sim_libsim_la_SOURCES = sim/sim.c sim/sim.h sim/rng.h
sim_libsim_la_LIBADD = -lpthread -lm
