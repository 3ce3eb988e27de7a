/* skelrun: one task of a real skeleton pipeline, for the fidelity harness
 * (docs/fidelity.md). Every task of a job runs as its own process, started
 * by the job script with `srun -w "$SKEL_NODES_T<i>" skelrun ... --task i`;
 * items flow through TCP (127.0.0.1: the test cluster's nodes share one
 * machine) along the skeleton's task graph, as skelsched's model describes
 * the job (skeleton/, docs/platform.md):
 *
 *  - work: each item costs 1/rate seconds at Speed 1, fixed (--work fixed)
 *    or exponential (--work exp). A node of speed q is emulated by
 *    self-pacing (../shared/notes/fidelity-testbed.md): the task burns real
 *    CPU in short slices and sleeps until a node of speed q would have done
 *    the work, shared equally among the tasks of the node computing at the
 *    time (--sharing ps: a counter per node in shared memory) or among all
 *    tasks placed on it (--sharing static);
 *  - links: each item carries the time at which it may be delivered, its
 *    sending time plus the latency of the move (fixed or exponential,
 *    --latency), and the receiver waits until then. With the capacity of
 *    the move 0 (rendezvous) the receiver asks for the item when it is ready
 *    and both ends are blocked for the whole latency; with capacity N the
 *    sender goes on while fewer than N of its items on that move are not yet
 *    taken (a credit returns when the receiver takes one);
 *  - several partners on rendezvous moves (a farm's producer, its
 *    collector): as the generated PEPA model (skeleton/gen.c) says, the
 *    task offers every one of those moves at once and is blocked until
 *    one completes; each move whose other end is ready too runs its own
 *    clock (start: the later of the two ends' ready times, plus a drawn
 *    latency) and the first to end wins, the others' ends staying blocked
 *    and starting a fresh clock in the next race (exact for exponential
 *    latencies, the model's). The task with several partners is the
 *    arbiter: its partners tell it when they are ready (a credit from a
 *    producer's worker, an offer to a collector), it waits until the
 *    earliest clock has ended plus a grace for messages that the machine's
 *    load delayed, and tells the winner;
 *  - the last task (the sink) writes the time each item completes.
 *
 * Time is kept as the emulated system's (the task's virtual clock): a task
 * that wakes up late from a sleep or a poll (this machine is shared and
 * loaded) starts its next step at the time it should have, and catches up,
 * so wake-up latencies do not add up into the measured throughput. A
 * rendezvous starts when the later of the two ends was ready (the credit
 * carries the receiver's time), a buffered hand-off when the sender was
 * ready or, if it had to wait for room, when the room was freed.
 *
 * Pipes and farms only (with buffered moves a farm's sender hands each item
 * to a worker with room, at random among them; a receiver takes the
 * earliest delivered). A rendezvous between two tasks that both have
 * several partners (two adjacent farms) has no runner. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"
#include "skeleton/skeleton.h"

#define MAX_PEERS 64
#define SLICE 0.00025        /* seconds of emulated work between looks at the node */
#define BURN 0.1             /* fraction of each slice spent burning real CPU */
#define GRACE 0.003          /* seconds an arbiter waits past a race's end for
                                partners' messages the load delayed */

/* MSG_CREDIT is also an arbiter's answer to an offer: the move ended at .at */
enum { MSG_ITEM = 1, MSG_CREDIT = 2, MSG_END = 3, MSG_OFFER = 4 };

typedef struct msg {
    int32_t type;
    int32_t pad;
    double at;               /* MSG_ITEM: monotonic time it may be taken;
                                MSG_CREDIT: the time the room was made */
} msg;

