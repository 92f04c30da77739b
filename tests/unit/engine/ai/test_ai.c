/*
 * Tests of the table of levels and the calls through it
 * (engine/ai/ai.c): the lookups, the moon choice every level makes the
 * same way, nothing to do, the budgets, and whole games under every
 * preset and many options where every level's every action must be
 * accepted, with easy against random.
 */
#include "engine/ai/ai.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- The table of levels --------------------------------------------- */

static void test_ai_level_table_lookups(void **state)
{
    (void)state;
    assert_int_equal(ai_level_count(), 4);
    assert_true(ai_level_count() <= AI_LEVEL_MAX);
    for (int i = 0; i < ai_level_count(); i++) {
        const struct ai_level_info *l = ai_level_get(i);
        assert_non_null(l);
        assert_string_equal(l->name, ai_level_name(i));
        assert_int_equal(ai_level_find(l->name), i);
        assert_int_equal(l->budget, ai_default_budget(i));
        /* a level searches exactly when a config key sets its playouts */
        assert_int_equal(l->budget > 0, l->playouts_key != NULL);
        /* names and keys are one level's each (the config's keys) */
        for (int j = 0; j < i; j++) {
            const struct ai_level_info *o = ai_level_get(j);
            assert_true(strcasecmp(o->name, l->name) != 0);
            assert_true(!l->playouts_key || !o->playouts_key ||
                        strcmp(o->playouts_key, l->playouts_key) != 0);
        }
    }
    assert_null(ai_level_get(-1));
    assert_null(ai_level_get(ai_level_count()));
    assert_int_equal(ai_default_budget(ai_level_count()), 0);
    assert_string_equal(ai_level_get(AI_NORMAL)->playouts_key,
                        "normal_playouts");
    assert_string_equal(ai_level_get(AI_HARD)->playouts_key, "hard_playouts");
    assert_int_equal(ai_level_get(AI_NORMAL)->budget, 100);
    assert_int_equal(ai_level_get(AI_HARD)->budget, 6000);
}

/* The decisions of two levels for every seat's first action in a few
 * games are the same, each from the same PRNG state. */
static void assert_same_as(int level, int budget, int other)
{
    struct engine_rules r;
    sc_rules(&r, "standard", 4);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct engine_game g;
        engine_game_init(&g, &r, seed, 0);
        assert_int_equal(engine_deal(&g, NULL), 0);
        for (int seat = 0; seat < 4; seat++) {
            struct engine_view v;
            struct engine_prng r1, r2;
            struct engine_action a, b;
            engine_view_make(&g, seat, &v);
            engine_prng_seed(&r1, seed);
            engine_prng_seed(&r2, seed);
            int rc = ai_decide_budget(level, &v, &r1, budget, &a);
            assert_int_equal(rc, ai_decide(other, &v, &r2, &b));
            assert_memory_equal(&a, &b, sizeof a);
        }
    }
}

static void test_ai_decide_bad_level_plays_random(void **state)
{
    (void)state;
    assert_same_as(ai_level_count(), 0, AI_RANDOM);
    assert_same_as(-1, 0, AI_RANDOM);
}

static void
test_ai_decide_budget_ignored_by_levels_that_do_not_search(void **state)
{
    (void)state;
    assert_same_as(AI_EASY, 500, AI_EASY);
    assert_same_as(AI_RANDOM, 500, AI_RANDOM);
}

/* ---- Through the table ----------------------------------------------- */

/* A hand under `rules` where seat 0 holds all the clubs, wins every
 * trick and has shot the moon (sc_shoot_with_clubs): the game waits for
 * its choice. `totals` (or NULL) are the totals before the hand. */
static void shoot_with_clubs_under(struct engine_rules *r,
                                   struct engine_game *g,
                                   struct engine_prng *rng,
                                   const int32_t *totals, const char *rules)
{
    sc_rules(r, rules, 4);
    sc_shoot_with_clubs(g, r, totals);
    engine_prng_seed(rng, 1);
}

