/*
 * Random numbers (random.h).
 */
#include "bot/common/random.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void random_init(struct random_state *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t random_next(struct random_state *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

/* Lemire's multiply-and-reject. */
uint32_t random_below(struct random_state *r, uint32_t bound)
{
    if (bound == 0)
        return 0;
    uint64_t m = (random_next(r) >> 32) * (uint64_t)bound;
    if ((uint32_t)m < bound) {
        uint32_t threshold = (uint32_t)(-bound) % bound;
        while ((uint32_t)m < threshold)
            m = (random_next(r) >> 32) * (uint64_t)bound;
    }
    return (uint32_t)(m >> 32);
}

uint64_t random_os_seed(const void *salt)
{
    uint64_t seed = 0;
    ssize_t n;
    do
        n = getrandom(&seed, sizeof seed, GRND_NONBLOCK);
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof seed)
        return seed;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, &seed, sizeof seed);
        close(fd);
        if (n == (ssize_t)sizeof seed)
            return seed;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
                 ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)salt;
    return splitmix64(&x);
}