typedef struct peer {
    int fd, task, edge;
    int credit;              /* out: items we may still send */
    double credit_at;        /* out: the time of the latest credit */
    int cap;                 /* the move's capacity (0: rendezvous) */
    double latency;          /* mean seconds */
    int ended;               /* in: MSG_END seen */
    int asked;               /* in, rendezvous: a credit (or, out, an offer) is out */
    int arbiter;             /* out, rendezvous: the receiver picks among its senders */
    double offer_at;         /* in, we arbitrate: when the sender was ready (< 0: not) */
    double clock;            /* the end of this move in the current race (< 0: none) */
    double *pending;         /* in: delivery times of items received */
    int npending, maxpending;
} peer;

typedef struct run {
    int task, items, port_base;
    double work;             /* seconds per item at Speed 1 */
    int work_exp, lat_exp, ps;
    double speed;
    int placed;              /* tasks placed on this node */
    atomic_int *busy;        /* tasks of this node computing (ps) */
    peer in[MAX_PEERS], out[MAX_PEERS];
    int nin, nout;
    int race_in;             /* several rendezvous senders: we pick among them */
    int races, late;         /* races decided; partners' messages that came
                                after a race they could have entered */
    double decided;          /* the end of the last race decided */
    uint64_t rng;
    double vt;               /* the task's virtual clock */
    FILE *sink;
} run;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    double d = t - now();
    if (d <= 0)
        return;
    struct timespec ts = { (time_t)d, (long)((d - floor(d)) * 1e9) };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "skelrun: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(1);
}

/* SplitMix64's finaliser: a well-mixed, never-zero state for xorshift */
static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x ? x : 1;
}

