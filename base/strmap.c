/* strmap: see strmap.h. FNV-1a hashing, linear probing, load <= 1/2. */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

void strmap_init(strmap *m)
{
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->len = 0;
}

int strmap_get(const strmap *m, const char *key)
{
    if (m->cap == 0)
        return -1;
    size_t mask = m->cap - 1;
    for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
        if (!m->keys[i])
            return -1;
        if (strcmp(m->keys[i], key) == 0)
            return m->vals[i];
    }
}

static int grow(strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    const char **keys = calloc(cap, sizeof *keys);
    int *vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t j = 0; j < m->cap; j++) {
        if (!m->keys[j])
            continue;
        size_t i = hash(m->keys[j]) & (cap - 1);
        while (keys[i])
            i = (i + 1) & (cap - 1);
        keys[i] = m->keys[j];
        vals[i] = m->vals[j];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int strmap_put(strmap *m, const char *key, int val)
{
    if (2 * (m->len + 1) > m->cap && grow(m) < 0)
        return -1;
    size_t mask = m->cap - 1;
    size_t i = hash(key) & mask;
    while (m->keys[i] && strcmp(m->keys[i], key) != 0)
        i = (i + 1) & mask;
    if (!m->keys[i]) {
        m->keys[i] = key;
        m->len++;
    }
    m->vals[i] = val;
    return 0;
}

void strmap_free(strmap *m)
{
    free(m->keys);
    free(m->vals);
    strmap_init(m);
}
