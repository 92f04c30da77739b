/*
 * Random numbers for what needs no cryptography (the jitter of retries,
 * a nick's digits): xoshiro256** seeded through splitmix64, the generator
 * the engine deals with, so the same seed gives the same numbers. Tests
 * seed it with a constant; the bot seeds it from random_os_seed().
 */
#ifndef HEARTS_COMMON_RANDOM_H
#define HEARTS_COMMON_RANDOM_H

#include <stdint.h>

struct random_state {
    uint64_t s[4];
};

void random_init(struct random_state *r, uint64_t seed);

/* The next 64 random bits. */
uint64_t random_next(struct random_state *r);

/* Uniform in [0, bound) without bias (bound >= 1; 0 gives 0). */
uint32_t random_below(struct random_state *r, uint32_t bound);

/*
 * A seed from the operating system (getrandom(2), else /dev/urandom),
 * never blocking; if neither answers, the clock, the process ID and salt
 * (a pointer, so that two bots in one process differ) mixed.
 */
uint64_t random_os_seed(const void *salt);

#endif