/* xorshift64*: a fixed stream per task (reproducible runs) */
static double uniform(run *r)
{
    r->rng ^= r->rng >> 12;
    r->rng ^= r->rng << 25;
    r->rng ^= r->rng >> 27;
    return ((r->rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double draw(run *r, double mean, int exponential)
{
    return exponential ? -mean * log(1 - uniform(r)) : mean;
}

/* ---- work ---------------------------------------------------------------- */

static void burn(double seconds)
{
    double end = now() + seconds;
    volatile double x = 1;
    while (now() < end)
        for (int k = 0; k < 200; k++)
            x = x * 1.0000001 + 1e-9;
}

/* w seconds of Speed-1 work on a node of speed q shared as the model says,
 * from the virtual time on. */
static void compute(run *r, double w)
{
    if (r->ps)
        atomic_fetch_add(r->busy, 1);
    double last = r->vt, rate = r->speed;
    while (w > 0) {
        int n = r->ps ? atomic_load(r->busy) : r->placed;
        rate = r->speed / (n > 0 ? n : 1);
        double slice = w / rate < SLICE ? w / rate : SLICE;
        burn(slice * BURN);
        sleep_until(last + slice);
        double t = now();
        w -= (t - last) * rate;
        last = t;
    }
    r->vt = last + w / rate;     /* w <= 0: the work was done that much earlier */
    if (r->ps)
        atomic_fetch_sub(r->busy, 1);
}

/* ---- messages ------------------------------------------------------------ */

static void send_msg(int fd, int type, double at)
{
    msg m = { type, 0, at };
    /* a credit to a sender that has finished is of no use: ignore EPIPE */
    if (write(fd, &m, sizeof m) == (ssize_t)sizeof m)
        return;
    if (!(type == MSG_CREDIT && (errno == EPIPE || errno == ECONNRESET)))
        die("write: %s", strerror(errno));
}

/* Read one message of p (blocking) and account for it. */
static void read_msg(run *r, peer *p, int incoming)
{
    msg m;
    size_t got = 0;
    while (got < sizeof m) {
        ssize_t k = read(p->fd, (char *)&m + got, sizeof m - got);
        if (k <= 0)
            die("a peer closed its connection (%s)", k < 0 ? strerror(errno) : "EOF");
        got += (size_t)k;
    }
    if (!incoming && m.type == MSG_CREDIT) {
        p->credit++;
        p->credit_at = m.at;
        r->late += p->cap == 0 && r->nout > 1 && m.at < r->decided;
        return;
    }
    if (incoming && m.type == MSG_END) {
        p->ended = 1;
        return;
    }
    if (incoming && m.type == MSG_OFFER && r->race_in) {
        p->offer_at = m.at;
        r->late += m.at < r->decided;
        return;
    }
    if (!incoming || m.type != MSG_ITEM)
        die("unexpected message %s", "");
    if (p->npending == p->maxpending) {
        p->maxpending = p->maxpending ? 2 * p->maxpending : 16;
        if (mem_grow((void **)&p->pending, (size_t)p->maxpending, sizeof *p->pending) < 0)
            die("out of memory%s", "");
    }
    p->pending[p->npending++] = m.at;
}

/* Wait for a message on any peer of the set and read it; with a deadline
 * (monotonic seconds; < 0: none), 0 when it passed without one. */
static int wait_any(run *r, int incoming, double deadline)
{
    peer *ps = incoming ? r->in : r->out;
    int n = incoming ? r->nin : r->nout, got;
    struct pollfd pf[MAX_PEERS];
    for (int k = 0; k < n; k++)
        pf[k] = (struct pollfd){ incoming && ps[k].ended ? -1 : ps[k].fd, POLLIN, 0 };
    for (;;) {
        int ms = deadline < 0 ? -1 : (int)ceil((deadline - now()) * 1000);
        if (deadline >= 0 && ms <= 0)
            return 0;
        if ((got = poll(pf, (nfds_t)n, ms)) >= 0)
            break;
        if (errno != EINTR)
            die("poll: %s", strerror(errno));
    }
    for (int k = 0; k < n; k++)
        if (pf[k].revents)
            read_msg(r, &ps[k], incoming);
    return got > 0;
}

/* ---- races: a rendezvous with several partners ----------------------------- */

/* The partner whose move ends first among those ready (ready[k] >= 0: the
 * time partner k was ready), drawing the clocks of the ones new to this
 * race; -1 when none is ready. */
static int race_winner(run *r, peer *ps, int n, const double *ready)
{
    int win = -1;
    for (int k = 0; k < n; k++) {
        if (ready[k] < 0)
            continue;
        if (ps[k].clock < 0)
            ps[k].clock = (ready[k] > r->vt ? ready[k] : r->vt) + draw(r, ps[k].latency, r->lat_exp);
        if (win < 0 || ps[k].clock < ps[win].clock)
            win = k;
    }
    return win;
}

/* The race is decided: the winner's move ended at its clock. */
static void race_end(run *r, peer *ps, int n, int win)
{
    r->vt = ps[win].clock;
    for (int k = 0; k < n; k++)
        ps[k].clock = -1;
    if (n > 1) {
        r->decided = r->vt;
        r->races++;
    }
}

/* ---- the task's cycle: receive, compute, send ---------------------------- */

/* The earliest item delivered or in transit, over all incoming moves;
 * -1 when there is none yet. */
static int earliest(run *r, int *slot)
{
    int best = -1;
    for (int k = 0; k < r->nin; k++)
        for (int j = 0; j < r->in[k].npending; j++)
            if (best < 0 || r->in[k].pending[j] < r->in[best].pending[*slot]) {
                best = k;
                *slot = j;
            }
    return best;
}

/* Several rendezvous senders: they offer their items, we take the one
 * whose move ends first; 0 when every sender has ended. */
static int receive_race(run *r)
{
    double ready[MAX_PEERS];
    for (;;) {
        int open = 0;
        for (int k = 0; k < r->nin; k++) {
            ready[k] = r->in[k].offer_at;
            open += !r->in[k].ended;
        }
        int win = race_winner(r, r->in, r->nin, ready);
        if (win < 0 && !open)
            return 0;
        if (wait_any(r, 1, win < 0 ? -1 : r->in[win].clock + GRACE))
            continue;                                   /* news: look again */
        race_end(r, r->in, r->nin, win);
        r->in[win].offer_at = -1;
        send_msg(r->in[win].fd, MSG_CREDIT, r->vt);     /* the sender goes on from then */
        return 1;
    }
}

/* Take the next item; 0 when every sender has ended. */
static int receive(run *r)
{
    if (r->race_in)
        return receive_race(r);
    for (;;) {
        for (int k = 0; k < r->nin; k++)
            if (r->in[k].cap == 0 && !r->in[k].asked && !r->in[k].ended) {
                send_msg(r->in[k].fd, MSG_CREDIT, r->vt);   /* ready: the move may start */
                r->in[k].asked = 1;
            }
        int slot = 0, k = earliest(r, &slot);
        if (k >= 0) {
            peer *p = &r->in[k];
            sleep_until(p->pending[slot]);
            if (p->pending[slot] > r->vt)
                r->vt = p->pending[slot];
            p->pending[slot] = p->pending[--p->npending];
            if (p->cap > 0)
                send_msg(p->fd, MSG_CREDIT, r->vt);      /* its room is free again */
            else
                p->asked = 0;
            return 1;
        }
        int open = 0;
        for (int j = 0; j < r->nin; j++)
            open += !r->in[j].ended;
        if (!open)
            return 0;
        wait_any(r, 1, -1);
    }
}

/* Rendezvous to a receiver that picks among several senders: offer the
 * item and stay blocked until it says the move has ended. */
static void offer(run *r, peer *p)
{
    send_msg(p->fd, MSG_OFFER, r->vt);
    while (p->credit == 0)
        wait_any(r, 0, -1);
    p->credit--;
    r->vt = p->credit_at;
    sleep_until(r->vt);
}

/* Rendezvous to receivers that ask (a credit each when ready): the move
 * that ends first wins, with one partner simply the move to it. */
static void send_race(run *r)
{
    double ready[MAX_PEERS];
    for (;;) {
        for (int k = 0; k < r->nout; k++)
            ready[k] = r->out[k].credit > 0 ? r->out[k].credit_at : -1;
        int win = race_winner(r, r->out, r->nout, ready);
        if (win < 0 || r->nout > 1) {
            if (wait_any(r, 0, win < 0 ? -1 : r->out[win].clock + GRACE))
                continue;
        }
        race_end(r, r->out, r->nout, win);
        send_msg(r->out[win].fd, MSG_ITEM, r->vt);
        r->out[win].credit--;
        sleep_until(r->vt);            /* blocked for the whole move */
        return;
    }
}

/* Buffered moves: hand the item to a move with room, at random among them. */
static void send_buffered(run *r)
{
    for (int waited = 0;; waited = 1) {
        int ready[MAX_PEERS], n = 0;
        for (int k = 0; k < r->nout; k++)
            if (r->out[k].credit > 0)
                ready[n++] = k;
        if (n > 0) {
            peer *p = &r->out[ready[(int)(uniform(r) * n) % n]];
            /* the move starts when we were ready, or when the room we
             * waited for was made */
            double start = waited && p->credit_at > r->vt ? p->credit_at : r->vt;
            send_msg(p->fd, MSG_ITEM, start + draw(r, p->latency, r->lat_exp));
            p->credit--;
            r->vt = start;
            return;
        }
        wait_any(r, 0, -1);
    }
}

static void send_item(run *r)
{
    if (r->out[0].cap > 0)
        send_buffered(r);
    else if (r->out[0].arbiter)
        offer(r, &r->out[0]);
    else
        send_race(r);
}

static void cycle(run *r)
{
    for (int item = 0;; item++) {
        if (r->nin && !receive(r))
            break;
        if (!r->nin && item >= r->items)
            break;
        compute(r, draw(r, r->work, r->work_exp));
        if (r->nout)
            send_item(r);
        else if (r->sink)
            fprintf(r->sink, "%.9f\n", r->vt);
    }
    for (int k = 0; k < r->nout; k++)
        send_msg(r->out[k].fd, MSG_END, 0);
}

/* ---- set-up: the job's graph, placement and platform ---------------------- */

static int listen_on(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, MAX_PEERS) < 0)
        die("listen: %s", strerror(errno));
    return fd;
}

static int connect_to(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    for (int tries = 0; tries < 3000; tries++) {     /* the receiver may start later */
        int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return fd;
        }
        if (fd >= 0)
            close(fd);
        sleep_until(now() + 0.01);
    }
    die("cannot connect to a receiving task (port %s)", "");
    return -1;
}

