/*
 * Tests of engine/prng.c: xoshiro256** seeded by splitmix64 gives the
 * published sequence, the same seed the same numbers and the same deal,
 * and engine_prng_below stays in range and spreads evenly.
 */
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

/* Known answers: splitmix64 fills the state (its first output for seed 0
 * is the well-known 0xE220A8397B1DCDAF), then xoshiro256** runs as in the
 * reference implementation of Blackman and Vigna. Computed independently
 * of the engine, so that docs/engine.md's promise holds: anyone can
 * reproduce a deal from its seed. */
static void test_prng_seed_known_values(void **state)
{
    (void)state;
    static const struct {
        uint64_t seed;
        uint64_t s0;
        uint64_t out[4];
    } rows[] = {
        {0,
         UINT64_C(0xe220a8397b1dcdaf),
         {UINT64_C(0x99ec5f36cb75f2b4), UINT64_C(0xbf6e1f784956452a),
          UINT64_C(0x1a5f849d4933e6e0), UINT64_C(0x6aa594f1262d2d2c)}},
        {1,
         UINT64_C(0x910a2dec89025cc1),
         {UINT64_C(0xb3f2af6d0fc710c5), UINT64_C(0x853b559647364cea),
          UINT64_C(0x92f89756082a4514), UINT64_C(0x642e1c7bc266a3a7)}},
        {12345,
         UINT64_C(0x22118258a9d111a0),
         {UINT64_C(0xbe6a36374160d49b), UINT64_C(0x214aaa0637a688c6),
          UINT64_C(0xf69d16de9954d388), UINT64_C(0x0c60048c4e96e033)}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_prng p;
        engine_prng_seed(&p, rows[i].seed);
        assert_int_equal(p.s[0], rows[i].s0);
        for (int k = 0; k < 4; k++)
            assert_int_equal(engine_prng_next(&p), rows[i].out[k]);
    }
}

static void test_prng_next_same_seed_same_sequence(void **state)
{
    (void)state;
    struct engine_prng a, b, c;
    engine_prng_seed(&a, 987654321);
    engine_prng_seed(&b, 987654321);
    engine_prng_seed(&c, 987654322);
    int differ = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = engine_prng_next(&a);
        assert_int_equal(x, engine_prng_next(&b));
        differ += x != engine_prng_next(&c);
    }
    /* a neighbouring seed gives an unrelated sequence */
    assert_true(differ > 990);
}

static void test_prng_below_stays_in_range(void **state)
{
    (void)state;
    static const uint32_t bounds[] = {1,  2,    3,           7,
                                      52, 1000, 0x80000001u, UINT32_MAX};
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        struct engine_prng p;
        engine_prng_seed(&p, 42 + i);
        uint32_t max = 0;
        for (int k = 0; k < 20000; k++) {
            uint32_t x = engine_prng_below(&p, bounds[i]);
            if (x >= bounds[i])
                fail_msg("below(%u) gave %u", bounds[i], x);
            if (x > max)
                max = x;
        }
        /* the top of the range is reached (for the small bounds) or at
         * least the upper half is (for the large ones) */
        if (bounds[i] <= 1000)
            assert_int_equal(max, bounds[i] - 1);
        else
            assert_true(max >= bounds[i] / 2);
    }
}

/* A chi-square test at a generous threshold: a fixed seed makes it
 * deterministic, and a biased or broken generator fails it by far. */
static void test_prng_below_roughly_uniform(void **state)
{
    (void)state;
    static const struct {
        uint32_t bound;
        double limit; /* well above the 99.9% point of chi-square */
    } rows[] = {{2, 20.0}, {6, 30.0}, {13, 45.0}, {52, 110.0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_prng p;
        engine_prng_seed(&p, 7 + i);
        uint32_t bound = rows[i].bound;
        int count[52] = {0};
        int draws = 5000 * (int)bound;
        for (int k = 0; k < draws; k++)
            count[engine_prng_below(&p, bound)]++;
        double expect = 5000.0, chi = 0;
        for (uint32_t b = 0; b < bound; b++) {
            double d = count[b] - expect;
            chi += d * d / expect;
        }
        if (chi > rows[i].limit)
            fail_msg("below(%u): chi-square %.1f over %.1f", bound, chi,
                     rows[i].limit);
    }
}

/* Deals `hands` hands from `seed` (playing out the ones before) and
 * returns the last pack order. */
static void deal_from(const struct engine_rules *r, uint64_t seed,
                      uint8_t *pack, int *len, int hands)
{
    struct engine_game g;
    engine_game_init(&g, r, seed, 0);
    for (int h = 0; h < hands; h++) {
        if (h > 0) {
            sc_play_out(&g);
            if (engine_phase(&g) == ENGINE_PHASE_MOON)
                sc_moon(&g, ENGINE_MOON_SUBTRACT);
        }
        assert_int_equal(engine_deal(&g, NULL), 0);
    }
    const uint8_t *d = engine_deal_order(&g, len);
    memcpy(pack, d, (size_t)*len);
}

static void test_deal_same_seed_same_deal(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int players;
    } rows[] = {
        {"standard", 4},
        {"cancellation", 9},
        {"joker", 5},
        {"domino", 4},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_rules r;
        sc_rules(&r, rows[i].rules, rows[i].players);
        uint8_t a[ENGINE_MAX_CARDS], b[ENGINE_MAX_CARDS], c[ENGINE_MAX_CARDS],
            second[ENGINE_MAX_CARDS];
        int la, lb, lc, l2;
        deal_from(&r, 2024, a, &la, 1);
        deal_from(&r, 2024, b, &lb, 1);
        deal_from(&r, 2025, c, &lc, 1);
        deal_from(&r, 2024, second, &l2, 2);
        assert_int_equal(la, r.deck_len);
        assert_int_equal(lb, la);
        assert_memory_equal(a, b, (size_t)la);
        /* another seed, or the next hand of the same game, deals
         * differently */
        assert_int_equal(lc, la);
        assert_memory_not_equal(a, c, (size_t)la);
        assert_memory_not_equal(a, second, (size_t)la);
    }
}

static void test_deal_is_a_shuffle_of_the_pack(void **state)
{
    (void)state;
    struct engine_rules r;
    sc_rules(&r, "cancellation", 7);
    uint8_t pack[ENGINE_MAX_CARDS];
    int len;
    deal_from(&r, 99, pack, &len, 1);
    assert_int_equal(len, 104);
    int count[64] = {0};
    for (int i = 0; i < len; i++)
        count[pack[i]]++;
    for (int c = 0; c < 64; c++)
        assert_int_equal(count[c], (r.in_play >> c & 1) ? 2 : 0);
    /* and it is shuffled: not the canonical order */
    assert_memory_not_equal(pack, r.deck, (size_t)len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prng_seed_known_values),
        cmocka_unit_test(test_prng_next_same_seed_same_sequence),
        cmocka_unit_test(test_prng_below_stays_in_range),
        cmocka_unit_test(test_prng_below_roughly_uniform),
        cmocka_unit_test(test_deal_same_seed_same_deal),
        cmocka_unit_test(test_deal_is_a_shuffle_of_the_pack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
