/* skeleton/search_classes.c: the large-scale search's node classes (step 1
 * of search_scale.c): nodes of the same speed and the same links, found
 * from the links that are written, in O(nodes log nodes + links). */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct nbr {
    int other;
    double lat, bw;
} nbr;

typedef struct hkey {
    uint64_t h;
    int node;
} hkey;

static int cmp_hkey(const void *a, const void *b)
{
    const hkey *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

static uint64_t mix(uint64_t h, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits ^= bits >> 31;
    bits *= 0x9e3779b97f4a7c15ULL;
    return h + (bits ^ (bits >> 29));
}

/* Every link written, as lists per node sorted by the other end (links are
 * sorted by (a, b), a < b: a node's lower neighbours come first, in order,
 * then its higher ones). */
static int link_lists(const skel_platform *p, int **start, nbr **list)
{
    int nn = p->nnodes;
    *start = calloc((size_t)nn + 1, sizeof **start);
    *list = malloc((size_t)(2 * p->nlinks + 1) * sizeof **list);
    int *fill = calloc((size_t)nn + 1, sizeof *fill);
    if (!*start || !*list || !fill) {
        free(fill);
        return -1;
    }
    for (int k = 0; k < p->nlinks; k++) {
        (*start)[p->links[k].a + 1]++;
        (*start)[p->links[k].b + 1]++;
    }
    for (int j = 0; j < nn; j++)
        (*start)[j + 1] += (*start)[j];
    for (int k = 0; k < p->nlinks; k++) {
        const skel_link *l = &p->links[k];
        (*list)[(*start)[l->a] + fill[l->a]++] = (nbr){ l->b, l->latency, l->bandwidth };
        (*list)[(*start)[l->b] + fill[l->b]++] = (nbr){ l->a, l->latency, l->bandwidth };
    }
    free(fill);
    return 0;
}

/* a and r have the same links to every third node: their lists without
 * each other are equal. */
static int same_links(const int *start, const nbr *list, int a, int r)
{
    int i = start[a], j = start[r];
    for (;;) {
        while (i < start[a + 1] && list[i].other == r)
            i++;
        while (j < start[r + 1] && list[j].other == a)
            j++;
        if (i == start[a + 1] || j == start[r + 1])
            return i == start[a + 1] && j == start[r + 1];
        if (list[i].other != list[j].other || list[i].lat != list[j].lat || list[i].bw != list[j].bw)
            return 0;
        i++;
        j++;
    }
}

int search_fast_classes(const skel_platform *p, const unsigned char *keep, int *cls)
{
    int nn = p->nnodes, *start = NULL, rc = -1;
    nbr *list = NULL;
    hkey *hk = malloc((size_t)nn * sizeof *hk);
    if (!hk || link_lists(p, &start, &list) < 0)
        goto out;
    for (int a = 0; a < nn; a++) {
        /* order-free hash of speed, degree and link values: nodes that
         * link to each other still hash alike */
        uint64_t h = mix((uint64_t)(start[a + 1] - start[a]), p->nodes[a].speed);
        for (int k = start[a]; k < start[a + 1]; k++)
            h += mix(mix(0, list[k].lat), list[k].bw) * 0xff51afd7ed558ccdULL;
        hk[a] = (hkey){ h, a };
        cls[a] = a;
    }
    qsort(hk, (size_t)nn, sizeof *hk, cmp_hkey);
    for (int lo = 0, hi; lo < nn; lo = hi) {
        for (hi = lo + 1; hi < nn && hk[hi].h == hk[lo].h; hi++)
            ;
        for (int x = lo + 1; x < hi; x++) {
            int a = hk[x].node;
            if ((keep && keep[a]) || a == p->input || a == p->output)
                continue;
            for (int y = lo; y < x; y++) {
                int r = hk[y].node;
                if (cls[r] != r || (keep && keep[r]) || r == p->input || r == p->output ||
                    p->nodes[r].speed != p->nodes[a].speed || !same_links(start, list, a, r))
                    continue;
                cls[a] = r;
                break;
            }
        }
    }
    rc = 0;
out:
    free(list);
    free(start);
    free(hk);
    return rc;
}
