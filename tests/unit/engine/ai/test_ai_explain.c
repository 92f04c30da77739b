/*
 * Tests of ai_explain (engine/ai/ai_explain.c): every legal card is
 * weighed once, fewest expected points first; the obvious card comes
 * first by a clear margin; a pass of the seat's own is weighed beside the
 * search's candidates, and weighed again with the best on fresh deals
 * (the second look), which takes out the luck of the first look's pick;
 * the same seed gives the same figures; no decision, no answer.
 */
#include "engine/ai/ai.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#define TEST_BUDGET 2000

static int card_of(const char *text)
{
    return (int)__builtin_ctzll(sc_set(text));
}

/* Black Lady, dealer 3: seat 0 leads anything. */
static void start(struct engine_game *g, struct engine_rules *r,
                  const char *const *hands)
{
    sc_rules(r, "black-lady", 4);
    sc_start(g, r, 3, hands, NULL);
}

/* Seat 2 is void in diamonds with the Q♠ bare: dumping it saves 13. */
static void queen_position(struct engine_game *g, struct engine_rules *r)
{
    static const char *const hands[4] = {
        "8D 9D TD JD QD KD AD 8C 9C TC JC QC KC",
        "2D 3D 4D 5D 6D 7D 2H 5H 6H 7H 8H 9H JH",
        "QS AH KH QH TH 4H 3H 2C 3C 4C 5C 6C 7C", NULL};
    start(g, r, hands);
    sc_plays(g, "8D 2D");
}

static int explain_at(const struct engine_game *g, int seat, uint64_t seed,
                      const struct engine_action *also, struct ai_choice *out)
{
    struct engine_prng rng;
    struct engine_view v;
    engine_prng_seed(&rng, seed);
    engine_view_make(g, seat, &v);
    return ai_explain(&v, &rng, TEST_BUDGET, also, out, AI_EXPLAIN_MAX);
}

static void test_explain_every_card_sorted(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    queen_position(&g, &r);
    struct ai_choice c[AI_EXPLAIN_MAX];
    int n = explain_at(&g, 2, 1, NULL, c);
    uint64_t legal = engine_legal_plays(&g);
    assert_int_equal(n, __builtin_popcountll(legal));
    uint64_t seen = 0;
    for (int i = 0; i < n; i++) {
        assert_int_equal(c[i].action.kind, ENGINE_ACT_PLAY);
        assert_int_equal(c[i].action.seat, 2);
        assert_int_equal(c[i].action.ncards, 1);
        seen |= 1ULL << c[i].action.cards[0];
        assert_true(c[i].points >= 0 && c[i].points <= 26);
        if (i)
            assert_true(c[i - 1].points <= c[i].points);
    }
    assert_true(seen == legal);
    /* the queen goes, and keeping it costs most of its 13 points */
    assert_int_equal(c[0].action.cards[0], card_of("QS"));
    assert_true(c[1].points - c[0].points > 5.0);
}

static void test_explain_deterministic(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    queen_position(&g, &r);
    struct ai_choice a[AI_EXPLAIN_MAX], b[AI_EXPLAIN_MAX];
    int na = explain_at(&g, 2, 7, NULL, a);
    int nb = explain_at(&g, 2, 7, NULL, b);
    assert_int_equal(na, nb);
    for (int i = 0; i < na; i++) {
        assert_int_equal(a[i].action.cards[0], b[i].action.cards[0]);
        assert_true(a[i].points == b[i].points);
    }
}

/* max cuts the list, keeping the best. */
static void test_explain_max(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    queen_position(&g, &r);
    struct engine_prng rng;
    struct engine_view v;
    struct ai_choice c[2];
    engine_prng_seed(&rng, 1);
    engine_view_make(&g, 2, &v);
    assert_int_equal(ai_explain(&v, &rng, TEST_BUDGET, NULL, c, 2), 2);
    assert_int_equal(c[0].action.cards[0], card_of("QS"));
    assert_int_equal(ai_explain(&v, &rng, TEST_BUDGET, NULL, c, 0), -1);
}

/* Not the seat's turn, or nothing to decide: no answer. */
static void test_explain_not_your_turn(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    queen_position(&g, &r);
    struct ai_choice c[AI_EXPLAIN_MAX];
    assert_int_equal(explain_at(&g, 0, 1, NULL, c), -1);
    assert_int_equal(explain_at(&g, 3, 1, NULL, c), -1);
}

/* The pass, with a pass of one's own that is none of the search's
 * candidates (three low clubs): it is weighed beside them, and the second
 * look gives the best pass and it, the best first and the clubs worse. */
