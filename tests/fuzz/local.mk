# tests/fuzz/: one fuzz target per input the project reads (PEPA models,
# skeleton descriptions, platform files, the Slurm plugin's skeleton.conf,
# #SKEL lines and SPANK payload, BPEL). docs/robustness.md has the figures.
#
# `make check` replays each target's regression corpus
# (tests/fuzz/regress/<target>/) with a plain main(), so every build - gcc,
# the sanitizer build, valgrind - re-runs every input that ever crashed.
# `make fuzz` builds the targets with clang and libFuzzer (ASan + UBSan,
# tests/fuzz/fuzz.mk) and runs each for FUZZ_TIME seconds (default 60):
#   make fuzz FUZZ_TIME=900 FUZZ_TARGETS="pepa skel"
FUZZ_TARGETS = pepa skel platform slurm bpel
FUZZ_TIME = 60
FUZZ_CC = clang

FUZZ_REPLAY = tests/fuzz/replay_pepa tests/fuzz/replay_skel tests/fuzz/replay_platform \
	tests/fuzz/replay_slurm tests/fuzz/replay_bpel
check_PROGRAMS += $(FUZZ_REPLAY)
TESTS += $(FUZZ_REPLAY)
tests_fuzz_replay_pepa_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_pepa.c
tests_fuzz_replay_pepa_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_NAME='"pepa"'
tests_fuzz_replay_pepa_LDADD = pepa/libpepa.la base/libbase.la
tests_fuzz_replay_skel_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_skel.c
tests_fuzz_replay_skel_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_NAME='"skel"'
tests_fuzz_replay_skel_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la
tests_fuzz_replay_platform_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_platform.c
tests_fuzz_replay_platform_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_NAME='"platform"'
tests_fuzz_replay_platform_LDADD = skeleton/libskeleton.la pepa/libpepa.la base/libbase.la
tests_fuzz_replay_slurm_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_slurm.c
tests_fuzz_replay_slurm_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_NAME='"slurm"'
tests_fuzz_replay_slurm_LDADD = slurm/libskelslurm.la bpel/libbpel.la skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(XML_LIBS)
tests_fuzz_replay_bpel_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_bpel.c
tests_fuzz_replay_bpel_CPPFLAGS = $(AM_CPPFLAGS) $(XML_CFLAGS) -DFUZZ_NAME='"bpel"'
tests_fuzz_replay_bpel_LDADD = bpel/libbpel.la skeleton/libskeleton.la pepa/libpepa.la base/libbase.la $(XML_LIBS)

EXTRA_DIST += tests/fuzz/fuzz.mk tests/fuzz/run.sh tests/fuzz/regress \
	tests/fuzz/pepa.dict tests/fuzz/skel.dict tests/fuzz/platform.dict tests/fuzz/slurm.dict tests/fuzz/bpel.dict

fuzz:
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz: needs $(FUZZ_CC) and libFuzzer (Debian: clang libclang-rt-14-dev, see contrib/setup.sh)"; exit 1; }
	$(MAKE) -f $(top_srcdir)/tests/fuzz/fuzz.mk top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		FUZZ_CC='$(FUZZ_CC)' XML_CFLAGS='$(XML_CFLAGS)' LIBS='$(XML_LIBS) $(UMFPACK_LIBS) -lpthread -lm'
	FUZZ_TIME='$(FUZZ_TIME)' $(abs_top_srcdir)/tests/fuzz/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)' \
		'$(SHARED_DIR)' $(FUZZ_TARGETS)
.PHONY: fuzz
