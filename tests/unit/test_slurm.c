/* test_slurm: the plugin's library without Slurm (slurm/skelslurm.h):
 * #SKEL directives and their errors (naming the script line), skeleton.conf
 * keys, candidate nodes, the placement and the environment it becomes,
 * the time-limit warning, and absurd sizes. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "slurm/skelslurm.h"
#include "base/mem.h"
#include "placed.h"
#include "suite.h"

static const char *CONF =
    "# four nodes of different speeds\n"
    "Budget=500\n"
    "MaxStates=50000\n"
    "LocalLatency=0.0001\n"
    "DefaultLatency=0.001\n"
    "NodeName=n1 Speed=1\n"
    "NodeName=n2 Speed=4\n"
    "NodeName=n3 Speed=2\n"
    "NodeName=n4 Speed=8\n";

static const char *SCRIPT =
    "#!/bin/sh\n"
    "#SBATCH -J pipe\n"
    "#SKEL pipe(3);\n"
    "#SKEL   task(\"read\", 4.0);\n"
    "# an ordinary comment\n"
    "#SKEL   task(\"work\", 1.0);\n"
    "#SKEL   task(\"write\", 2.0);\n"
    "#SKEL --items 1000\n"
    "echo $SKEL_PLAN\n"
    "#SKEL --pin t0=n1\n";   /* after the first command: ignored, like #SBATCH */

static slurmsk_conf *conf_of(const char *text)
{
    diag err;
    diag_clear(&err);
    slurmsk_conf *c = slurmsk_conf_parse(text, strlen(text), "skeleton.conf", &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    return c;
}

/* Parse a script that must fail; the message is returned in err. */
static void parse_fails(const char *script, diag *err)
{
    slurmsk_job job;
    diag_clear(err);
    ck_assert_int_eq(slurmsk_directives_parse(script, strlen(script), "batch script", 32, &job, err), -1);
    ck_assert(err->set);
    ck_assert(job.tree == NULL && job.pins == NULL);
}

/* The CPU guards' factor: the sanitizer run (contrib/check-all.sh) sets
 * CK_TIMEOUT_MULTIPLIER=4 for Check's timeouts, and code under ASan+UBSan
 * runs several times slower, so the hang guards widen by the same factor
 * there (a hang still trips them). */
static double sanitizer_slowdown(void)
{
    const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
    double f = m ? atof(m) : 1.0;
    return f >= 1.0 ? f : 1.0;
}

START_TEST(directives_basic)
{
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(SCRIPT, strlen(SCRIPT), NULL, 32, &job, &err), 0);
    ck_assert(job.present);
    ck_assert_ptr_nonnull(job.tree);
    ck_assert_int_eq(skel_tree_ntasks(job.tree), 3);
    ck_assert(job.items == 1000);
    ck_assert_ptr_null(job.pins);      /* the --pin after "echo" is not a directive */
    ck_assert_int_eq(job.style, SKEL_STYLE_PRODUCER);
    slurmsk_job_clear(&job);

    const char *none = "#!/bin/sh\n#SBATCH -N1\nhostname\n";
    ck_assert_int_eq(slurmsk_directives_parse(none, strlen(none), NULL, 32, &job, &err), 0);
    ck_assert(!job.present && job.tree == NULL);
    slurmsk_job_clear(&job);
    ck_assert_int_eq(slurmsk_directives_parse(NULL, 0, NULL, 32, &job, &err), 0);
    ck_assert(!job.present);
    slurmsk_job_clear(&job);
    /* #SKELETON is not a directive */
    const char *word = "#!/bin/sh\n#SKELETON pipe(3);\nhostname\n";
    ck_assert_int_eq(slurmsk_directives_parse(word, strlen(word), NULL, 32, &job, &err), 0);
    ck_assert(!job.present);
    slurmsk_job_clear(&job);
}
END_TEST

START_TEST(directives_options)
{
    const char *s = "#!/bin/bash\n"
                    "#SKEL farm(3, \"w\", 1.0);\n"
                    "#SKEL --pin t0=n1\n"
                    "#SKEL --pin=t2=n4, t1=n2\n"
                    "#SKEL --style stream\n";
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(s, strlen(s), NULL, 32, &job, &err), 0);
    ck_assert_str_eq(job.pins, "t0=n1,t2=n4, t1=n2");
    ck_assert_int_eq(job.pin_line, 3);
    ck_assert_int_eq(job.style, SKEL_STYLE_STREAM);
    ck_assert_int_eq(skel_tree_ntasks(job.tree), 3);
    slurmsk_job_clear(&job);
}
END_TEST

START_TEST(directives_errors)
{
    diag err;
    /* a syntax error: the script's line and column */
    parse_fails("#!/bin/sh\n#SKEL pipe(2);\n#SKEL task(\"a\", 1.0);\n#SKEL task(\"b\" 1.0);\n", &err);
    ck_assert_msg(strncmp(err.msg, "batch script:4:", 15) == 0, "%s", err.msg);
    /* an option line among the skeleton lines keeps the numbering */
    parse_fails("#!/bin/sh\n#SKEL pipe(2);\n#SKEL --items 5\n#SKEL task(\"a\", 1.0);\n#SKEL task(\"b\" 1.0);\n", &err);
    ck_assert_msg(strncmp(err.msg, "batch script:5:", 15) == 0, "%s", err.msg);
    /* a missing component: names the pipe's line */
    parse_fails("#!/bin/sh\n\n#SKEL pipe(3);\n#SKEL task(\"a\", 1.0);\n", &err);
    ck_assert_msg(strstr(err.msg, "batch script:3:") != NULL, "%s", err.msg);
    parse_fails("#!/bin/sh\n#SKEL task(\"a\", 1.0);\n#SKEL --frobnicate 3\n", &err);
    ck_assert_msg(strstr(err.msg, "batch script:3:") && strstr(err.msg, "--frobnicate"), "%s", err.msg);
    parse_fails("#SKEL task(\"a\", 1.0);\n#SKEL --items -5\n", &err);
    ck_assert_msg(strstr(err.msg, "batch script:2:") && strstr(err.msg, "--items"), "%s", err.msg);
    parse_fails("#SKEL task(\"a\", 1.0);\n#SKEL --items 1e300\n", &err);
    ck_assert_msg(strstr(err.msg, ":2:") != NULL, "%s", err.msg);
    parse_fails("#SKEL task(\"a\", 1.0);\n#SKEL --style fast\n", &err);
    ck_assert_msg(strstr(err.msg, ":2:") != NULL, "%s", err.msg);
    parse_fails("#!/bin/sh\n#SKEL --pin t0=n1\n", &err);
    ck_assert_msg(strstr(err.msg, "no skeleton") && strstr(err.msg, ":2:"), "%s", err.msg);
    /* absurd sizes: more tasks than MaxTasks, a huge deal, a huge line */
    parse_fails("#SKEL deal(100, \"w\", 1.0);\n", &err);
    ck_assert_msg(strstr(err.msg, "MaxTasks") != NULL, "%s", err.msg);
    parse_fails("#SKEL deal(1000000000, \"w\", 1.0);\n", &err);
    size_t n = 10000;
    char *big = malloc(n + 16);
    memcpy(big, "#SKEL ", 6);
    memset(big + 6, ' ', n);
    memcpy(big + 6 + n, "x\n", 3);
    parse_fails(big, &err);
    ck_assert_msg(strstr(err.msg, "longer than") != NULL, "%s", err.msg);
    free(big);
}
END_TEST