static void shoot_with_clubs(struct engine_rules *r, struct engine_game *g,
                             struct engine_prng *rng, const int32_t *totals)
{
    shoot_with_clubs_under(r, g, rng, totals, "standard pass_count=0");
}

static void test_ai_decide_moon_takes_best_choice(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    struct engine_prng rng;
    shoot_with_clubs(&r, &g, &rng, NULL);
    assert_int_equal(ai_act_for(AI_EASY, &g, 1, &rng, &a), -1);
    assert_int_equal(ai_act_for(AI_EASY, &g, 0, &rng, &a), 0);
    assert_int_equal(a.kind, ENGINE_ACT_MOON);
    assert_int_equal(a.moon, engine_moon_default(&g));
    assert_int_equal(engine_act(&g, &a, NULL, NULL), ENGINE_OK);
    assert_int_equal(g.points[0] + g.points[1],
                     a.moon == ENGINE_MOON_SUBTRACT ? -26 : 26);
}

/* Seat 0 shoots in a standard game with these totals before the hand; the
 * moon choices of hard, of hard weighing points (AI_EVAL_POINTS), of hard
 * choosing by the game only near its end (AI_MOON_NEAR) and the
 * engine's. */
static void moon_choices(const int32_t totals[4], int *hard, int *points,
                         int *near, int *engine)
{
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    struct engine_prng rng;
    shoot_with_clubs(&r, &g, &rng, totals);
    struct engine_view v;
    engine_view_make(&g, 0, &v);
    assert_int_equal(ai_decide(AI_HARD, &v, &rng, &a), 0);
    *hard = a.moon;
    assert_int_equal(ai_decide_flags(AI_HARD, &v, &rng, 0, AI_EVAL_POINTS, &a),
                     0);
    *points = a.moon;
    assert_int_equal(ai_decide_flags(AI_HARD, &v, &rng, 0, AI_MOON_NEAR, &a),
                     0);
    *near = a.moon;
    *engine = engine_moon_default(&g);
}

/* Either choice leaves the shooter the same gap to the best other total
 * and the game goes on: the engine keeps its 26 off (subtract), but the
 * leader is better off with the others nearer the target (the game ends
 * sooner), the trailer with the game longer. */
static void test_ai_moon_choice_plays_for_the_game(void **state)
{
    (void)state;
    int hard, points, near, engine;
    /* far from the end (7.7 hands at 6.5 points): only hard adds */
    const int32_t leads[4] = {30, 40, 45, 50};
    moon_choices(leads, &hard, &points, &near, &engine);
    assert_int_equal(engine, ENGINE_MOON_SUBTRACT);
    assert_int_equal(points, ENGINE_MOON_SUBTRACT);
    assert_int_equal(near, ENGINE_MOON_SUBTRACT);
    assert_int_equal(hard, ENGINE_MOON_ADD_OTHERS);
    const int32_t trails[4] = {70, 20, 30, 40};
    moon_choices(trails, &hard, &points, &near, &engine);
    assert_int_equal(engine, ENGINE_MOON_SUBTRACT);
    assert_int_equal(hard, ENGINE_MOON_SUBTRACT);
    /* adding ends the game (an other past 100) with seat 0 winning: all */
    const int32_t wins[4] = {40, 60, 70, 75};
    moon_choices(wins, &hard, &points, &near, &engine);
    assert_int_equal(engine, ENGINE_MOON_ADD_OTHERS);
    assert_int_equal(near, ENGINE_MOON_ADD_OTHERS);
    assert_int_equal(hard, ENGINE_MOON_ADD_OTHERS);
}

/* Seat 0's team (seats 0 and 2) shoots under partners=team_score with
 * team totals `mine` and `theirs` before the hand: hard's moon choice
 * told the table t (NULL: nothing), with `flags`. */
static int partners_choice(int32_t mine, int32_t theirs,
                           const struct ai_table *t, int flags)
{
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    struct engine_prng rng;
    const int32_t totals[4] = {mine, theirs, mine, theirs};
    shoot_with_clubs_under(&r, &g, &rng, totals,
                           "standard pass_count=0 partners=team_score");
    struct engine_view v;
    engine_view_make(&g, 0, &v);
    assert_int_equal(ai_decide_table(AI_HARD, &v, &rng, 0, flags, t, &a), 0);
    assert_int_equal(a.kind, ENGINE_ACT_MOON);
    return a.moon;
}

