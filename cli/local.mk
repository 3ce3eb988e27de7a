# cli/: the skelsched command.
bin_PROGRAMS += skelsched
skelsched_SOURCES = \
	cli/main.c cli/cmds.h \
	cli/util.c cli/util.h \
	cli/cmd_solve.c \
	cli/cmd_gen.c
skelsched_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la
dist_man_MANS += docs/skelsched.1