START_TEST(directives_size_bounds)
{
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    /* larger than Slurm's script limit: refused without reading it */
    static const char dummy[1] = { '#' };
    ck_assert_int_eq(slurmsk_directives_parse(dummy, SLURMSK_MAX_SCRIPT + 1, NULL, 32, &job, &err), -1);
    ck_assert_msg(strstr(err.msg, "larger than") != NULL, "%s", err.msg);
    /* many comment lines before the directives: only the first
     * SLURMSK_MAX_LINES are looked at */
    size_t lines = SLURMSK_MAX_LINES + 10;
    char *s = malloc(lines * 2 + 64);
    size_t len = 0;
    for (size_t i = 0; i < lines; i++) {
        s[len++] = '#';
        s[len++] = '\n';
    }
    len += (size_t)sprintf(s + len, "#SKEL task(\"a\", 1.0);\n");
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(s, len, NULL, 32, &job, &err), 0);
    ck_assert(!job.present);
    slurmsk_job_clear(&job);
    free(s);
}
END_TEST

START_TEST(conf_keys)
{
    slurmsk_conf *c = conf_of(CONF);
    ck_assert(c->budget > 0.499 && c->budget < 0.501);
    ck_assert_uint_eq(c->max_states, 50000);
    ck_assert_int_eq(c->max_tasks, 32);
    ck_assert_int_eq(c->unknown_reject, 0);
    ck_assert_int_eq(c->bad_accept, 0);
    ck_assert_int_eq(c->plat->nnodes, 4);
    slurmsk_conf_free(c);

    c = conf_of("NodeName=a Speed=1\nUnknownNodes=reject\nBadInput=accept\nMaxTasks=4\n");
    ck_assert(c->budget > 0.049 && c->budget < 0.051);   /* default 50 ms */
    ck_assert_int_eq(c->unknown_reject, 1);
    ck_assert_int_eq(c->bad_accept, 1);
    ck_assert_int_eq(c->max_tasks, 4);
    slurmsk_conf_free(c);

    const char *bad[] = { "NodeName=a Speed=1\nBudget=0\n", "NodeName=a Speed=1\nBudget=abc\n",
                          "NodeName=a Speed=1\nMaxStates=1.5\n", "NodeName=a Speed=1\nBadInput=maybe\n",
                          "NodeName=a Speed=1\nUnknownNodes=x\n", "NodeName=a Speed=1\nFoo=1\n",
                          "Budget=10\n", "NodeName=a Speed=1\nMaxTasks=100000\n" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        diag err;
        diag_clear(&err);
        ck_assert_ptr_null(slurmsk_conf_parse(bad[i], strlen(bad[i]), "skeleton.conf", &err));
        ck_assert_msg(strncmp(err.msg, "skeleton.conf:", 14) == 0, "%s", err.msg);
    }
    diag err;
    diag_clear(&err);
    ck_assert_ptr_null(slurmsk_conf_load("/nonexistent/skeleton.conf", &err));
    ck_assert(err.set);
}
END_TEST

/* slurmsk_candidates on CONF's nodes n1..n4: the available nodes, the
 * job's partition, -x and -w, and whether a -w name skeleton.conf lacks is
 * refused. allowed: the flags of n1..n4 ("1110"), NULL: not checked; msg:
 * a word the refusal names. */
static const struct {
    const char *what, *avail, *part, *exclude, *require;
    int reject_unknown, want;
    const char *allowed, *msg;
} candidate_cases[] = {
    { "every node", NULL, NULL, NULL, NULL, 0, 4, "1111", NULL },
    { "names not in skeleton.conf ignored", "n[1-3],gpu7", NULL, NULL, NULL, 0, 3, "1110", NULL },
    { "-x", "n[1-4]", NULL, "n2", NULL, 0, 3, "1011", NULL },
    { "-x and -w", "n[1-4]", NULL, "n2", "n[2-3],other", 0, 1, "0010", NULL },
    { "-w naming an unknown node, refused", "n[1-4]", NULL, NULL, "n1,other", 1, -1, NULL, "other" },
    { "nothing available", "", NULL, NULL, NULL, 0, -1, NULL, "no node" },
    { "no described node available", "x[1-9]", NULL, NULL, NULL, 0, -1, NULL, "no node" },
    { "a hostlist too long", "n[1-99999999]", NULL, NULL, NULL, 0, -1, NULL, NULL },
    /* the partition restricts like the available nodes */
    { "partition", "n[1-4]", "n[1-2]", NULL, NULL, 0, 2, "1100", NULL },
    { "partition names not described or not available ignored", "n[2-4]", "n[1-3],gpu1", NULL,
      NULL, 0, 2, "0110", NULL },
    { "partition, -x and -w", NULL, "n[3-4]", "n3", "n[1-4]", 0, 1, "0001", NULL },
    { "-w outside the partition", "n[1-4]", "n[3-4]", NULL, "n1", 0, -1, NULL, "partition" },
    { "an empty partition", "n[1-4]", "", NULL, NULL, 0, -1, NULL, NULL },
    { "a partition's bad hostlist", "n[1-4]", "n[", NULL, NULL, 0, -1, NULL, "partition" },
};

START_TEST(candidates)
{
    slurmsk_conf *c = conf_of(CONF);
    for (size_t k = 0; k < sizeof candidate_cases / sizeof candidate_cases[0]; k++) {
        unsigned char a[4];
        diag err;
        diag_clear(&err);
        int n = slurmsk_candidates(c->plat, candidate_cases[k].avail, candidate_cases[k].part,
                                   candidate_cases[k].exclude, candidate_cases[k].require,
                                   candidate_cases[k].reject_unknown, a, &err);
        ck_assert_msg(n == candidate_cases[k].want, "%s: %d candidates, not %d (%s)",
                      candidate_cases[k].what, n, candidate_cases[k].want, err.msg);
        for (int j = 0; candidate_cases[k].allowed && j < 4; j++)
            ck_assert_msg(a[j] == (candidate_cases[k].allowed[j] == '1'), "%s: n%d", candidate_cases[k].what,
                          j + 1);
        if (candidate_cases[k].msg)
            ck_assert_msg(strstr(err.msg, candidate_cases[k].msg), "%s: %s", candidate_cases[k].what,
                          err.msg);
    }
    slurmsk_conf_free(c);
}
END_TEST