/* The rendezvous moves (capacity 0 on this placement) into task t, or out
 * of it. */
static int rendezvous_of(const skel_dag *d, const skel_platform *p, const int *place, int t,
                         int into)
{
    int n = 0;
    for (int e = 0; e < d->nedges; e++) {
        int f = d->edges[e].from, to = d->edges[e].to, cap;
        double scv;
        if ((into ? to : f) != t || f < 0 || to < 0)
            continue;
        skel_platform_move_kind(p, place[f], place[to], &scv, &cap);
        n += cap == 0;
    }
    return n;
}

/* Who picks the partner of each move: a task with several rendezvous
 * partners on one side (see the header); runs the model would need more
 * for are refused. */
static void roles(run *r)
{
    for (int k = 1; k < r->nout; k++)
        if ((r->out[k].cap == 0) != (r->out[0].cap == 0))
            die("a task sends on both rendezvous and buffered moves%s", "");
    for (int k = 0; k < r->nin; k++)
        if (r->nin > 1 && r->in[k].cap == 0)
            r->race_in = 1;
    for (int k = 0; k < r->nin; k++)
        if (r->race_in && r->in[k].cap > 0)
            die("a task receives on both rendezvous and buffered moves%s", "");
}

/* The tasks this one exchanges items with, from the skeleton's graph. */
static void peers(run *r, const skel_dag *d, const skel_platform *p, const int *place)
{
    for (int e = 0; e < d->nedges; e++) {
        int f = d->edges[e].from, t = d->edges[e].to;
        if (f != r->task && t != r->task)
            continue;
        if (f < 0 || t < 0)
            die("the stream style has no runner (%s)", "use --style producer");
        double lat, bw, scv;
        int cap;
        diag err;
        diag_clear(&err);
        if (skel_platform_link(p, place[f], place[t], &lat, &bw, &err) < 0)
            die("%s", err.msg);
        skel_platform_move_kind(p, place[f], place[t], &scv, &cap);
        if (r->nin == MAX_PEERS || r->nout == MAX_PEERS)
            die("more partners than the runner's %s", "64");
        peer *q = f == r->task ? &r->out[r->nout++] : &r->in[r->nin++];
        *q = (peer){ .task = f == r->task ? t : f, .edge = e, .cap = cap, .latency = lat,
                     .credit = cap, .offer_at = -1, .clock = -1,
                     .arbiter = f == r->task && cap == 0 &&
                                rendezvous_of(d, p, place, t, 1) > 1 };
        if (cap == 0 && rendezvous_of(d, p, place, f, 0) > 1 && rendezvous_of(d, p, place, t, 1) > 1)
            die("a rendezvous between two farms has no runner%s", "");
    }
    roles(r);
}

