/* The simulator's random streams (internal to sim/): xoshiro256** by
 * Blackman and Vigna, seeded through splitmix64. Replication i's stream
 * starts i jumps of 2^128 steps after the seed's, so the streams never
 * overlap whatever the number of replications. */
#ifndef SKELSCHED_SIM_RNG_H
#define SKELSCHED_SIM_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct sim_rng {
    uint64_t s[4];
} sim_rng;

static inline uint64_t sim_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t sim_rng_next(sim_rng *r)
{
    uint64_t *s = r->s, out = sim_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = sim_rotl(s[3], 45);
    return out;
}

/* Uniform on [0, 1), 53 random bits. */
static inline double sim_rng_uniform(sim_rng *r)
{
    return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Exponential with mean 1 (1 - u lies in (0, 1]: log never sees 0). */
static inline double sim_rng_exp(sim_rng *r)
{
    return -log(1.0 - sim_rng_uniform(r));
}

static inline void sim_rng_seed(sim_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        r->s[i] = z ^ (z >> 31);
    }
}

/* Advance r by 2^128 steps (the published jump polynomial). */
static inline void sim_rng_jump(sim_rng *r)
{
    static const uint64_t jump[] = { 0x180ec6d33cfd0abaULL, 0xd5a61266f0c9392cULL,
                                     0xa9582618e03fc9aaULL, 0x39abdc4529b1661cULL };
    uint64_t t[4] = { 0, 0, 0, 0 };
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 64; b++) {
            if (jump[i] & (1ULL << b))
                for (int k = 0; k < 4; k++)
                    t[k] ^= r->s[k];
            sim_rng_next(r);
        }
    for (int k = 0; k < 4; k++)
        r->s[k] = t[k];
}

#endif