/* The job's partition: placement within it. */
START_TEST(candidates_partition)
{
    slurmsk_conf *c = conf_of(CONF);
    unsigned char a[4];
    diag err;
    diag_clear(&err);
    /* placement within the partition: the work stage cannot get n4 */
    const char *s = "#SKEL pipe(3);\n#SKEL task(\"a\", 4.0);\n#SKEL task(\"b\", 1.0);\n#SKEL task(\"c\", 2.0);\n";
    slurmsk_job job;
    ck_assert_int_eq(slurmsk_directives_parse(s, strlen(s), NULL, 32, &job, &err), 0);
    ck_assert_int_eq(slurmsk_candidates(c->plat, "n[1-4]", "n[1-3]", NULL, NULL, 0, a, &err), 3);
    slurmsk_plan plan;
    ck_assert_msg(slurmsk_place(c, &job, a, &plan, &err) == 0, "%s", err.msg);
    for (int i = 0; i < plan.ntasks; i++)
        ck_assert_int_ne(plan.node_of_task[i], 3);
    ck_assert_int_eq(plan.node_of_task[1], 1);     /* n2, the fastest of the partition */
    slurmsk_plan_clear(&plan);
    slurmsk_job_clear(&job);
    slurmsk_conf_free(c);
}
END_TEST

/* job_modify: which updates keep a placed job on its plan. */
START_TEST(modify_check)
{
    diag err;
    diag_clear(&err);
    const char *plan = "n2,n3,n4";
    ck_assert_int_eq(slurmsk_modify_check(plan, NULL, NULL, NULL, 0, 0, &err), 0);
    ck_assert_int_eq(slurmsk_modify_check(plan, "n[2-4]", NULL, NULL, 0, 0, &err), 0);
    ck_assert_int_eq(slurmsk_modify_check(plan, "n4,n2,n3", "n1", "n[1-4]", 3, 3, &err), 0);
    ck_assert_int_eq(slurmsk_modify_check(plan, NULL, "", NULL, 0, 0, &err), 0);
    const struct {
        const char *req, *exc, *part;
        unsigned long min, max;
        const char *want;
    } bad[] = {
        { "n[1-2]", NULL, NULL, 0, 0, "ReqNodeList" },
        { "n[1-4]", NULL, NULL, 0, 0, "ReqNodeList" },
        { "", NULL, NULL, 0, 0, "clearing" },
        { NULL, "n3", NULL, 0, 0, "excludes n3" },
        { NULL, NULL, "n[1-3]", 0, 0, "n4" },
        { NULL, NULL, "", 0, 0, "partition" },
        { NULL, NULL, NULL, 1, 0, "NumNodes" },
        { NULL, NULL, NULL, 0, 5, "NumNodes" },
        { "n[", NULL, NULL, 0, 0, "ReqNodeList" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        diag_clear(&err);
        ck_assert_int_eq(slurmsk_modify_check(plan, bad[i].req, bad[i].exc, bad[i].part, bad[i].min,
                                              bad[i].max, &err), -1);
        ck_assert_msg(strstr(err.msg, bad[i].want) != NULL, "%zu: %s", i, err.msg);
    }
}
END_TEST

/* Counting allocator, so that the test sees every block freed. */
static int live;
static void *t_grow(void *ptr, size_t count, size_t size)
{
    size_t old = ptr ? ((size_t *)ptr)[-1] : 0;
    void *v = ptr ? (size_t *)ptr - 1 : NULL;
    if (mem_grow(&v, 1, sizeof(size_t) + count * size) < 0)
        return NULL;
    size_t *b = v;
    if (!ptr)
        live++;
    if (count * size > old)
        memset((char *)(b + 1) + old, 0, count * size - old);
    b[0] = count * size;
    return b + 1;
}
static char *t_dup(const char *s)
{
    live++;
    return strdup(s);
}
static void t_release(void *p)
{
    if (p)
        live--;
    free(p);
}
static void t_free_env(char **env, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        t_release(env[i]);
    if (env) {
        live--;
        free((size_t *)env - 1);
    }
}
static char **t_env(const char *const *vars, uint32_t n, int terminated)
{
    char **e = t_grow(NULL, n + (terminated ? 1 : 0), sizeof *e);
    for (uint32_t i = 0; i < n; i++)
        e[i] = t_dup(vars[i]);
    return e;
}

/* The job's environment stays NULL-terminated with env_size entries,
 * variables replaced rather than repeated, however it came. */
START_TEST(env_apply)
{
    const slurmsk_alloc al = { t_grow, t_dup, t_release };
    char *vars[] = { "SKEL_PLAN=t0=n1 t1=n2", "SKEL_NODES=n1,n2", "SKEL_NTASKS=2" };
    live = 0;
    /* none yet */
    char **env = NULL;
    uint32_t n = 0;
    ck_assert_int_eq(slurmsk_env_apply(&env, &n, vars, 3, &al), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_ptr_null(env[3]);
    ck_assert_str_eq(env[1], "SKEL_NODES=n1,n2");
    t_free_env(env, n);
    /* a user environment with a stale SKEL_PLAN (twice) and no NULL after it */
    const char *user[] = { "PATH=/bin", "SKEL_PLAN=stale", "HOME=/root", "SKEL_PLAN=stale2" };
    env = t_env(user, 4, 0);
    n = 4;
    ck_assert_int_eq(slurmsk_env_apply(&env, &n, vars, 3, &al), 0);
    ck_assert_uint_eq(n, 6);
    ck_assert_ptr_null(env[6]);
    int plans = 0;
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_ptr_nonnull(env[i]);
        plans += strncmp(env[i], "SKEL_PLAN=", 10) == 0;
        ck_assert(strstr(env[i], "stale") == NULL);
    }
    ck_assert_int_eq(plans, 2);   /* both copies now hold the new plan */
    ck_assert_str_eq(env[0], "PATH=/bin");
    ck_assert_str_eq(env[4], "SKEL_NODES=n1,n2");
    ck_assert_str_eq(env[5], "SKEL_NTASKS=2");
    /* applied again: nothing added */
    ck_assert_int_eq(slurmsk_env_apply(&env, &n, vars, 3, &al), 0);
    ck_assert_uint_eq(n, 6);
    ck_assert_ptr_null(env[6]);
    t_free_env(env, n);
    /* a NULL array with a stale size: taken as empty */
    env = NULL;
    n = 7;
    ck_assert_int_eq(slurmsk_env_apply(&env, &n, vars, 1, &al), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_ptr_null(env[1]);
    t_free_env(env, n);
    ck_assert_int_eq(live, 0);
}
END_TEST

/* BPEL travels inline (sbatch --skeleton=FILE.bpel, or #SKEL lines):
 * detected by content, imported from memory. */
START_TEST(bpel_inline)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/bpel/order.bpel", getenv("SRCDIR") ? getenv("SRCDIR") : ".");
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    static char text[65536];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    ck_assert_msg(slurmsk_job_parse("#SKEL --items 10\n", 17, NULL, text, len, 32, &job, &err) == 0,
                  "%s", err.msg);
    ck_assert(job.present && job.bpel && job.tree);
    ck_assert(job.items == 10);
    int ntasks = skel_tree_ntasks(job.tree);
    ck_assert_int_ge(ntasks, 1);
    slurmsk_conf *c = conf_of(CONF);
    unsigned char a[4] = { 1, 1, 1, 1 };
    slurmsk_plan plan;
    ck_assert_msg(slurmsk_place(c, &job, a, &plan, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(plan.ntasks, ntasks);
    slurmsk_plan_clear(&plan);
    slurmsk_job_clear(&job);

    /* the same process in #SKEL lines: same tree size */
    size_t cap = len * 2 + 4096, sl = 0;
    char *script = malloc(cap);
    sl += (size_t)sprintf(script, "#!/bin/sh\n#SBATCH -J b\n");
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        sl += (size_t)sprintf(script + sl, "#SKEL %.*s\n", (int)l, p);
        p += l + (nl ? 1 : 0);
    }
    sl += (size_t)sprintf(script + sl, "hostname\n");
    ck_assert_msg(slurmsk_directives_parse(script, sl, NULL, 32, &job, &err) == 0, "%s", err.msg);
    ck_assert(job.bpel);
    ck_assert_int_eq(skel_tree_ntasks(job.tree), ntasks);
    slurmsk_job_clear(&job);

    /* broken XML in #SKEL lines: the message names the script's line */
    const char *bad = "#!/bin/sh\n#SBATCH -J b\n#SKEL <?xml version=\"1.0\"?>\n#SKEL <process>\n"
                      "#SKEL   <sequence>\n#SKEL </process>\nhostname\n";
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(bad, strlen(bad), NULL, 32, &job, &err), -1);
    ck_assert_msg(strncmp(err.msg, "batch script:6:", 15) == 0, "%s", err.msg);
    /* an empty #SKEL line first, and a file starting with blank lines */
    const char *bad2 = "#!/bin/sh\n#SKEL\n#SKEL <process>\n#SKEL </proces>\nhostname\n";
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(bad2, strlen(bad2), NULL, 32, &job, &err), -1);
    ck_assert_msg(strncmp(err.msg, "batch script:4:", 15) == 0, "%s", err.msg);
    const char *bad3 = "\n\n<process>\n</proces>\n";
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_job_parse(NULL, 0, NULL, bad3, strlen(bad3), 32, &job, &err), -1);
    ck_assert_msg(strncmp(err.msg, "--skeleton:4:", 13) == 0, "%s", err.msg);
    /* and in a --skeleton file: its own line */
    const char *badf = "<?xml version=\"1.0\"?>\n<process>\n  <sequence>\n</process>\n";
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_job_parse(NULL, 0, NULL, badf, strlen(badf), 32, &job, &err), -1);
    ck_assert_msg(strncmp(err.msg, "--skeleton:4:", 13) == 0, "%s", err.msg);
    /* parameters missing: defaults, listed in the job's warning */
    const char *bare = "<process name=\"p\" xmlns=\"http://docs.oasis-open.org/wsbpel/2.0/process/executable\">\n"
                       "  <sequence><receive name=\"r\" createInstance=\"yes\"/>\n"
                       "  <invoke name=\"a\"/><invoke name=\"b\"/></sequence>\n</process>\n";
    diag_clear(&err);
    ck_assert_msg(slurmsk_job_parse(NULL, 0, NULL, bare, strlen(bare), 32, &job, &err) == 0, "%s", err.msg);
    ck_assert(job.bpel && job.tree);
    ck_assert_msg(job.warning && strstr(job.warning, "default"), "%s", job.warning ? job.warning : "(none)");
    slurmsk_job_clear(&job);
    /* a DOCTYPE (entities) is refused: the controller expands nothing */
    const char *dt = "<?xml version=\"1.0\"?>\n<!DOCTYPE p [<!ENTITY x \"y\">]>\n<process/>\n";
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_job_parse(NULL, 0, NULL, dt, strlen(dt), 32, &job, &err), -1);
    ck_assert_msg(strstr(err.msg, "DOCTYPE") != NULL, "%s", err.msg);
    free(script);
    slurmsk_conf_free(c);
}
END_TEST

