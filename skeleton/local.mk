# skeleton/: the skeleton language, task graph, PEPA generation, platform
# description and placement. Depends on pepa/ and base/.
noinst_LTLIBRARIES += skeleton/libskeleton.la
skeleton_libskeleton_la_SOURCES = \
	skeleton/skeleton.h skeleton/internal.h \
	skeleton/util.c \
	skeleton/tree.c \
	skeleton/parse.c \
	skeleton/dag.c skeleton/dag_int.h skeleton/dag_loop.c \
	skeleton/dag_serial.c \
	skeleton/gen.c skeleton/gen_int.h skeleton/gen_task.c skeleton/gen_states.c \
	skeleton/gen_product.c skeleton/gen_gate.c skeleton/gen_system.c \
	skeleton/hostlist.c \
	skeleton/platform.c \
	skeleton/placement.c \
	skeleton/share.c skeleton/lump.c \
	skeleton/link.c \
	skeleton/search.c skeleton/search_int.h skeleton/search_bound.c skeleton/search_window.c \
	skeleton/search_capacity.c skeleton/search_winps.c \
	skeleton/search_plan.c skeleton/search_exact.c skeleton/search_scale.c \
	skeleton/search_classes.c skeleton/search_construct.c skeleton/search_moves.c \
	skeleton/search_more.c skeleton/search_polish.c skeleton/search_memo.c skeleton/search_lump.c \
	skeleton/approx.c skeleton/approx_int.h skeleton/approx_machine.c skeleton/approx_chain.c \
	skeleton/approx_window.c skeleton/approx_layer.c skeleton/approx_est.c skeleton/approx_estcv.c skeleton/approx_des.c skeleton/approx_member.c skeleton/approx_solve.c \
	skeleton/approx_fixed.c skeleton/approx_share.c skeleton/approx_group.c \
	skeleton/approx_link.c skeleton/approx_link.h skeleton/approx_flow.c skeleton/approx_flowm.c \
	skeleton/approx_lattice.c skeleton/approx_pass.c skeleton/approx_parfes.c
skeleton_libskeleton_la_LIBADD = -lm
