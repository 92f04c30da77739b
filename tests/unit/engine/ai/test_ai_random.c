/*
 * Tests of the random level (engine/ai/ai_random.c): every action it
 * takes is one the engine accepts, drawn from the caller's PRNG (the same
 * state gives the same action), reaching every legal card; and it has
 * nothing to do where nothing is asked of its seat.
 */
#include "engine/ai/ai.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

static void test_ai_random_pass_is_its_own_cards(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard", 4);
    sc_start(&g, &r, 3, NULL, NULL);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_PASS);
    for (int seat = 0; seat < 4; seat++) {
        struct engine_prng rng;
        struct engine_action a;
        engine_prng_seed(&rng, (uint64_t)seat + 1);
        assert_int_equal(ai_act_for(AI_RANDOM, &g, seat, &rng, &a), 0);
        assert_int_equal(a.kind, ENGINE_ACT_PASS);
        assert_int_equal(a.seat, seat);
        assert_int_equal(a.ncards, 3);
        assert_int_equal(engine_act(&g, &a, NULL, NULL), ENGINE_OK);
    }
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
}

static void test_ai_random_same_state_same_play(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, NULL, NULL);
    for (uint64_t seed = 1; seed <= 50; seed++) {
        struct engine_prng r1, r2;
        struct engine_action a, b;
        engine_prng_seed(&r1, seed);
        engine_prng_seed(&r2, seed);
        assert_int_equal(ai_act_for(AI_RANDOM, &g, 0, &r1, &a), 0);
        assert_int_equal(ai_act_for(AI_RANDOM, &g, 0, &r2, &b), 0);
        assert_memory_equal(&a, &b, sizeof a);
    }
}

static void test_ai_random_plays_reach_every_legal_card(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    /* seat 1 follows a club lead holding four clubs */
    const char *hands[4] = {"2C 3C 4C 5C 6C 7C 8C 9C TC 2D 3D 4D 5D",
                            "JC QC KC AC 6D 7D 8D 9D TD JD QD KD AD", NULL,
                            NULL};
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_play(&g, "2C");
    uint64_t legal = engine_legal_plays(&g);
    assert_int_equal(legal, sc_set("JC QC KC AC"));
    uint64_t seen = 0;
    struct engine_prng rng;
    engine_prng_seed(&rng, 7);
    for (int i = 0; i < 200; i++) {
        struct engine_action a;
        assert_int_equal(ai_act_for(AI_RANDOM, &g, 1, &rng, &a), 0);
        assert_int_equal(a.kind, ENGINE_ACT_PLAY);
        assert_true(legal & ENGINE_BIT(a.cards[0]));
        seen |= ENGINE_BIT(a.cards[0]);
    }
    assert_int_equal(seen, legal);
}

static void test_ai_random_nothing_to_do(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_prng rng;
    struct engine_action a;
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, NULL, NULL);
    engine_prng_seed(&rng, 1);
    /* seat 0 leads: the others wait */
    assert_int_equal(ai_act_for(AI_RANDOM, &g, 1, &rng, &a), -1);
    struct engine_view v;
    engine_view_make(&g, 1, &v);
    assert_int_equal(ai_decide(AI_RANDOM, &v, &rng, &a), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ai_random_pass_is_its_own_cards),
        cmocka_unit_test(test_ai_random_same_state_same_play),
        cmocka_unit_test(test_ai_random_plays_reach_every_legal_card),
        cmocka_unit_test(test_ai_random_nothing_to_do),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