/* skeleton.conf's own keys as a callback for any platform reader (what
 * skelsched map --platform uses): accepted, checked, and unknown keys
 * still refused. */
START_TEST(conf_key_callback)
{
    slurmsk_conf k;
    slurmsk_conf_defaults(&k);
    diag err;
    diag_clear(&err);
    skel_platform *p = skel_platform_parse_string(CONF, strlen(CONF), "skeleton.conf", slurmsk_conf_key, &k, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    ck_assert_int_eq(p->nnodes, 4);
    ck_assert(k.budget > 0.499 && k.budget < 0.501);
    skel_platform_free(p);
    const char *bad = "NodeName=a Speed=1\nBudget=-1\n";
    ck_assert_ptr_null(skel_platform_parse_string(bad, strlen(bad), "skeleton.conf", slurmsk_conf_key, &k, &err));
    ck_assert_msg(strstr(err.msg, "skeleton.conf:2:") && strstr(err.msg, "Budget"), "%s", err.msg);
    const char *unk = "NodeName=a Speed=1\nBudgte=5\n";
    diag_clear(&err);
    ck_assert_ptr_null(skel_platform_parse_string(unk, strlen(unk), "skeleton.conf", slurmsk_conf_key, &k, &err));
    ck_assert_msg(strstr(err.msg, "Budgte") != NULL, "%s", err.msg);
}
END_TEST

static int env_has(const slurmsk_plan *p, const char *kv)
{
    for (int i = 0; i < p->nenv; i++)
        if (strcmp(p->env[i], kv) == 0)
            return 1;
    return 0;
}

START_TEST(place_pipeline)
{
    slurmsk_conf *c = conf_of(CONF);
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(SCRIPT, strlen(SCRIPT), NULL, 32, &job, &err), 0);
    unsigned char a[4] = { 1, 1, 1, 1 };
    slurmsk_plan plan;
    ck_assert_msg(slurmsk_place(c, &job, a, &plan, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(plan.ntasks, 3);
    ck_assert(plan.throughput > 0);
    /* the slowest stage (work, rate 1) gets the fastest node n4 */
    ck_assert_int_eq(plan.node_of_task[1], 3);
    ck_assert(env_has(&plan, "SKEL_NODES_T1=n4"));
    ck_assert(env_has(&plan, "SKEL_NTASKS=3"));
    char want[64];
    snprintf(want, sizeof want, "SKEL_NODES=%s", plan.req_nodes);
    ck_assert(env_has(&plan, want));
    int found = 0;
    for (int i = 0; i < plan.nenv; i++)
        found += strncmp(plan.env[i], "SKEL_PLAN=t0=", 13) == 0 || strncmp(plan.env[i], "SKEL_THROUGHPUT=", 16) == 0;
    ck_assert_int_eq(found, 2);
    /* speeds were restored */
    ck_assert(c->plat->nodes[0].speed == 1 && c->plat->nodes[3].speed == 8);
    char line[512];
    slurmsk_plan_describe(&plan, c->plat, line, sizeof line);
    ck_assert_msg(strstr(line, "tasks=3") && strstr(line, "t1=n4"), "%s", line);
    slurmsk_plan_clear(&plan);

    /* without n4 the work stage goes elsewhere, never to n4 */
    a[3] = 0;
    ck_assert_msg(slurmsk_place(c, &job, a, &plan, &err) == 0, "%s", err.msg);
    for (int i = 0; i < 3; i++)
        ck_assert_int_ne(plan.node_of_task[i], 3);
    ck_assert(c->plat->nodes[3].speed == 8);
    slurmsk_plan_clear(&plan);
    slurmsk_job_clear(&job);
    slurmsk_conf_free(c);
}
END_TEST

START_TEST(place_pins)
{
    slurmsk_conf *c = conf_of(CONF);
    const char *s = "#!/bin/sh\n#SKEL pipe(2);\n#SKEL task(\"a\", 1.0);\n#SKEL task(\"b\", 1.0);\n"
                    "#SKEL --pin t0=n1,t1=n3\n";
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(s, strlen(s), NULL, 32, &job, &err), 0);
    unsigned char a[4] = { 1, 1, 1, 1 };
    slurmsk_plan plan;
    ck_assert_msg(slurmsk_place(c, &job, a, &plan, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(plan.req_nodes, "n1,n3");
    ck_assert_int_eq(plan.nnodes, 2);
    ck_assert(env_has(&plan, "SKEL_PLAN=t0=n1 t1=n3"));
    slurmsk_plan_clear(&plan);
    /* a pin to a node the job may not use */
    a[2] = 0;
    ck_assert_int_eq(slurmsk_place(c, &job, a, &plan, &err), -1);
    ck_assert_msg(strstr(err.msg, "batch script:5:") && strstr(err.msg, "n3"), "%s", err.msg);
    slurmsk_job_clear(&job);

    /* a pin to an unknown node names the line */
    const char *u = "#SKEL task(\"a\", 1.0);\n\n#SKEL --pin t0=nosuch\n";
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(u, strlen(u), NULL, 32, &job, &err), 0);
    a[2] = 1;
    ck_assert_int_eq(slurmsk_place(c, &job, a, &plan, &err), -1);
    ck_assert_msg(strstr(err.msg, "batch script:3:") && strstr(err.msg, "nosuch"), "%s", err.msg);
    slurmsk_job_clear(&job);
    slurmsk_conf_free(c);
}
END_TEST

/* A one-server loop over a pipe, its body's two tasks sharing a node under
 * processor sharing (the review's case, 27 November, where gen crashed):
 * the plugin's decision, pinned and free, predicts the throughput of the
 * placement's own generated model (its Node<j> product) solved afresh, to test_share's 1e-8. */
static const char *LOOP_CONF = "LocalLatency=0.01\nDefaultLatency=0.05\nInput=h0\nOutput=h1\n"
                               "NodeName=h0 Speed=2\nNodeName=h1 Speed=3\nNodeName=h2 Speed=4\n";
static const char *LOOP_SKEL = "pipe(3); task(\"a\",2.0); loop(1.5); pipe(2); task(\"b\",3.0);"
                               " task(\"c\",4.0); task(\"d\",1.0);";

START_TEST(place_loop_shared)
{
    slurmsk_conf *c = conf_of(LOOP_CONF);
    char script[512];
    snprintf(script, sizeof script, "#!/bin/sh\n#SKEL %s\n%s", LOOP_SKEL,
             _i ? "#SKEL --pin t0=h0,t1=h2,t2=h2,t3=h1\n" : "");
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(script, strlen(script), NULL, 32, &job, &err), 0);
    unsigned char a[3] = { 1, 1, 1 };
    slurmsk_plan plan;
    ck_assert_msg(slurmsk_place(c, &job, a, &plan, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(plan.ntasks, 4);
    if (_i)
        ck_assert(plan.node_of_task[1] == 2 && plan.node_of_task[2] == 2);
    placed b;
    placed_build(&b, LOOP_SKEL, SKEL_STYLE_PRODUCER, LOOP_CONF);
    skel_model *m = skel_model_new_placed(b.tree, b.dag, b.plat, plan.node_of_task, &err);
    ck_assert_msg(m, "%s", err.msg);
    double fresh = placed_solve_thr(m->pepa, "comp_3", NULL);
    ck_assert_msg(fabs(plan.throughput - fresh) <= 1e-8 * fresh, "plan %.12g, generated %.12g",
                  plan.throughput, fresh);
    skel_model_free(m);
    placed_free(&b);
    slurmsk_plan_clear(&plan);
    slurmsk_job_clear(&job);
    slurmsk_conf_free(c);
}
END_TEST

START_TEST(place_bounded)
{
    /* a chain larger than MaxStates: placed by the large-scale search,
     * never refused (issue 15) */
    slurmsk_conf *c = conf_of("MaxStates=10\nNodeName=n[1-4] Speed=1\nLocalLatency=0.01\nDefaultLatency=0.01\n");
    const char *s = "#SKEL pipe(4);\n#SKEL task(\"a\", 1.0);\n#SKEL farm(3, \"b\", 1.0);\n"
                    "#SKEL task(\"c\", 1.0);\n#SKEL task(\"d\", 1.0);\n";
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(s, strlen(s), NULL, 32, &job, &err), 0);
    unsigned char a[4] = { 1, 1, 1, 1 };
    slurmsk_plan plan;
    ck_assert_msg(slurmsk_place(c, &job, a, &plan, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(plan.method, SKEL_SEARCH_APPROX);
    ck_assert_int_eq(plan.ntasks, 6);
    ck_assert(plan.throughput > 0);
    char line[512];
    slurmsk_plan_describe(&plan, c->plat, line, sizeof line);
    ck_assert_msg(strstr(line, " method=approximate"), "%s", line);
    slurmsk_plan_clear(&plan);
    slurmsk_job_clear(&job);
    slurmsk_conf_free(c);
}
END_TEST

/* Found by the soak test: in an xdeal of pipelines the throughput does not
 * depend on the second branch's nodes, so placements on a node the job may
 * not use (the fastest, n5, without a slurmd) tied with the best and one of
 * them came first: a valid job was refused. */
START_TEST(place_ties)
{
    slurmsk_conf *c = conf_of("Budget=500\nLocalLatency=0.0002\nDefaultLatency=0.002\nNodeName=n[1-2] Speed=3\n"
                              "NodeName=n3 Speed=1\nNodeName=n4 Speed=2\nNodeName=n5 Speed=16\n");
    const char *s = "#SKEL xdeal(2);\n#SKEL pipe(2); task(\"a\", 2); task(\"b\", 1);\n"
                    "#SKEL pipe(2); task(\"a\", 2); task(\"b\", 1);\n";
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(s, strlen(s), NULL, 32, &job, &err), 0);
    unsigned char a[5] = { 1, 1, 1, 1, 0 };
    slurmsk_plan plan;
    ck_assert_msg(slurmsk_place(c, &job, a, &plan, &err) == 0, "%s", err.msg);
    for (int i = 0; i < plan.ntasks; i++)
        ck_assert_int_ne(plan.node_of_task[i], 4);
    ck_assert_msg(plan.optimal, "method %s", skel_search_method_name(plan.method));
    slurmsk_plan_clear(&plan);
    slurmsk_job_clear(&job);
    slurmsk_conf_free(c);
}
END_TEST

START_TEST(spank_skeleton)
{
    const char *skel = "pipe(2);\n  task(\"a\", 1.0);\n  task(\"b\", 2.0);\n";
    const char *script = "#!/bin/sh\n#SKEL --pin t0=n1\nhostname\n";
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    ck_assert_msg(slurmsk_job_parse(script, strlen(script), NULL, skel, strlen(skel), 32, &job, &err) == 0,
                  "%s", err.msg);
    ck_assert(job.present && job.tree && job.pins);
    ck_assert_int_eq(skel_tree_ntasks(job.tree), 2);
    slurmsk_job_clear(&job);
    /* no script at all (srun) */
    ck_assert_int_eq(slurmsk_job_parse(NULL, 0, NULL, skel, strlen(skel), 32, &job, &err), 0);
    ck_assert(job.present && job.tree);
    slurmsk_job_clear(&job);
    /* both: an error */
    const char *both = "#SKEL task(\"a\", 1.0);\n";
    ck_assert_int_eq(slurmsk_job_parse(both, strlen(both), NULL, skel, strlen(skel), 32, &job, &err), -1);
    ck_assert_msg(strstr(err.msg, "--skeleton") != NULL, "%s", err.msg);
    /* errors in the file name it */
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_job_parse(NULL, 0, NULL, "pipe(2);", 8, 32, &job, &err), -1);
    ck_assert_msg(strncmp(err.msg, "--skeleton:1:", 13) == 0, "%s", err.msg);
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_job_parse(NULL, 0, NULL, skel, SLURMSK_MAX_SKELETON + 1, 32, &job, &err), -1);

    char *env[] = { "A=1", "SPANK_SKEL_SKELETON=pipe(1);", "B=2" };
    ck_assert_str_eq(slurmsk_spank_value(env, 3), "pipe(1);");
    ck_assert_ptr_null(slurmsk_spank_value(env, 1));
    ck_assert_ptr_null(slurmsk_spank_value(NULL, 0));
}
END_TEST

START_TEST(time_and_env)
{
    char buf[256];
    ck_assert_int_eq(slurmsk_time_check(1000, 1.0, 60, buf, sizeof buf), 0);
    ck_assert_int_eq(slurmsk_time_check(100000, 1.0, 60, buf, sizeof buf), 1);
    ck_assert_msg(strstr(buf, "60 min") != NULL, "%s", buf);
    ck_assert_int_eq(slurmsk_time_check(0, 1.0, 1, buf, sizeof buf), 0);
    ck_assert_int_eq(slurmsk_time_check(1e9, 1.0, 0, buf, sizeof buf), 0);

    char *env[] = { "PATH=/bin", "SKEL_PLAN=old", "SKEL_PLANX=1" };
    ck_assert_int_eq(slurmsk_env_find(env, 3, "SKEL_PLAN=t0=n1"), 1);
    ck_assert_int_eq(slurmsk_env_find(env, 3, "SKEL_PLANX=2"), 2);
    ck_assert_int_eq(slurmsk_env_find(env, 3, "SKEL=1"), -1);
    ck_assert_int_eq(slurmsk_env_find(NULL, 0, "A=1"), -1);
}
END_TEST

/* issue 17: a decision as the plugin and `skelsched plan` make it */
static slurmsk_decision decide(slurmsk_conf *c, const char *script, const slurmsk_request *base)
{
    slurmsk_request rq;
    if (base)
        rq = *base;
    else
        memset(&rq, 0, sizeof rq);
    rq.script = script;
    slurmsk_decision d;
    ck_assert_int_eq(slurmsk_decide(c, "the reason", &rq, &d), 0);
    return d;
}

static const char *PIPE3 = "#!/bin/sh\n#SBATCH -J p\n#SKEL pipe(3);\n#SKEL task(\"a\", 4.0);\n"
                           "#SKEL task(\"b\", 1.0);\n#SKEL task(\"c\", 2.0);\n#SKEL --items 100000\n";

START_TEST(decide_lines_and_faults)
{
    slurmsk_conf *c = conf_of(CONF);
    /* a lone option at line 3 is reported at line 3, not 1 */
    slurmsk_decision d = decide(c, "#!/bin/sh\n#SBATCH -J x\n#SKEL --items 100\nhostname\n", NULL);
    ck_assert(d.present && !d.accepted);
    ck_assert_int_eq(d.fault, SLURMSK_FAULT_SYNTAX);
    ck_assert_msg(strstr(d.user, "skeleton: batch script:3: #SKEL options but no skeleton"), "%s", d.user);
    slurmsk_decision_clear(&d);
    /* a pin to an unknown node: its kind, and no path of the site's */
    d = decide(c, "#SKEL task(\"a\", 1.0);\n#SKEL --pin t0=nosuch\n", NULL);
    ck_assert_int_eq(d.fault, SLURMSK_FAULT_NODE_NAME);
    ck_assert_msg(strstr(d.user, "batch script:2: #SKEL --pin: t0=nosuch: no node nosuch in skeleton.conf"),
                  "%s", d.user);
    slurmsk_decision_clear(&d);
    d = decide(c, "#SKEL deal(100, \"w\", 1.0);\n", NULL);
    ck_assert_int_eq(d.fault, SLURMSK_FAULT_SIZE);
    slurmsk_decision_clear(&d);
    /* a pin outside -w */
    slurmsk_request rq;
    memset(&rq, 0, sizeof rq);
    rq.req_nodes = "n1";
    d = decide(c, "#SKEL task(\"a\", 1.0);\n#SKEL --pin t0=n2\n", &rq);
    ck_assert_int_eq(d.fault, SLURMSK_FAULT_NODE_AVAIL);
    slurmsk_decision_clear(&d);
    rq.req_nodes = NULL;
    rq.exc_nodes = "n[1-4]";
    d = decide(c, PIPE3, &rq);
    ck_assert_int_eq(d.fault, SLURMSK_FAULT_NO_NODES);
    slurmsk_decision_clear(&d);
    /* no usable conf: the user is not told the reason (a path), the log is */
    d = decide(NULL, PIPE3, NULL);
    ck_assert_int_eq(d.fault, SLURMSK_FAULT_CONF);
    ck_assert_msg(!d.accepted && strstr(d.log, "the reason") && !strstr(d.user, "the reason"), "%d [%s] [%s]", d.accepted, d.log, d.user);
    slurmsk_decision_clear(&d);
    /* no #SKEL: nothing to decide */
    d = decide(c, "#!/bin/sh\nhostname\n", NULL);
    ck_assert(!d.present && d.accepted && !d.user);
    slurmsk_decision_clear(&d);
    slurmsk_conf_free(c);
}
END_TEST

START_TEST(decide_max_states)
{
    /* the model is larger than MaxStates: placed all the same, by the
     * large-scale search, and the log line says so (issue 15) */
    slurmsk_conf *c = conf_of("Budget=500\nMaxStates=10\nNodeName=n[1-4] Speed=1\nLocalLatency=0.01\nDefaultLatency=0.01\n");
    slurmsk_decision d = decide(c, "#!/bin/sh\n\n#SKEL pipe(3);\n#SKEL task(\"a\", 1.0);\n"
                                   "#SKEL farm(3, \"b\", 1.0);\n#SKEL task(\"c\", 1.0);\n", NULL);
    ck_assert_msg(d.accepted && d.fault == SLURMSK_FAULT_NONE, "%d %s", d.fault, d.user ? d.user : "");
    ck_assert_msg(d.log && strstr(d.log, " method=approximate"), "%s", d.log ? d.log : "");
    /* and the submitter is told, in terms an sbatch user can act on */
    ck_assert_msg(strstr(d.user, "(estimated)") &&
                  strstr(d.user, "skeleton: warning: the skeleton's performance model has more than 10 "
                                 "states, this site's limit (MaxStates=10)") &&
                  strstr(d.user, "ask the administrators") && !strstr(d.user, "--max-states"),
                  "%s", d.user);
    slurmsk_decision_clear(&d);
    slurmsk_conf_free(c);
}
END_TEST

/* CPU seconds this process has used (the hang guard: no wall clock). */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

START_TEST(decide_deadline)
{
    /* Budget=1 (ms) and skeletons of every size up to a pipe of two
     * 100-worker farms: each is placed (never refused because the time ran
     * out), the log names the method, and the decision is cut by its one
     * deadline. The guard bounds CPU time, 10x the 500 ms cap per decision
     * (no wall-clock assertion: the machine may be loaded). */
    slurmsk_conf *c = conf_of("Budget=1\nMaxTasks=1024\nLocalLatency=0.0001\nDefaultLatency=0.001\n"
                              "NodeName=a[1-4] Speed=1\nNodeName=b[1-4] Speed=2\n"
                              "NodeName=c[1-4] Speed=4\nNodeName=d[1-4] Speed=8\n");
    static const char *const jobs[] = {
        "#SKEL pipe(2);\n#SKEL task(\"a\", 1.0);\n#SKEL task(\"b\", 2.0);\n",
        "#SKEL pipe(3);\n#SKEL task(\"s\", 20.0);\n#SKEL deal(30, \"w\", 1.0);\n#SKEL task(\"t\", 20.0);\n",
        "#SKEL farm(1000, \"w\", 1.0);\n",
        "#SKEL pipe(5);\n#SKEL task(\"src\", 50.0);\n#SKEL farm(100, \"v\", 1.0);\n"
        "#SKEL task(\"mid\", 50.0);\n#SKEL farm(100, \"w\", 1.0);\n#SKEL task(\"sink\", 50.0);\n",
    };
    for (unsigned k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
        double cpu0 = cpu_seconds();
        slurmsk_decision d = decide(c, jobs[k], NULL);
        double cpu = cpu_seconds() - cpu0;
        ck_assert_msg(d.accepted && d.fault == SLURMSK_FAULT_NONE, "job %u: %d %s", k, d.fault,
                      d.user ? d.user : "");
        ck_assert_msg(d.log && (strstr(d.log, " method=exact") || strstr(d.log, " method=approximate")),
                      "job %u: %s", k, d.log ? d.log : "");
        ck_assert_msg(d.plan.throughput > 0 && d.plan.nnodes >= 1, "job %u", k);
        ck_assert_msg(cpu < 10 * SLURMSK_LOCKED_BUDGET * sanitizer_slowdown(), "job %u: %.2f s of CPU",
                      k, cpu);
        slurmsk_decision_clear(&d);
    }
    slurmsk_conf_free(c);
}
END_TEST

START_TEST(decide_shape_and_warnings)
{
    slurmsk_conf *c = conf_of("Budget=500\nNodeName=n1 Speed=1 CPUs=4\nNodeName=n2 Speed=1 CPUs=1\n"
                              "LocalLatency=0.0001\nDefaultLatency=0.001\n");
    slurmsk_request rq;
    memset(&rq, 0, sizeof rq);
    rq.min_nodes = 5;
    rq.num_tasks = 8;
    rq.array = 1;
    rq.default_time = 1;       /* no -t: the partition's default */
    slurmsk_decision d = decide(c, PIPE3, &rq);
    ck_assert_msg(d.accepted && d.fault == SLURMSK_FAULT_NONE, "%s", d.user);
    /* one Slurm task per skeleton task as far as the CPUs hold them */
    ck_assert(d.num_tasks >= 2 && d.num_tasks <= 3);
    /* 3 tasks on 2 nodes: 2 on one of them, at most its CPUs= */
    ck_assert_int_eq(d.plan.max_per_node, 2);
    ck_assert_uint_ge(d.min_cpus, 1);
    ck_assert_uint_le(d.min_cpus, 2);
    ck_assert_msg(strstr(d.user, "skeleton: warning: -N 5 replaced by the plan's 2 nodes"), "%s", d.user);
    ck_assert_msg(strstr(d.user, "skeleton: warning: -n 8 replaced by the plan's "), "%s", d.user);
    ck_assert_msg(strstr(d.user, "skeleton: plan t0="), "%s", d.user);
    ck_assert_msg(strstr(d.user, "a job array"), "%s", d.user);
    ck_assert_msg(strstr(d.user, "time limit of 1 min (the partition's default"), "%s", d.user);
    ck_assert_msg(strstr(d.log, "cpus_per_node="), "%s", d.log);
    slurmsk_decision_clear(&d);
    /* -c 2: twice the CPUs, capped by CPUs= */
    memset(&rq, 0, sizeof rq);
    rq.cpus_per_task = 2;
    rq.req_nodes = "n1";
    d = decide(c, PIPE3, &rq);
    ck_assert_int_eq(d.min_cpus, 4);          /* 3 tasks x 2, n1 has 4 */
    ck_assert_int_eq(d.num_tasks, 2);         /* 4 CPUs hold 2 tasks of 2 */
    slurmsk_decision_clear(&d);
    slurmsk_conf_free(c);
    /* more tasks than CPUs (9 on 2 nodes of 2): the job asks for what the
     * nodes have, never more (it would be refused) */
    c = conf_of("Budget=500\nNodeName=n[1-2] Speed=1 CPUs=2\nLocalLatency=0.0001\nDefaultLatency=0.001\n");
    d = decide(c, "#SKEL deal(9, \"w\", 1.0);\n", NULL);
    ck_assert_msg(d.accepted && d.fault == SLURMSK_FAULT_NONE, "%s", d.user);
    ck_assert_int_le(d.min_cpus, 2);
    ck_assert_int_le(d.num_tasks * 1, (unsigned long)d.plan.nnodes * d.min_cpus);
    slurmsk_decision_clear(&d);
    slurmsk_conf_free(c);
}
END_TEST

START_TEST(decide_prefers_idle)
{
    /* n3 and n4 are interchangeable: a busy n3 gives way to an idle n4 */
    slurmsk_conf *c = conf_of("Budget=500\nNodeName=n1 Speed=1\nNodeName=n2 Speed=2\nNodeName=n[3-4] Speed=8\n"
                              "LocalLatency=0.0001\nDefaultLatency=0.001\n");
    slurmsk_request rq;
    memset(&rq, 0, sizeof rq);
    slurmsk_decision d = decide(c, "#SKEL task(\"a\", 1.0);\n", &rq);
    ck_assert_str_eq(d.plan.req_nodes, "n3");    /* no preference: the first of the class */
    slurmsk_decision_clear(&d);
    rq.idle = "n1,n2,n4";
    d = decide(c, "#SKEL task(\"a\", 1.0);\n", &rq);
    ck_assert_str_eq(d.plan.req_nodes, "n4");
    ck_assert_msg(strstr(d.user, "t0=n4"), "%s", d.user);
    slurmsk_decision_clear(&d);
    /* a pin keeps its node, busy or not */
    d = decide(c, "#SKEL task(\"a\", 1.0);\n#SKEL --pin t0=n3\n", &rq);
    ck_assert_str_eq(d.plan.req_nodes, "n3");
    slurmsk_decision_clear(&d);
    /* no equal idle node: the busy one stays */
    rq.idle = "n1,n2";
    d = decide(c, "#SKEL task(\"a\", 1.0);\n", &rq);
    ck_assert_str_eq(d.plan.req_nodes, "n3");
    slurmsk_decision_clear(&d);
    slurmsk_conf_free(c);
}
END_TEST

START_TEST(conf_budget_cap_and_describe)
{
    slurmsk_conf *c = conf_of("Budget=60000\nBadInput=accept\nNodeName=n1 Speed=1\n");
    ck_assert(c->budget > 59.9);
    ck_assert(slurmsk_budget(c) <= SLURMSK_LOCKED_BUDGET);
    char buf[512];
    slurmsk_conf_describe(c, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "Budget=60000ms (capped to 500ms") && strstr(buf, "MaxTasks=32") &&
                  strstr(buf, "BadInput=accept") && strstr(buf, "UnknownNodes=ignore"), "%s", buf);
    slurmsk_conf_free(c);
    /* BadInput=accept: the message is labelled a warning */
    c = conf_of("BadInput=accept\nNodeName=n1 Speed=1\n");
    slurmsk_decision d = decide(c, "#SKEL pipe(2);\n#SKEL task(\"a\", 1.0);\n", NULL);
    ck_assert(d.accepted && d.present && d.fault != SLURMSK_FAULT_NONE);
    ck_assert_msg(strncmp(d.user, "skeleton: warning: batch script:1:", 34) == 0, "%s", d.user);
    slurmsk_decision_clear(&d);
    slurmsk_conf_free(c);
    /* CPUs= belongs on NodeName lines */
    diag err;
    diag_clear(&err);
    const char *bad = "CPUs=4\nNodeName=n1 Speed=1\n";
    ck_assert_ptr_null(slurmsk_conf_parse(bad, strlen(bad), "skeleton.conf", &err));
    ck_assert_msg(strstr(err.msg, "NodeName"), "%s", err.msg);
    /* an error after a CPUs= line: the CPUs= lines kept so far are freed
     * with the rest (they leaked: ASan's leak check) */
    const char *late = "NodeName=n1 Speed=1 CPUs=2\nBudget=abc\n";
    diag_clear(&err);
    ck_assert_ptr_null(slurmsk_conf_parse(late, strlen(late), "skeleton.conf", &err));
    ck_assert_msg(strstr(err.msg, "skeleton.conf:2:") && strstr(err.msg, "Budget="), "%s", err.msg);
}
END_TEST

