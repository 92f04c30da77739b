/*
 * The engine's pseudo-random numbers: xoshiro256** seeded through
 * splitmix64; the generator itself and the unbiased bounded integers
 * (Lemire's multiply-and-reject) are inline in engine.h. Fast (a shuffle
 * is one draw per two cards) and reproducible from the seed; the bot
 * seeds every deal from the operating system's CSPRNG so that no one can
 * predict a deal.
 */
#include "engine/engine.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void engine_prng_seed(struct engine_prng *p, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        p->s[i] = splitmix64(&x);
}