/* Under partners the gap after a moon is the same either way; adding 26
 * to the others only ends the game sooner. A team ahead by 10 (50 to 40)
 * wants that when the sides are alike, and wants the game long when it
 * is expected to gain on the other every hand (docs/engine.md). */
static void test_ai_moon_choice_counts_the_sides_strength(void **state)
{
    (void)state;
    const int hard = ai_level_rating(AI_HARD, NULL);
    const int easy = ai_level_rating(AI_EASY, NULL);
    assert_true(hard > easy + 200);
    /* told nothing, or sides alike: the shorter game */
    assert_int_equal(partners_choice(50, 40, NULL, 0), ENGINE_MOON_ADD_OTHERS);
    const struct ai_table alike = {{easy, easy, easy, easy}};
    assert_int_equal(partners_choice(50, 40, &alike, 0),
                     ENGINE_MOON_ADD_OTHERS);
    const struct ai_table unknown = {{0}};
    assert_int_equal(partners_choice(50, 40, &unknown, 0),
                     ENGINE_MOON_ADD_OTHERS);
    /* two hard against two easy: the longer game */
    const struct ai_table stronger = {{hard, easy, hard, easy}};
    assert_int_equal(partners_choice(50, 40, &stronger, 0),
                     ENGINE_MOON_SUBTRACT);
    /* not told (hard/untold), or not choosing by the game: as before */
    assert_int_equal(partners_choice(50, 40, &stronger, AI_TABLE_BLIND),
                     ENGINE_MOON_ADD_OTHERS);
    assert_int_equal(partners_choice(50, 40, &stronger, AI_EVAL_POINTS),
                     ENGINE_MOON_SUBTRACT); /* the engine's: 26 off */
    /* a person (0) counts as the mean of the rated seats: with hard as
     * partner against two easy, still the stronger side */
    const struct ai_table person = {{0, easy, hard, easy}};
    assert_int_equal(partners_choice(50, 40, &person, 0), ENGINE_MOON_SUBTRACT);
    /* the weaker side wants the game short all the more */
    const struct ai_table weaker = {{easy, hard, easy, hard}};
    assert_int_equal(partners_choice(50, 40, &weaker, 0),
                     ENGINE_MOON_ADD_OTHERS);
    /* ratings out of range are unknown: here the sides are alike */
    const struct ai_table bad = {{hard, -1, hard, AI_RATING_MAX + 1}};
    assert_int_equal(partners_choice(50, 40, &bad, 0), ENGINE_MOON_ADD_OTHERS);
    /* far ahead, the shorter game is safer whatever the strength */
    assert_int_equal(partners_choice(30, 50, &stronger, 0),
                     ENGINE_MOON_ADD_OTHERS);
}

/* With the sides alike the choice is the one made without a table, in
 * every position; without partners the table changes nothing. */
static void test_ai_moon_choice_alike_sides_as_without(void **state)
{
    (void)state;
    const int hard = ai_level_rating(AI_HARD, NULL);
    const int easy = ai_level_rating(AI_EASY, NULL);
    const struct ai_table alike = {{hard, hard, hard, hard}};
    const struct ai_table crossed = {{hard, easy, easy, hard}};
    for (int32_t mine = 0; mine < 100; mine += 9)
        for (int32_t theirs = 0; theirs < 100; theirs += 7) {
            int none = partners_choice(mine, theirs, NULL, 0);
            assert_int_equal(partners_choice(mine, theirs, &alike, 0), none);
            assert_int_equal(partners_choice(mine, theirs, &crossed, 0), none);
        }
    const struct ai_table stronger = {{hard, easy, easy, easy}};
    for (int32_t lead = 0; lead < 100; lead += 11) {
        struct engine_rules r;
        struct engine_game g;
        struct engine_action a, b;
        struct engine_prng rng;
        const int32_t totals[4] = {lead, 40, 50, 60};
        shoot_with_clubs(&r, &g, &rng, totals);
        struct engine_view v;
        engine_view_make(&g, 0, &v);
        assert_int_equal(ai_decide_table(AI_HARD, &v, &rng, 0, 0, NULL, &a), 0);
        assert_int_equal(
            ai_decide_table(AI_HARD, &v, &rng, 0, 0, &stronger, &b), 0);
        assert_int_equal(a.moon, b.moon);
    }
}

