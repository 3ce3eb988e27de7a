# cost/: the papers' analytic cost models (Darlington et al. 1993, Zavanella 1999, Alt et al. 2002) and their
# estimates of a placed skeleton. Depends on skeleton/ and base/.
noinst_LTLIBRARIES += cost/libcost.la
cost_libcost_la_SOURCES = \
	cost/cost.h \
	cost/darlington.c \
	cost/p3l.c \
	cost/remote.c \
	cost/place.c
cost_libcost_la_LIBADD = -lm
