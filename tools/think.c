/*
 * hearts-sim think: how long a computer level takes per decision at the
 * first trick of the standard 4-player game (the time the budget
 * is set by), or with `--phase pass` per pass. Positions: fresh deals,
 * easy's passes, then every seat's turn in the first trick that has more
 * than one legal card; for passes, each seat's pass of fresh deals (left,
 * right and across in turn). Prints the decisions per second and the
 * median, 90th percentile and maximum time per decision on one core.
 * `--total T` (play and pass) starts every seat at T points (the target
 * is 100), so that near the end the search weighs the chance of winning
 * the game.
 *
 * `--phase review` times what the bot's `review` of a whole game asks of
 * its thinking worker: `--decisions` whole standard games of four easy
 * seats, and before each of seat 0's decisions with a choice (its pass,
 * a play with more than one legal card) ai_explain weighs it as the
 * review does, at half hard's budget unless `--budget` says, with the
 * choice made given as the seat's own. Prints the seconds per game (mean
 * and longest), the time per position, and how many of easy's choices
 * cost 0.5 points or more against the search's (what a review tells), by
 * the first look's figures and by the second look's (ai.h's ai_explain).
 *
 * A benchmark: it asserts nothing.
 */
#include "engine/ai/ai.h"
#include "engine/engine.h"
#include "tools/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double now_ms(void)
{
    return sim_seconds() * 1e3;
}

#define THINK_MAX 100000

static double ms[THINK_MAX];

/* The median, 90th percentile and largest of the first k of ms, sorted. */
static void print_spread(long k)
{
    qsort(ms, (size_t)k, sizeof *ms, sim_cmp_double);
    printf("median %.4f ms, p90 %.4f ms, max %.4f ms", k ? ms[k / 2] : 0.0,
           k ? ms[k * 9 / 10] : 0.0, k ? ms[k - 1] : 0.0);
}

/* --phase review: see the top of the file. */
static int review_games(const struct engine_rules *r, long games, int budget)
{
    struct engine_prng rng, explain_rng;
    engine_prng_seed(&rng, 4242);
    engine_prng_seed(&explain_rng, 4243);
    long k = 0, plays = 0, passes = 0, hands = 0;
    double game_total = 0, game_max = 0;
    unsigned sink = 0;
    /* the costs a review tells (0.5 or more, TEACH_MIN_COST; by the second
     * look also two standard errors or more, TEACH_SURE), by the first
     * look's figures and by the second look's: [look][play, pass] */
    long told[2][2] = {{0, 0}, {0, 0}};
    double told_sum[2][2] = {{0, 0}, {0, 0}}, all_sum[2][2] = {{0, 0}, {0, 0}};
    for (long gi = 0; gi < games; gi++) {
        struct engine_game g;
        engine_game_init(&g, r, (uint64_t)gi + 1, (int)(gi % 4));
        double spent = 0;
        for (long steps = 0; engine_phase(&g) != ENGINE_PHASE_GAME_OVER;
             steps++) {
            if (steps > 100000)
                return 1; /* a bug: easy always acts */
            if (engine_phase(&g) == ENGINE_PHASE_DEAL) {
                engine_deal(&g, NULL);
                hands++;
                continue;
            }
            int s = 0;
            while (s < g.n && !engine_may_act(&g, s))
                s++;
            struct engine_action a;
            if (s == g.n || ai_act_for(AI_EASY, &g, s, &rng, &a))
                return 1;
            bool pass = engine_phase(&g) == ENGINE_PHASE_PASS;
            if (s == 0 && k < THINK_MAX &&
                (pass || __builtin_popcountll(engine_legal_plays(&g)) > 1)) {
                struct engine_view v;
                engine_view_make(&g, s, &v);
                struct ai_choice out[AI_EXPLAIN_MAX];
                double t0 = now_ms();
                int n = ai_explain(&v, &explain_rng, budget, &a, out,
                                   AI_EXPLAIN_MAX);
                double t = now_ms() - t0;
                ms[k++] = t;
                spent += t;
                if (n > 0)
                    sink += out[0].action.cards[0];
                if (n == 2) {
                    double cost[2] = {out[1].first - out[0].first,
                                      out[1].points - out[0].points};
                    bool sure[2] = {true, cost[1] >= 2 * out[1].se};
                    for (int look = 0; look < 2; look++) {
                        all_sum[look][pass] += cost[look];
                        if (cost[look] >= 0.5 && sure[look]) {
                            told[look][pass]++;
                            told_sum[look][pass] += cost[look];
                        }
                    }
                }
                if (pass)
                    passes++;
                else
                    plays++;
            }
            if (engine_act(&g, &a, NULL, NULL))
                return 1;
        }
        game_total += spent;
        if (spent > game_max)
            game_max = spent;
    }
    printf("review (budget %d): %ld games, %ld hands, %ld positions (%ld "
           "plays, %ld passes); per game mean %.3f s, max %.3f s; per "
           "position ",
           budget, games, hands, k, plays, passes,
           games ? game_total / 1e3 / (double)games : 0.0, game_max / 1e3);
    print_spread(k);
    printf(" (checksum %u)\n", sink);
    printf("costs of 0.5 or more: plays %ld (%.1f points), passes %ld (%.1f) "
           "by the first look; plays %ld (%.1f), passes %ld (%.1f) by the "
           "second look and two standard errors, which a review tells\n",
           told[0][0], told_sum[0][0], told[0][1], told_sum[0][1], told[1][0],
           told_sum[1][0], told[1][1], told_sum[1][1]);
    printf("mean cost of a play %.3f by the first look, %.3f by the second; "
           "of a pass %.3f, %.3f\n",
           plays ? all_sum[0][0] / (double)plays : 0.0,
           plays ? all_sum[1][0] / (double)plays : 0.0,
           passes ? all_sum[0][1] / (double)passes : 0.0,
           passes ? all_sum[1][1] / (double)passes : 0.0);
    return 0;
}

