/*
 * hearts-sim think: how long a computer level takes per decision at the
 * first trick of the standard 4-player game (the time the budget
 * is set by), or with `--phase pass` per pass. Positions: fresh deals,
 * easy's passes, then every seat's turn in the first trick that has more
 * than one legal card; for passes, each seat's pass of fresh deals (left,
 * right and across in turn). Prints the decisions per second and the
 * median, 90th percentile and maximum time per decision on one core. A
 * benchmark: it asserts nothing.
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

int sim_think(int argc, char **argv)
{
    int level = AI_HARD;
    long budget = 0, count = 200;
    bool pass = false;
    for (int i = 0; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--level")) {
            level = ai_level_find(argv[i + 1]);
        } else if (!strcmp(argv[i], "--budget")) {
            if (sim_parse_count(argv[i + 1], 0, 10000000, &budget))
                level = -1;
        } else if (!strcmp(argv[i], "--phase")) {
            pass = !strcmp(argv[i + 1], "pass");
            if (!pass && strcmp(argv[i + 1], "play"))
                level = -1;
        } else if (!strcmp(argv[i], "--decisions")) {
            if (sim_parse_count(argv[i + 1], 1, THINK_MAX, &count))
                level = -1;
        } else {
            level = -1;
        }
    }
    if (level < 0 || argc % 2) {
        fprintf(stderr, "usage: hearts-sim think [--level LEVEL] [--budget "
                        "N] [--decisions N] [--phase play|pass]\n");
        return 2;
    }
    struct engine_rules r;
    if (engine_rules_parse(&r, "standard", 4, NULL))
        return 1;
    static double ms[THINK_MAX];
    struct engine_prng rng;
    engine_prng_seed(&rng, 4242);
    long k = 0;
    unsigned sink = 0;
    for (uint64_t deal = 1; k < count; deal++) {
        struct engine_game g;
        engine_game_init(&g, &r, deal, (int)(deal % 4));
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
    qsort(ms, (size_t)k, sizeof *ms, sim_cmp_double);
    printf("%s (budget %ld): %ld %s decisions, %.0f decisions/s, "
           "per decision median %.4f ms, p90 %.4f ms, max %.4f ms "
           "(checksum %u)\n",
           ai_level_name(level), budget ? budget : ai_default_budget(level), k,
           pass ? "pass" : "first-trick",
           total > 0 ? (double)k * 1e3 / total : 0.0, ms[k / 2], ms[k * 9 / 10],
           ms[k - 1], sink);
    return 0;
}
