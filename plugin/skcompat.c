/* plugin/skcompat.c: the plugin's view of slurmctld's records (see
 * skcompat.h). With SKC_RECORDS (configure --with-slurm-source), compiled
 * against slurmctld.h of the very release the plugin is built for, with
 * that tree's config.h: every field is read by name, the compiler takes
 * the layout from the release's own headers. Without it, only what needs
 * no layout: the available nodes, through slurmctld's exported bitmap and
 * libslurmfull's bitmap2node_name (the bitmap is passed back opaque).
 *
 * This file includes no header of the project's: Slurm's headers include
 * their own "config.h", which must be Slurm's. */
#include "skcompat.h"

#ifdef SKC_RECORDS
#include "src/slurmctld/slurmctld.h"

bool skc_have_records(void)
{
    return true;
}

void *skc_part_find(const char *name)
{
    /* find_part_record takes a char * it does not modify (22.05-25.11) */
    return find_part_record((char *)name);
}

void *skc_part_default(void)
{
    return default_part_loc;
}

char *skc_part_nodes(void *part)
{
    part_record_t *p = part;
    if (!p || p->magic != PART_MAGIC || !p->node_bitmap)
        return NULL;
    return bitmap2node_name(p->node_bitmap);
}

char *skc_avail_nodes(void)
{
    return avail_node_bitmap ? bitmap2node_name(avail_node_bitmap) : NULL;
}

char *skc_idle_nodes(void)
{
    return idle_node_bitmap ? bitmap2node_name(idle_node_bitmap) : NULL;
}

long skc_part_default_time(void *part)
{
    const part_record_t *p = part;
    if (!p || p->magic != PART_MAGIC)
        return 0;
    if (p->default_time != NO_VAL && p->default_time != INFINITE)
        return (long)p->default_time;
    return p->max_time != NO_VAL && p->max_time != INFINITE ? (long)p->max_time : 0;
}

bool skc_job_is_batch(void *job)
{
    const job_record_t *j = job;
    return j && j->magic == JOB_MAGIC && j->batch_flag;
}

char **skc_job_env(void *job, uint32_t *n)
{
    *n = 0;
    if (!skc_job_is_batch(job))
        return NULL;
    return get_job_env(job, n);
}

/* get_job_env's array (_read_data_array_from_file, the same in 22.05,
 * 24.11 and 25.11): the strings lie in one xmalloc'd block that starts at
 * env[0], the array is another. */
void skc_job_env_free(char **env, uint32_t n)
{
    if (!env)
        return;
    if (n)
        xfree(env[0]);
    xfree(env);
}

#else /* only the public headers */

/* Exported by slurmctld and libslurmfull, declared in their private
 * headers only; weak, so that the plugin still loads where they are not. */
extern void *avail_node_bitmap __attribute__((weak));
extern void *idle_node_bitmap __attribute__((weak));
extern char *bitmap2node_name(void *bitmap) __attribute__((weak));

bool skc_have_records(void)
{
    return false;
}

void *skc_part_find(const char *name)
{
    (void)name;
    return NULL;
}

void *skc_part_default(void)
{
    return NULL;
}

char *skc_part_nodes(void *part)
{
    (void)part;
    return NULL;
}

/* The nodes of a bitmap slurmctld exports, or NULL. */
static char *bitmap_nodes(void **bitmap)
{
    return bitmap && bitmap2node_name && *bitmap ? bitmap2node_name(*bitmap) : NULL;
}

char *skc_avail_nodes(void)
{
    return bitmap_nodes(&avail_node_bitmap ? &avail_node_bitmap : NULL);
}

char *skc_idle_nodes(void)
{
    return bitmap_nodes(&idle_node_bitmap ? &idle_node_bitmap : NULL);
}

long skc_part_default_time(void *part)
{
    (void)part;
    return 0;
}

bool skc_job_is_batch(void *job)
{
    (void)job;
    return false;
}

char **skc_job_env(void *job, uint32_t *n)
{
    (void)job;
    *n = 0;
    return NULL;
}

void skc_job_env_free(char **env, uint32_t n)
{
    (void)env;
    (void)n;
}
#endif
