/*
 * Tests of tools/sim_stats.c: the seat's LEVEL[/VARIANT] and its
 * refusals, the seatings of a duplicate tournament, the mean and its
 * standard error over groups (ordinary and paired by deal), and the
 * rating fit on made-up results.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "engine/ai/ai.h"
#include "tools/sim_stats.h"

static void test_seat_parse_reads_level_and_variant(void **state)
{
    (void)state;
    struct sim_seat s = {-1, -1, 0};
    char err[160] = "";
    assert_int_equal(sim_seat_parse("hard", &s, err, sizeof err), 0);
    assert_int_equal(s.level, AI_HARD);
    assert_int_equal(s.flags, 0);
    assert_int_equal(sim_seat_parse("Normal/POINTS", &s, err, sizeof err), 0);
    assert_int_equal(s.level, AI_NORMAL);
    assert_int_equal(s.flags, AI_EVAL_POINTS);
    char name[32];
    sim_seat_name(&s, name, sizeof name);
    assert_string_equal(name, "normal/points");
    assert_int_equal(sim_seat_parse("hard/untold", &s, err, sizeof err), 0);
    assert_int_equal(s.flags, AI_TABLE_BLIND);
    sim_seat_name(&s, name, sizeof name);
    assert_string_equal(name, "hard/untold");
    struct sim_seat back;
    assert_int_equal(sim_seat_parse(name, &back, err, sizeof err), 0);
    assert_true(sim_seat_same(&s, &back));
    sim_seat_name(&(struct sim_seat){AI_EASY, 0, 0}, name, sizeof name);
    assert_string_equal(name, "easy");
    assert_false(sim_seat_same(&(struct sim_seat){AI_HARD, 0, 0},
                               &(struct sim_seat){AI_HARD, AI_EVAL_POINTS, 0}));
}

static void test_seat_parse_refuses_and_changes_nothing(void **state)
{
    (void)state;
    static const struct {
        const char *word, *err;
    } cases[] = {
        {"frob", "unknown level 'frob' (random, easy, normal, hard)"},
        {"", "unknown level '' (random, easy, normal, hard)"},
        {"/points", "unknown level '' (random, easy, normal, hard)"},
        {"hard/frob", "unknown variant 'frob' of hard (points, moonblind, "
                      "always, moonnear, randomplay, untold, old)"},
        {"hard/", "unknown variant '' of hard (points, moonblind, always, "
                  "moonnear, randomplay, untold, old)"},
        {"hard/points/points", "unknown variant 'points/points' of hard "
                               "(points, moonblind, always, moonnear, "
                               "randomplay, untold, old)"},
        {"easy/points",
         "easy does not search: it has no variant 'points' (normal and hard "
         "have)"},
        {"random/points",
         "random does not search: it has no variant 'points' (normal and "
         "hard have)"},
        {"hardhardhardhardhardhardhardhardhard", "unknown level "
                                                 "'hardhardhardhardhardhardhard"
                                                 "hardhard' (random, easy, "
                                                 "normal, hard)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sim_seat s = {7, 7, 0};
        char err[160] = "";
        assert_int_equal(sim_seat_parse(cases[i].word, &s, err, sizeof err),
                         -1);
        assert_string_equal(err, cases[i].err);
        assert_int_equal(s.level, 7);
        assert_int_equal(s.flags, 7);
    }
}

static void test_seatings_move_every_player_one_seat(void **state)
{
    (void)state;
    /* seating r: seat s has the pattern's seat s - r */
    assert_int_equal(sim_seating_of(0, 0, 4), 0);
    assert_int_equal(sim_seating_of(1, 1, 4), 0);
    assert_int_equal(sim_seating_of(0, 1, 4), 3);
    assert_int_equal(sim_seating_of(2, 3, 4), 3);
    /* over n seatings every player sits once in every seat */
    for (int n = 2; n <= 10; n++)
        for (int p = 0; p < n; p++) {
            int seen = 0;
            for (int r = 0; r < n; r++)
                for (int s = 0; s < n; s++)
                    if (sim_seating_of(s, r, n) == p)
                        seen |= 1 << s;
            assert_int_equal(seen, (1 << n) - 1);
        }
    struct sim_seat h = {AI_HARD, 0, 0}, e = {AI_EASY, 0, 0},
                    hp = {AI_HARD, AI_EVAL_POINTS, 0};
    assert_int_equal(sim_seatings((struct sim_seat[]){h, e, e, e}, 4), 4);
    assert_int_equal(sim_seatings((struct sim_seat[]){h, e, h, e}, 4), 2);
    assert_int_equal(sim_seatings((struct sim_seat[]){e, e, e, e}, 4), 1);
    assert_int_equal(sim_seatings((struct sim_seat[]){h, hp, h, hp}, 4), 2);
    assert_int_equal(sim_seatings((struct sim_seat[]){h, e, e}, 3), 3);
    assert_int_equal(sim_seatings((struct sim_seat[]){h, e, hp, h, e, hp}, 6),
                     3);
    assert_int_equal(sim_seatings((struct sim_seat[]){h, h, e, e}, 4), 4);
    /* a player counted apart (--against's) is not the same as its level */
    struct sim_seat hp_apart = {AI_HARD, AI_EVAL_POINTS, 1};
    assert_false(sim_seat_same(&hp, &hp_apart));
    assert_int_equal(sim_seatings((struct sim_seat[]){hp_apart, hp, hp, hp}, 4),
                     4);
}

