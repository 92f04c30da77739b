/*
 * Random games as a busy channel would have archived them, for the
 * benchmarks (storage_bench.c, site_bench.c): a record of 4 random
 * computer players under standard rules, and its results line among
 * `players` people ("player17", key "n:player17").
 */
#ifndef HEARTS_BENCH_RANDOM_GAME_H
#define HEARTS_BENCH_RANDOM_GAME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ai/ai.h"
#include "storage/archive.h"
#include "storage/record/record.h"

/* One random game's record (4 random computers, standard). */
static inline char *random_game(const struct engine_rules *r, uint64_t seed,
                                int *hands)
{
    static const char *const names[] = {"p0", "p1", "p2", "p3"};
    struct record_writer *w = record_writer_new(r, names, 4);
    struct engine_game g;
    struct engine_prng rng;
    engine_prng_seed(&rng, seed);
    engine_game_init(&g, r, seed, (int)(seed % 4));
    while (engine_phase(&g) != ENGINE_PHASE_GAME_OVER) {
        if (engine_phase(&g) == ENGINE_PHASE_DEAL) {
            engine_deal(&g, record_writer_sink(w));
            continue;
        }
        for (int s = 0; s < g.n; s++) {
            struct engine_action a;
            if (!engine_may_act(&g, s) ||
                ai_act_for(AI_RANDOM, &g, s, &rng, &a))
                continue;
            engine_act(&g, &a, record_writer_sink(w), NULL);
            break;
        }
    }
    *hands = g.hand_no;
    char *json = record_writer_json(w);
    record_writer_free(w);
    return json;
}

static inline void random_result(struct archive_result *res, uint64_t *x,
                                 long i, long players)
{
    memset(res, 0, sizeof *res);
    snprintf(res->game, sizeof res->game, "%016lx", (unsigned long)i + 1);
    res->time = 1700000000 + i * 600;
    snprintf(res->preset, sizeof res->preset, "standard");
    res->finished = true;
    res->n = 4;
    long seat_of[4];
    for (int s = 0; s < 4; s++) {
        bool again;
        do {
            *x = *x * 6364136223846793005ull + 1442695040888963407ull;
            seat_of[s] = (long)((*x >> 33) % (uint64_t)players);
            again = false;
            for (int o = 0; o < s; o++)
                again |= seat_of[o] == seat_of[s];
        } while (again);
        snprintf(res->seats[s].name, sizeof res->seats[s].name, "player%ld",
                 seat_of[s]);
        snprintf(res->seats[s].key, sizeof res->seats[s].key, "n:player%ld",
                 seat_of[s]);
    }
}

#endif
