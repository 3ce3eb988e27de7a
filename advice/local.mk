# advice/: replication and merge advice for a placed skeleton, solved with
# the Markov model. Depends on skeleton/ (and through it pepa/) and base/.
noinst_LTLIBRARIES += advice/libadvice.la
advice_libadvice_la_SOURCES = \
	advice/advice.h \
	advice/eval.c \
	advice/rewrite.c \
	advice/advise.c \
	advice/sweep.c
advice_libadvice_la_LIBADD = -lm