static void test_mean_se_ordinary_and_by_group(void **state)
{
    (void)state;
    /* one observation a group: the ordinary s / sqrt(n) */
    struct sim_mean m = {0};
    assert_float_equal(sim_mean_se(&m), 0, 1e-12);
    for (int x = 1; x <= 4; x++)
        sim_mean_add(&m, x, 1);
    sim_mean_add(&m, 100, 0); /* an empty group counts for nothing */
    assert_int_equal(m.groups, 4);
    assert_float_equal(sim_mean_value(&m), 2.5, 1e-12);
    assert_float_equal(sim_mean_se(&m), sqrt(5.0 / 3 / 4), 1e-12);
    /* groups of two: (1, 2) and (3, 4): the group means 1.5 and 3.5 */
    struct sim_mean g = {0};
    sim_mean_add(&g, 3, 2);
    sim_mean_add(&g, 7, 2);
    assert_float_equal(sim_mean_value(&g), 2.5, 1e-12);
    /* 2 / 1 * ((3 - 5)^2 + (7 - 5)^2) / 4^2 */
    assert_float_equal(sim_mean_se(&g), 1, 1e-12);
    /* unequal groups: the ratio, weighted by the observations */
    struct sim_mean u = {0};
    sim_mean_add(&u, 6, 3);
    sim_mean_add(&u, 1, 1);
    assert_float_equal(sim_mean_value(&u), 7.0 / 4, 1e-12);
    double r = 7.0 / 4, dev = (6 - 3 * r) * (6 - 3 * r) + (1 - r) * (1 - r);
    assert_float_equal(sim_mean_se(&u), sqrt(2 * dev / 16), 1e-12);
}

/* Duplicate's point: a player's luck of the deal cancels when the deal is
 * played with it in every seat. Four deals, each seat worth its deal's
 * points (the deal decides all of it): the same player's hands vary a
 * lot, its mean over a deal's seatings not at all. */
static void test_paired_se_removes_the_deal(void **state)
{
    (void)state;
    static const double deal[4][4] = {
        {0, 13, 0, 13}, {26, 0, 0, 0}, {1, 2, 3, 20}, {5, 5, 8, 8}};
    struct sim_mean ordinary = {0}, paired = {0};
    for (int d = 0; d < 4; d++) {
        double sum = 0;
        for (int seat = 0; seat < 4; seat++) {
            sim_mean_add(&ordinary, deal[d][seat], 1);
            sum += deal[d][seat];
        }
        sim_mean_add(&paired, sum, 4);
    }
    assert_float_equal(sim_mean_value(&ordinary), 6.5, 1e-12);
    assert_float_equal(sim_mean_value(&paired), 6.5, 1e-12);
    assert_true(sim_mean_se(&ordinary) > 1.5);
    assert_float_equal(sim_mean_se(&paired), 0, 1e-9);
}

/* --against's comparison: the differences a less b, their standard errors
 * over the groups of deals worked by hand, and runs that do not pair. */
static void test_pair_compare(void **state)
{
    (void)state;
    /* two groups of two games, one seat each */
    struct sim_pair_game a[4] = {
        {1, 1, 10, 5, 0}, {0, 1, -2, 4, 0}, {1, 1, 6, 3, 1}, {0, 1, 0, 8, 1}};
    struct sim_pair_game b[4] = {
        {0, 1, 4, 6, 0}, {0, 1, 0, 4, 0}, {1, 1, 3, 3, 1}, {0.5, 1, 1, 7, 1}};
    struct sim_pair_diff w, m;
    assert_int_equal(sim_pair_compare(a, b, 4, &w, &m), 0);
    /* won: a 2 of 4 (0.5), b 1.5 of 4 (0.375); by group (a - p_a) -
     * (b - p_b) over 4: group 0 0 - (-0.75), group 1 0 - 0.75; C / (C -
     * 1) = 2 */
    assert_float_equal(w.diff, 0.125, 1e-12);
    double z = 0.75 / 4;
    assert_float_equal(w.se, sqrt(2 * (z * z + z * z)), 1e-12);
    /* margin: a 14 over 20 hands, b 8 over 20 */
    assert_float_equal(m.diff, 14.0 / 20 - 8.0 / 20, 1e-12);
    double ra = 0.7, rb = 0.4;
    double g0 = ((8 - ra * 9) - (4 - rb * 10)) / 20;
    double g1 = ((6 - ra * 11) - (4 - rb * 10)) / 20;
    assert_float_equal(m.se, sqrt(2 * (g0 * g0 + g1 * g1)), 1e-12);
    double ua = (8 - ra * 9) / 20, ub = (4 - rb * 10) / 20;
    double va = (6 - ra * 11) / 20, vb = (4 - rb * 10) / 20;
    assert_float_equal(m.unpaired,
                       sqrt(2 * (ua * ua + va * va) + 2 * (ub * ub + vb * vb)),
                       1e-12);

    /* a run against itself: no difference, none of the paired error */
    assert_int_equal(sim_pair_compare(a, a, 4, &w, &m), 0);
    assert_float_equal(w.diff, 0, 1e-12);
    assert_float_equal(w.se, 0, 1e-12);
    assert_true(m.unpaired > 0.1);
    assert_float_equal(m.se, 0, 1e-12);

    /* runs that do not pair */
    assert_int_equal(sim_pair_compare(a, b, 0, &w, &m), -1);
    b[2].group = 2;
    assert_int_equal(sim_pair_compare(a, b, 4, &w, &m), -1);
    b[2].group = 1;
    b[3].seats = 2;
    assert_int_equal(sim_pair_compare(a, b, 4, &w, &m), -1);
}

