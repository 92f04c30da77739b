/*
 * A game of random computer play as a record, for the storage tests
 * (test_archive.c, test_damage.c): the archive is made of such records.
 */
#ifndef HEARTS_TEST_STORAGE_PLAY_H
#define HEARTS_TEST_STORAGE_PLAY_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "engine/ai/ai.h"
#include "storage/record/record.h"

/* Plays a game of `rules` with random computer players and returns its
 * record; stopped after `stop_after` actions if > 0 (a stopped game).
 * `given` names the seats (NULL: p0, p1, ...). */
static inline char *play_named(const char *rules, uint64_t seed, int stop_after,
                               const char *const *given)
{
    struct engine_rules r;
    assert_int_equal(engine_rules_parse(&r, rules, 0, NULL), 0);
    const char *names[ENGINE_MAX_PLAYERS];
    char buf[ENGINE_MAX_PLAYERS][16];
    for (int s = 0; s < r.players; s++) {
        snprintf(buf[s], sizeof buf[s], "p%d", s);
        names[s] = given ? given[s] : buf[s];
    }
    struct record_writer *w = record_writer_new(&r, names, r.players);
    struct engine_game g;
    struct engine_prng rng;
    engine_prng_seed(&rng, seed);
    engine_game_init(&g, &r, seed, 0);
    for (int steps = 0; engine_phase(&g) != ENGINE_PHASE_GAME_OVER; steps++) {
        if (stop_after > 0 && steps >= stop_after)
            break;
        if (engine_phase(&g) == ENGINE_PHASE_DEAL) {
            engine_deal(&g, record_writer_sink(w));
            continue;
        }
        for (int s = 0; s < g.n; s++) {
            struct engine_action a;
            if (!engine_may_act(&g, s))
                continue;
            assert_int_equal(ai_act_for(AI_RANDOM, &g, s, &rng, &a), 0);
            assert_int_equal(engine_act(&g, &a, record_writer_sink(w), NULL),
                             ENGINE_OK);
            break;
        }
    }
    char *json = record_writer_json(w);
    record_writer_free(w);
    return json;
}

static inline char *play(const char *rules, uint64_t seed, int stop_after)
{
    return play_named(rules, seed, stop_after, NULL);
}

#endif
