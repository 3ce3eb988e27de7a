# cli/: the skelsched command.
bin_PROGRAMS += skelsched
skelsched_SOURCES = \
	cli/main.c cli/cmds.h \
	cli/util.c cli/util.h \
	cli/cmd_solve.c
skelsched_LDADD = pepa/libpepa.la base/libbase.la