static void test_ai_decide_nothing_to_do(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    struct engine_prng rng;
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, NULL, NULL);
    engine_prng_seed(&rng, 1);
    /* seat 0 leads; seat 1 has nothing to do */
    assert_int_equal(ai_act_for(AI_EASY, &g, 1, &rng, &a), -1);
    assert_int_equal(ai_act_for(AI_EASY, &g, 0, &rng, &a), 0);
}

static void test_ai_level_find_names(void **state)
{
    (void)state;
    assert_int_equal(ai_level_find("EASY"), AI_EASY);
    assert_int_equal(ai_level_find("random"), AI_RANDOM);
    assert_int_equal(ai_level_find("Hard"), AI_HARD);
    assert_int_equal(ai_level_find("normal"), AI_NORMAL);
    assert_int_equal(ai_level_find("expert"), -1);
    assert_string_equal(ai_level_name(AI_EASY), "easy");
    assert_null(ai_level_name(ai_level_count()));
}

/* ---- Whole games -------------------------------------------------------- */

struct tally {
    long hands;
    long points[ENGINE_MAX_PLAYERS];
};

static void count_hand(void *ctx, const struct engine_game *g,
                       const struct engine_event *ev)
{
    struct tally *t = ctx;
    if (ev->kind != ENGINE_EV_HAND_SCORED)
        return;
    t->hands++;
    for (int s = 0; s < g->n; s++)
        t->points[s] += g->points[s];
}

/* Plays a whole game, seat s at levels[s]; fails the test on any refused
 * action or a game that does not end. */
static void play_game(const struct engine_rules *r, uint64_t seed,
                      const int *levels, struct tally *t)
{
    struct engine_game g;
    struct engine_prng rng;
    struct engine_sink sink = {count_hand, t};
    engine_game_init(&g, r, seed, (int)(seed % (uint64_t)r->players));
    engine_prng_seed(&rng, seed ^ 0x9E3779B97F4A7C15u);
    for (long steps = 0; engine_phase(&g) != ENGINE_PHASE_GAME_OVER; steps++) {
        if (steps > 100000)
            fail_msg("%s %dp seed %llu: the game did not end",
                     engine_preset_name(r->preset), r->players,
                     (unsigned long long)seed);
        if (engine_phase(&g) == ENGINE_PHASE_DEAL) {
            assert_int_equal(engine_deal(&g, &sink), 0);
            continue;
        }
        int seat = 0;
        while (seat < g.n && !engine_may_act(&g, seat))
            seat++;
        assert_true(seat < g.n);
        struct engine_action a;
        assert_int_equal(ai_act_for(levels[seat], &g, seat, &rng, &a), 0);
        enum engine_refusal why = engine_act(&g, &a, &sink, NULL);
        if (why != ENGINE_OK)
            fail_msg("%s %dp seed %llu: %s seat %d action %d card %s "
                     "refused: %s",
                     engine_preset_name(r->preset), r->players,
                     (unsigned long long)seed, ai_level_name(levels[seat]),
                     seat, a.kind, engine_card_name(a.cards[0]),
                     sc_refusal(why));
    }
}

static void play_many(const char *text, int players, int games, bool mixed)
{
    struct engine_rules r;
    sc_rules(&r, text, players);
    int levels[ENGINE_MAX_PLAYERS];
    for (int k = 0; k < games; k++) {
        for (int s = 0; s < players; s++)
            levels[s] = mixed && (s + k) % 2 ? AI_RANDOM : AI_EASY;
        struct tally t = {0};
        play_game(&r, (uint64_t)k * 7919 + (uint64_t)players, levels, &t);
        assert_true(t.hands > 0);
    }
}

