# cost/: the seeds' analytic cost models (001, 003, 004) and their
# estimates of a placed skeleton. Depends on skeleton/ and base/.
noinst_LTLIBRARIES += cost/libcost.la
cost_libcost_la_SOURCES = \
	cost/cost.h \
	cost/darlington.c \
	cost/p3l.c \
	cost/remote.c \
	cost/place.c
cost_libcost_la_LIBADD = -lm
