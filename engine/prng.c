/*
 * The engine's pseudo-random numbers: xoshiro256** seeded through
 * splitmix64, and unbiased bounded integers by Lemire's multiply-and-reject
 * method. Fast (a shuffle is one call per card) and fully reproducible from
 * the seed; the bot seeds it from the operating system's CSPRNG so that no
 * one can predict a deal.
 */
#include "engine.h"

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

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t engine_prng_next(struct engine_prng *p)
{
    uint64_t *s = p->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t engine_prng_below(struct engine_prng *p, uint32_t bound)
{
    uint32_t x = (uint32_t)(engine_prng_next(p) >> 32);
    uint64_t m = (uint64_t)x * bound;
    uint32_t low = (uint32_t)m;
    if (low < bound) {
        uint32_t threshold = (uint32_t)(-bound) % bound;
        while (low < threshold) {
            x = (uint32_t)(engine_prng_next(p) >> 32);
            m = (uint64_t)x * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}
