# plugin/: job_submit_skeleton.so, loaded by slurmctld (JobSubmitPlugins=skeleton).
# A libtool module linking the convenience libraries in, so the .so needs
# nothing of ours at run time; Slurm's symbols resolve inside slurmctld.
#
# plugin/skcompat.c reads slurmctld's records through the headers of the
# release's own source tree (--with-slurm-source); it is compiled apart,
# with none of the project's include paths, since those headers include
# their own "config.h" (hence DEFAULT_INCLUDES is empty in Makefile.am).
if HAVE_SLURM
noinst_LTLIBRARIES += plugin/libskcompat.la
plugin_libskcompat_la_SOURCES = plugin/skcompat.c plugin/skcompat.h
if HAVE_SLURM_SOURCE
plugin_libskcompat_la_CPPFLAGS = -DSKC_RECORDS $(SLURM_INT_CFLAGS)
else
plugin_libskcompat_la_CPPFLAGS = $(SLURM_CFLAGS)
endif
plugin_libskcompat_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS) $(SAN_CFLAGS)
slurm_plugin_LTLIBRARIES = plugin/job_submit_skeleton.la
plugin_job_submit_skeleton_la_SOURCES = plugin/job_submit_skeleton.c plugin/skcompat.h
plugin_job_submit_skeleton_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CFLAGS)
plugin_job_submit_skeleton_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^(plugin_name|plugin_type|plugin_version|init|fini|job_submit|job_modify)$$'
plugin_job_submit_skeleton_la_LIBADD = plugin/libskcompat.la slurm/libskelslurm.la bpel/libbpel.la skeleton/libskeleton.la pepa/libpepa.la \
	base/libbase.la $(XML_LIBS)
endif

# spank_skeleton.so: `sbatch --skeleton=FILE` (plugstack.conf). Header
# only from slurm/: no library code is needed on the submitting side.
if HAVE_SLURM
slurm_plugin_LTLIBRARIES += plugin/spank_skeleton.la
plugin_spank_skeleton_la_SOURCES = plugin/spank_skeleton.c
plugin_spank_skeleton_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CFLAGS)
plugin_spank_skeleton_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^(plugin_name|plugin_type|plugin_version|spank_plugin_version|slurm_spank_init|slurm_spank_init_post_opt)$$'
endif

# Slurm loads plugins by their .so; the libtool archives make install puts
# beside them would sit in Slurm's plugin directory for nothing.
if HAVE_SLURM
install-data-hook:
	rm -f "$(DESTDIR)$(slurm_plugindir)/job_submit_skeleton.la" "$(DESTDIR)$(slurm_plugindir)/spank_skeleton.la"
uninstall-hook:
	rm -f "$(DESTDIR)$(slurm_plugindir)/job_submit_skeleton.so" "$(DESTDIR)$(slurm_plugindir)/spank_skeleton.so"
endif
dist_man_MANS += docs/skeleton.conf.5 docs/job_submit_skeleton.8