int sim_think(int argc, char **argv)
{
    int level = AI_HARD;
    long budget = 0, count = 200, total_start = 0;
    bool pass = false, review = false;
    for (int i = 0; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--level")) {
            level = ai_level_find(argv[i + 1]);
        } else if (!strcmp(argv[i], "--budget")) {
            if (sim_parse_count(argv[i + 1], 0, 10000000, &budget))
                level = -1;
        } else if (!strcmp(argv[i], "--phase")) {
            pass = !strcmp(argv[i + 1], "pass");
            review = !strcmp(argv[i + 1], "review");
            if (!pass && !review && strcmp(argv[i + 1], "play"))
                level = -1;
        } else if (!strcmp(argv[i], "--total")) {
            if (sim_parse_count(argv[i + 1], 0, 99, &total_start))
                level = -1;
        } else if (!strcmp(argv[i], "--decisions")) {
            if (sim_parse_count(argv[i + 1], 1, THINK_MAX, &count))
                level = -1;
        } else {
            level = -1;
        }
    }
    if (level < 0 || argc % 2) {
        fprintf(stderr,
                "usage: hearts-sim think [--level LEVEL] [--budget "
                "N] [--decisions N] [--phase play|pass|review] [--total T]\n");
        return 2;
    }
    struct engine_rules r;
    if (engine_rules_parse(&r, "standard", 4, NULL))
        return 1;
    if (review)
        return review_games(
            &r, count, budget ? (int)budget : ai_default_budget(AI_HARD) / 2);
    struct engine_prng rng;
    engine_prng_seed(&rng, 4242);
    long k = 0;
    unsigned sink = 0;
    for (uint64_t deal = 1; k < count; deal++) {
        struct engine_game g;
        engine_game_init(&g, &r, deal, (int)(deal % 4));
        for (int s = 0; s < g.n; s++)
            g.totals[s] = (int32_t)total_start;
        /* hand_no picks the direction: left, right or across */
        if (pass)
            g.hand_no = (uint16_t)(deal % 3);
        engine_deal(&g, NULL);
        for (int s = 0; pass && s < 4 && k < count; s++) {
            struct engine_view v;
            struct engine_action a;
            engine_view_make(&g, s, &v);
            double t0 = now_ms();
            ai_decide_budget(level, &v, &rng, (int)budget, &a);
            ms[k++] = now_ms() - t0;
            sink += a.cards[0];
        }
        if (pass)
            continue;
        for (int s = 0; s < 4; s++) {
            struct engine_action a;
            if (ai_act_for(AI_EASY, &g, s, &rng, &a) == 0)
                engine_act(&g, &a, NULL, NULL);
        }
        while (k < count && engine_phase(&g) == ENGINE_PHASE_PLAY &&
               g.trick_no == 0) {
            struct engine_view v;
            struct engine_action a;
            engine_view_make(&g, engine_turn(&g), &v);
            bool choice = __builtin_popcountll(v.legal) > 1;
            double t0 = now_ms();
            ai_decide_budget(level, &v, &rng, (int)budget, &a);
            double t = now_ms() - t0;
            if (choice)
                ms[k++] = t;
            sink += a.cards[0];
            engine_act(&g, &a, NULL, NULL);
        }
    }
    double total = 0;
    for (long i = 0; i < k; i++)
        total += ms[i];
    printf("%s (budget %ld): %ld %s decisions, %.0f decisions/s, "
           "per decision ",
           ai_level_name(level), budget ? budget : ai_default_budget(level), k,
           pass ? "pass" : "first-trick",
           total > 0 ? (double)k * 1e3 / total : 0.0);
    print_spread(k);
    printf(" (checksum %u)\n", sink);
    return 0;
}