START_TEST(conf_path_hidden)
{
    /* a loaded conf names itself "skeleton.conf" in what users see */
    char path[] = "/tmp/test_slurm_confXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char *text = "NodeName=n1 Speed=1\nLocalLatency=0.001\n";
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    diag err;
    diag_clear(&err);
    slurmsk_conf *c = slurmsk_conf_load(path, &err);
    unlink(path);
    ck_assert_msg(c != NULL, "%s", err.msg);
    slurmsk_decision d = decide(c, "#SKEL task(\"a\", 1.0);\n#SKEL --pin t0=n9\n", NULL);
    ck_assert_msg(!strstr(d.user, "/tmp") && strstr(d.user, "skeleton.conf"), "%s", d.user);
    slurmsk_decision_clear(&d);
    slurmsk_conf_free(c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("slurm");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, directives_basic);
    tcase_add_test(tc, directives_options);
    tcase_add_test(tc, directives_errors);
    tcase_add_test(tc, directives_size_bounds);
    tcase_add_test(tc, conf_keys);
    tcase_add_test(tc, candidates);
    tcase_add_test(tc, candidates_partition);
    tcase_add_test(tc, modify_check);
    tcase_add_test(tc, env_apply);
    tcase_add_test(tc, bpel_inline);
    tcase_add_test(tc, conf_key_callback);
    tcase_add_test(tc, place_pipeline);
    tcase_add_test(tc, place_pins);
    tcase_add_loop_test(tc, place_loop_shared, 0, 2);
    tcase_add_test(tc, place_bounded);
    tcase_add_test(tc, place_ties);
    tcase_add_test(tc, time_and_env);
    tcase_add_test(tc, spank_skeleton);
    tcase_add_test(tc, decide_lines_and_faults);
    tcase_add_test(tc, decide_max_states);
    tcase_add_test(tc, decide_deadline);
    tcase_add_test(tc, decide_shape_and_warnings);
    tcase_add_test(tc, decide_prefers_idle);
    tcase_add_test(tc, conf_budget_cap_and_describe);
    tcase_add_test(tc, conf_path_hidden);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
