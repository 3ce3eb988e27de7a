# cli/: the skelsched command.
bin_PROGRAMS += skelsched
skelsched_SOURCES = \
	cli/main.c cli/cmds.h \
	cli/util.c cli/util.h \
	cli/opt.c cli/opt.h \
	cli/json.c cli/json.h \
	cli/input.c cli/input.h \
	cli/model.c cli/model.h \
	cli/cmd_solve.c \
	cli/cmd_gen.c \
	cli/cmd_map.c \
	cli/cmd_bpel.c \
	cli/cmd_transient.c \
	cli/cmd_fluid.c \
	cli/cmd_advise.c \
	cli/cmd_estimate.c \
	cli/cmd_plan.c \
	cli/cmd_simulate.c
skelsched_LDADD = transient/libtransient.la slurm/libskelslurm.la bpel/libbpel.la advice/libadvice.la cost/libcost.la skeleton/libskeleton.la sim/libsim.la pepa/libpepa.la base/libbase.la $(XML_LIBS) $(SUNDIALS_LIBS)
dist_man_MANS += docs/skelsched.1