static void test_rating_fit_on_made_up_results(void **state)
{
    (void)state;
    /* A beats B 3 to 1, B beats C 3 to 1, A beats C 9 to 1: consistent
     * odds, so about 191 and 382 points apart */
    const int k = 3;
    double wins[9] = {0}, games[9] = {0};
    wins[0 * 3 + 1] = 75, wins[1 * 3 + 0] = 25;
    wins[1 * 3 + 2] = 75, wins[2 * 3 + 1] = 25;
    wins[0 * 3 + 2] = 90, wins[2 * 3 + 0] = 10;
    games[1] = games[3] = games[5] = games[7] = 100;
    games[2] = games[6] = 100;
    double rating[3], se[3];
    assert_int_equal(sim_rating_fit(k, wins, games, 1, 1500, rating, se), 0);
    assert_float_equal(rating[1], 1500, 1e-9);
    assert_float_equal(se[1], 0, 1e-12);
    assert_true(fabs(rating[0] - (1500 + 400 * log10(3))) < 8);
    assert_true(fabs(rating[2] - (1500 - 400 * log10(3))) < 8);
    assert_true(se[0] > 20 && se[0] < 60);
    assert_true(fabs(se[0] - se[2]) < 1);
    assert_float_equal(sim_rating_chance(0), 0.5, 1e-12);
    assert_float_equal(sim_rating_chance(400), 10.0 / 11, 1e-12);
    assert_true(fabs(sim_rating_chance(rating[0] - rating[2]) - 0.9) < 0.01);

    /* two players: the rating from the odds (with the half win each way)
     * and the standard error of a binomial share */
    double w2[4] = {0, 75, 25, 0}, g2[4] = {0, 100, 100, 0}, r2[2], s2[2];
    assert_int_equal(sim_rating_fit(2, w2, g2, 0, 1000, r2, s2), 0);
    assert_float_equal(r2[1] - r2[0], -400 * log10(75.5 / 25.5), 1e-3);
    double p = 75.5 / 101;
    assert_float_equal(s2[1], 400 / log(10) / sqrt(101 * p * (1 - p)), 1e-3);

    /* a player who never won still has a rating, below the others */
    double w3[9] = {0}, g3[9] = {0};
    w3[0 * 3 + 1] = 50, w3[1 * 3 + 0] = 50;
    w3[0 * 3 + 2] = 100, w3[1 * 3 + 2] = 100;
    g3[1] = g3[3] = g3[2] = g3[6] = g3[5] = g3[7] = 100;
    assert_int_equal(sim_rating_fit(3, w3, g3, 0, 1500, rating, se), 0);
    assert_true(isfinite(rating[2]) && rating[2] < rating[0] - 500);
    assert_true(fabs(rating[1] - 1500) < 1e-6);

    /* players who never met anyone connected to the anchor: no fit */
    double w4[9] = {0}, g4[9] = {0};
    w4[1] = 10, w4[3] = 10, g4[1] = g4[3] = 20;
    assert_int_equal(sim_rating_fit(3, w4, g4, 0, 1500, rating, se), -1);
    assert_int_equal(sim_rating_fit(3, w4, g4, 3, 1500, rating, se), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seat_parse_reads_level_and_variant),
        cmocka_unit_test(test_seat_parse_refuses_and_changes_nothing),
        cmocka_unit_test(test_seatings_move_every_player_one_seat),
        cmocka_unit_test(test_mean_se_ordinary_and_by_group),
        cmocka_unit_test(test_paired_se_removes_the_deal),
        cmocka_unit_test(test_pair_compare),
        cmocka_unit_test(test_rating_fit_on_made_up_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