static void connect_all(run *r)
{
    int lfd = r->nin ? listen_on(r->port_base + r->task) : -1;
    for (int k = 0; k < r->nout; k++) {
        r->out[k].fd = connect_to(r->port_base + r->out[k].task);
        int32_t me = r->task;
        if (write(r->out[k].fd, &me, sizeof me) != (ssize_t)sizeof me)
            die("write: %s", strerror(errno));
    }
    for (int got = 0; got < r->nin; got++) {
        int fd = accept(lfd, NULL, NULL), one = 1;
        int32_t who = -1;
        if (fd < 0 || read(fd, &who, sizeof who) != (ssize_t)sizeof who)
            die("accept: %s", strerror(errno));
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        for (int k = 0; k < r->nin; k++)
            if (r->in[k].task == who)
                r->in[k].fd = fd;
    }
    if (lfd >= 0)
        close(lfd);
}

/* The node's counter of computing tasks, shared by the processes of the
 * job on that node. */
static atomic_int *node_counter(const char *job, const char *node)
{
    char path[256];
    snprintf(path, sizeof path, "/dev/shm/skelrun.%s.%s", job, node);
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, sizeof(atomic_int)) < 0)
        die("%s: cannot create the node's counter", path);
    void *m = mmap(NULL, sizeof(atomic_int), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        die("%s: mmap failed", path);
    return m;
}

