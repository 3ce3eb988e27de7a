# bpel/: WS-BPEL 2.0 / BPEL4WS 1.1 import into skeleton trees, with
# libxml2 (docs/bpel.md). Depends on skeleton/, base/ and libxml2.
noinst_LTLIBRARIES += bpel/libbpel.la
bpel_libbpel_la_SOURCES = \
	bpel/bpel.h bpel/internal.h \
	bpel/xml.c \
	bpel/params.c \
	bpel/map.c bpel/map_int.h bpel/map_task.c bpel/map_choice.c bpel/map_links.c \
	bpel/reduce.c \
	bpel/translate.c \
	bpel/warn.c
bpel_libbpel_la_CFLAGS = $(AM_CFLAGS) $(XML_CFLAGS)
bpel_libbpel_la_LIBADD = $(XML_LIBS)
# The unit and CLI tests read the example; the fuzz target is built by hand
# (see its header).
EXTRA_DIST += docs/bpel.md examples/bpel/order.bpel tests/fuzz/fuzz_bpel.c