static void test_ai_decide_every_preset_whole_games(void **state)
{
    (void)state;
    for (int p = 0; p < engine_preset_count(); p++) {
        int min, max;
        engine_preset_players(p, &min, &max);
        for (int n = min; n <= max; n++) {
            play_many(engine_preset_name(p), n, 24, false);
            play_many(engine_preset_name(p), n, 8, true);
        }
    }
}

/* Options no preset sets: scatter passes, kitty exchanges (also with two
 * decks, where a hand may hold two copies), the play restrictions. */
static const struct {
    const char *text;
    int players;
} option_games[] = {
    {"standard pass_cycle=scatter", 4},
    {"standard pass_cycle=scatter pass_count=4", 3},
    {"standard pass_cycle=scatter pass_count=2", 3},
    {"standard pass_cycle=left,right,left2,right2,across,hold", 5},
    {"standard odd_cards=kitty_exchange", 3},
    {"standard odd_cards=kitty_exchange pass_count=4", 7},
    {"standard odd_cards=kitty_first_point", 5},
    {"standard odd_cards=faceup_leftover", 6},
    {"standard odd_cards=widow", 5},
    {"cancellation pass_count=3", 6},
    {"cancellation odd_cards=kitty_exchange pass_count=2", 7},
    {"standard dump_queen=on first_trick_points=forbidden", 4},
    {"joker first_trick_points=forbidden dump_queen=on qs_points=13", 5},
    {"standard hearts_lead=any lead_hearts_over_queen=off", 4},
    {"standard pass_blind=on", 4},
    {"omnibus bonus_card=JD moon_keeps_bonus=off moon=add_unless_loses "
     "sun=on",
     4},
    {"standard match_pairs=on exact_target_reset=half", 4},
    {"partners partners=individual_score", 4},
    {"black-maria card_points=AS:5 bonus_card=JD", 3},
    {"domino joker=on", 5},
    {"two-handed bonus_card=TD qs_points=13", 2},
    {"modern first_lead=left_of_dealer", 6},
};

static void test_ai_decide_option_whole_games(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof option_games / sizeof option_games[0]; i++) {
        play_many(option_games[i].text, option_games[i].players, 16, false);
        play_many(option_games[i].text, option_games[i].players, 8, true);
    }
}

static void test_ai_easy_beats_random(void **state)
{
    (void)state;
    struct engine_rules r;
    sc_rules(&r, "standard", 4);
    const int levels[4] = {AI_EASY, AI_RANDOM, AI_RANDOM, AI_RANDOM};
    struct tally t = {0};
    for (uint64_t k = 0; k < 300; k++)
        play_game(&r, 1000 + k, levels, &t);
    double easy = (double)t.points[0] / (double)t.hands;
    double rnd = (double)(t.points[1] + t.points[2] + t.points[3]) /
                 (3.0 * (double)t.hands);
    print_message("easy %.2f, random %.2f points per hand over %ld hands\n",
                  easy, rnd, t.hands);
    /* measured about 1.2 against 8.0 */
    assert_true(easy * 3.0 < rnd);
    assert_true(easy < 3.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ai_level_table_lookups),
        cmocka_unit_test(test_ai_decide_bad_level_plays_random),
        cmocka_unit_test(
            test_ai_decide_budget_ignored_by_levels_that_do_not_search),
        cmocka_unit_test(test_ai_decide_moon_takes_best_choice),
        cmocka_unit_test(test_ai_moon_choice_plays_for_the_game),
        cmocka_unit_test(test_ai_moon_choice_counts_the_sides_strength),
        cmocka_unit_test(test_ai_moon_choice_alike_sides_as_without),
        cmocka_unit_test(test_ai_decide_nothing_to_do),
        cmocka_unit_test(test_ai_level_find_names),
        cmocka_unit_test(test_ai_decide_every_preset_whole_games),
        cmocka_unit_test(test_ai_decide_option_whole_games),
        cmocka_unit_test(test_ai_easy_beats_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