static void test_explain_pass_with_own(void **state)
{
    (void)state;
    const char *hands[4] = {"QS KS AS 2C 3C 4C 5C 2D 3D 4D 5D 2H 3H", NULL,
                            NULL, NULL};
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard", 4);
    sc_start(&g, &r, 3, hands, NULL);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_PASS);
    struct engine_action own = {.kind = ENGINE_ACT_PASS, .ncards = 3};
    own.cards[0] = (uint8_t)card_of("2C");
    own.cards[1] = (uint8_t)card_of("3C");
    own.cards[2] = (uint8_t)card_of("4C");
    struct ai_choice all[AI_EXPLAIN_MAX], c[AI_EXPLAIN_MAX];
    int n = explain_at(&g, 0, 3, NULL, all);
    assert_true(n > 10);
    for (int i = 0; i < n; i++) {
        uint64_t m = 0;
        for (int j = 0; j < 3; j++)
            m |= 1ULL << all[i].action.cards[j];
        assert_true(m != sc_set("2C 3C 4C"));
    }
    /* with the seat's own pass: the first look's best, then the clubs,
     * both weighed again */
    assert_int_equal(explain_at(&g, 0, 3, &own, c), 2);
    assert_int_equal(c[0].action.kind, ENGINE_ACT_PASS);
    int at = 0;
    while (at < n && memcmp(all[at].action.cards, c[0].action.cards, 3))
        at++;
    assert_true(at < n);
    assert_int_equal(c[1].action.kind, ENGINE_ACT_PASS);
    assert_memory_equal(c[1].action.cards, own.cards, 3);
    assert_true(c[1].first > c[0].first);
    assert_true(c[0].points != c[0].first);
    assert_true(c[1].points - c[0].points > 1.0);
    /* with its standard error, which the difference clears */
    assert_true(c[1].se > 0 && c[1].points - c[0].points > 2 * c[1].se);
    assert_true(c[0].se == 0);
    /* room for one: the best alone */
    struct engine_prng rng;
    struct engine_view v;
    struct ai_choice one[1];
    engine_prng_seed(&rng, 3);
    engine_view_make(&g, 0, &v);
    assert_int_equal(ai_explain(&v, &rng, TEST_BUDGET, &own, one, 1), 1);
    assert_memory_equal(one[0].action.cards, c[0].action.cards, 3);
    /* the best itself as one's own: one choice, no cost */
    assert_int_equal(explain_at(&g, 0, 3, &all[0].action, c), 1);
    assert_memory_equal(c[0].action.cards, all[0].action.cards, 3);
    /* after passing there is nothing to weigh */
    assert_int_equal(engine_act(&g, &all[0].action, NULL, NULL), ENGINE_OK);
    assert_int_equal(explain_at(&g, 0, 3, NULL, c), -1);
}

/* The second look: many pass candidates that are nearly alike make the
 * first look's least figure low by luck; weighed again on fresh deals the
 * best is, on average over positions, as good as the first look said
 * less that luck. Over fresh deals of standard hands, easy's own pass
 * given: the first look's cost of easy's pass is larger on average than
 * the second look's, and the second's average is near the average of an
 * unbiased difference (both from the same deals as the figures). */
static void test_explain_second_look_removes_the_pick(void **state)
{
    (void)state;
    struct engine_rules r;
    sc_rules(&r, "standard", 4);
    struct engine_prng rng;
    engine_prng_seed(&rng, 21);
    double first = 0, second = 0;
    int n = 0;
    for (uint64_t deal = 1; deal <= 40; deal++) {
        struct engine_game g;
        engine_game_init(&g, &r, deal, 3);
        engine_deal(&g, NULL);
        if (engine_phase(&g) != ENGINE_PHASE_PASS)
            continue;
        struct engine_view v;
        engine_view_make(&g, 0, &v);
        struct engine_action own;
        assert_int_equal(ai_decide(AI_EASY, &v, &rng, &own), 0);
        struct ai_choice c[AI_EXPLAIN_MAX];
        int k = ai_explain(&v, &rng, 1000, &own, c, AI_EXPLAIN_MAX);
        assert_true(k == 1 || k == 2);
        if (k == 2) {
            assert_true(c[1].first >= c[0].first);
            first += c[1].first - c[0].first;
            second += c[1].points - c[0].points;
        }
        n++;
    }
    assert_int_equal(n, 40);
    /* the first look's pick: its cost is the larger, by a clear amount */
    if (!(first / n > second / n + 0.3))
        fail_msg("mean cost %.2f by the first look, %.2f by the second",
                 first / n, second / n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_explain_every_card_sorted),
        cmocka_unit_test(test_explain_deterministic),
        cmocka_unit_test(test_explain_max),
        cmocka_unit_test(test_explain_not_your_turn),
        cmocka_unit_test(test_explain_pass_with_own),
        cmocka_unit_test(test_explain_second_look_removes_the_pick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
