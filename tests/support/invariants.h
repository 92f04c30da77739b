/*
 * The invariants the engine's property tests check at every step of a
 * game, and the independent scoring oracle (invariants.c says which).
 */
#ifndef HEARTS_TEST_INVARIANTS_H
#define HEARTS_TEST_INVARIANTS_H

#include "engine/engine.h"

#include <stdint.h>

/* The game being checked, for messages: "what hand H: ...". */
struct prop_run {
    const char *text;
    uint64_t seed;
    int hand;
    char what[2400]; /* room for a long rule text */
};

/* Every card of the pack is exactly once (twice with two decks) in a
 * hand, taken, on the trick, set aside, in the rest or dead. */
void prop_check_cards(const struct engine_game *g, const struct prop_run *ru,
                      const char *when);

/* After a hand is scored (g just after scoring, `before` the totals
 * before the hand): the points, the totals, the end and the winners. */
void prop_check_scored(const struct engine_game *g, const int32_t *before,
                       const struct prop_run *ru);

/* In PLAY: the legal set against the plain rules, every illegal card,
 * a card not held, a card not in the pack and a play out of turn are
 * refused and change nothing. Uses p for its random picks. */
void prop_check_play(struct engine_game *g, struct engine_prng *p,
                     const struct prop_run *ru);

/* Once passing is over, every hand holds the hand size. */
void prop_check_after_pass(const struct engine_game *g,
                           const struct prop_run *ru);

/* Deals the next hand (events to sink), keeping the totals before it in
 * before[] for prop_check_scored, and checks the hand sizes if there is
 * no passing. */
void prop_deal(struct engine_game *g, int32_t *before,
               const struct engine_sink *sink, struct prop_run *ru);

/* k random cards of a multiset into a's card list. */
void prop_random_cards(struct engine_prng *p, struct engine_cards h, int k,
                       struct engine_action *a);

/* A random set bit of m (m not 0). */
int prop_pick_bit(struct engine_prng *p, uint64_t m);

/* Fails if the game differs from `before` byte for byte. */
void prop_expect_unchanged(const struct engine_game *g,
                           const struct engine_game *before,
                           const struct prop_run *ru, const char *what);

/* A sink (ctx: struct prop_trace) hashing every event, counting the hands
 * scored and the moons. */
struct prop_trace {
    uint64_t hash;
    int hands_scored;
    int moons;
};
void prop_mix(uint64_t *h, uint64_t v);
void prop_trace_event(void *ctx, const struct engine_game *g,
                      const struct engine_event *ev);

#endif