static const char *arg(int argc, char **argv, const char *name, const char *def)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return argv[i + 1];
    if (!def)
        die("missing %s (see the header of fidelity/skelrun.c)", name);
    return def;
}

static void setup(run *r, int argc, char **argv)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_file(arg(argc, argv, "--skeleton", NULL), &err);
    skel_dag *d = t ? skel_dag_build(t, SKEL_STYLE_PRODUCER, &err) : NULL;
    skel_platform *p = d ? skel_platform_parse_file(arg(argc, argv, "--platform", NULL), NULL,
                                                    NULL, &err) : NULL;
    int n = t ? skel_tree_ntasks(t) : 0;
    int *place = calloc((size_t)(n ? n : 1), sizeof *place);
    if (!p || !place || skel_place_parse(arg(argc, argv, "--plan", NULL), n, p, place, &err) < 0)
        die("%s", err.msg);
    const char *b = arg(argc, argv, "--buffer", "-1");
    p->job_buffer = atoi(b);
    r->task = atoi(arg(argc, argv, "--task", NULL));
    if (r->task < 0 || r->task >= n)
        die("--task %s: no such task", arg(argc, argv, "--task", NULL));
    r->work = 1 / skel_tree_task(t, r->task)->rate;
    r->speed = p->nodes[place[r->task]].speed;
    for (int i = 0; i < n; i++)
        r->placed += place[i] == place[r->task];
    peers(r, d, p, place);
    if (r->ps)
        r->busy = node_counter(arg(argc, argv, "--job", NULL), p->nodes[place[r->task]].name);
    free(place);
    skel_platform_free(p);
    skel_dag_free(d);
    skel_tree_free(t);
}

int main(int argc, char **argv)
{
    run r = { 0 };
    signal(SIGPIPE, SIG_IGN);
    r.items = atoi(arg(argc, argv, "--items", "1000"));
    r.port_base = atoi(arg(argc, argv, "--port", NULL));
    r.work_exp = strcmp(arg(argc, argv, "--work", "exp"), "exp") == 0;
    r.lat_exp = strcmp(arg(argc, argv, "--latency", "exp"), "exp") == 0;
    r.ps = strcmp(arg(argc, argv, "--sharing", "ps"), "ps") == 0;
    setup(&r, argc, argv);
    /* each (seed, task) its own stream: seeds that differ in one bit (job
     * ids 4 and 5) must not give correlated draws */
    r.rng = splitmix(splitmix(strtoull(arg(argc, argv, "--seed", "1"), NULL, 10)) +
                     (uint64_t)r.task + 1);
    const char *out = arg(argc, argv, "--out", "");
    if (!r.nout && *out && !(r.sink = fopen(out, "w")))
        die("%s: cannot write", out);
    connect_all(&r);
    r.vt = now();
    cycle(&r);
    if (r.sink)
        fclose(r.sink);
    if (r.races)    /* the harness sums these: how often the load may have changed a race */
        fprintf(stderr, "skelrun: task %d: races %d late %d\n", r.task, r.races, r.late);
    for (int k = 0; k < r.nin; k++) {
        free(r.in[k].pending);
        close(r.in[k].fd);
    }
    for (int k = 0; k < r.nout; k++)
        close(r.out[k].fd);
    return 0;
}
