# tests/fuzz/fuzz.mk: the libFuzzer builds of the fuzz targets. A plain GNU
# makefile (pattern rules, automatic dependencies), run by `make fuzz` from
# the build directory with top_srcdir, XML_CFLAGS and LIBS set; objects and
# binaries go to $(top_builddir)/fuzz/. The library sources are compiled
# once with coverage instrumentation and the sanitizers, into one archive
# each target takes what it needs from.
FUZZ_CC ?= clang
top_srcdir ?= .
top_builddir ?= .
O := $(top_builddir)/fuzz
TARGETS := pepa skel platform slurm bpel

FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_FLAGS := -std=c11 -g -O1 $(FUZZ_SAN)
FUZZ_CPPFLAGS := -I$(top_srcdir) -I$(top_builddir) -include config.h $(XML_CFLAGS)
LIB_SRCS := $(wildcard $(addprefix $(top_srcdir)/,base/*.c pepa/*.c skeleton/*.c slurm/*.c bpel/*.c))
LIB_OBJS := $(patsubst $(top_srcdir)/%.c,$(O)/obj/%.o,$(LIB_SRCS))

all: $(addprefix $(O)/fuzz_,$(TARGETS))

$(O)/obj/%.o: $(top_srcdir)/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(O)/libfuzzlib.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(O)/fuzz_%: $(top_srcdir)/tests/fuzz/fuzz_%.c $(O)/libfuzzlib.a
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer $< $(O)/libfuzzlib.a $(LIBS) -o $@

-include $(LIB_OBJS:.o=.d)
.PHONY: all
