/*
 * The searching levels, normal and hard: perfect-information Monte Carlo
 * with flat playouts. For each sampled deal of the unseen cards (ai_sample)
 * every legal card is played, the hand is played out by a cheap randomized
 * heuristic for every seat, and the card with the best mean outcome for the
 * seat's side wins. The budget is the number of playouts per decision.
 * Passing and kitty-exchange discards are easy's (see docs/engine.md).
 */
#include "ai_internal.h"
#include "ai_sample.h"
#include "internal.h"

#include <string.h>

/* One in PLAYOUT_NOISE playout plays is uniformly random. */
#define PLAYOUT_NOISE 10

/* The playout policy: duck under the card winning the trick with the
 * highest card that does, else the lowest (the highest when last); void,
 * shed the Q♠, else the most points, else the highest card; lead the
 * lowest card. Perfect information: each seat plays its own sampled hand.
 */
static int policy_card(const struct engine_game *g, uint64_t legal,
                       struct engine_prng *rng)
{
    if (engine_prng_below(rng, PLAYOUT_NOISE) == 0)
        return bits_random(rng, legal);
    const struct engine_rules *r = g->rules;
    if (g->trick_len == 0) {
        /* the lowest rank of any suit */
        int best = -1;
        for (uint64_t m = legal; m; m &= m - 1) {
            int c = bits_low(m);
            if (best < 0 || engine_card_rank(c) < engine_card_rank(best) ||
                (engine_card_rank(c) == engine_card_rank(best) &&
                 engine_prng_below(rng, 2)))
                best = c;
        }
        return best;
    }
    uint64_t follow = legal & g->led_mask;
    if (follow == legal) {
        uint64_t under = legal & (ENGINE_BIT(g->win_card) - 1);
        if (under)
            return bits_high(under);
        bool last = g->trick_len + 1 == g->trick_size;
        return last ? bits_high(legal) : bits_low(legal);
    }
    if (legal & ENGINE_BIT(ENGINE_QS) & r->penalty)
        return ENGINE_QS;
    uint64_t pen = legal & r->penalty;
    if (pen) {
        int best = bits_high(pen);
        for (uint64_t m = pen; m; m &= m - 1)
            if (r->points[bits_low(m)] > r->points[best])
                best = bits_low(m);
        return best;
    }
    int best = bits_low(legal);
    for (uint64_t m = legal; m; m &= m - 1)
        if (engine_card_rank(bits_low(m)) >= engine_card_rank(best))
            best = bits_low(m);
    return best;
}

/* Plays the hand in g to its end with the policy (discards at random, the
 * moon choice by default). */
static void playout(struct engine_game *g, struct engine_prng *rng)
{
    for (;;) {
        switch (g->phase) {
        case ENGINE_PHASE_PLAY: {
            int c = policy_card(g, engine_legal_plays(g), rng);
            engine_play(g, c, NULL, NULL);
            break;
        }
        case ENGINE_PHASE_DISCARD: {
            struct engine_action a = {.kind = ENGINE_ACT_DISCARD,
                                      .seat = g->turn,
                                      .ncards = g->rest_len};
            engine_random_cards(rng, g->hand[g->turn], g->rest_len, a.cards);
            engine_act(g, &a, NULL, NULL);
            break;
        }
        case ENGINE_PHASE_MOON: {
            struct engine_action a = {.kind = ENGINE_ACT_MOON,
                                      .seat = g->turn,
                                      .moon = (uint8_t)engine_moon_default(g)};
            engine_act(g, &a, NULL, NULL);
            break;
        }
        default:
            return;
        }
    }
}

/* The outcome of a scored hand for seat: the mean points of the other
 * side less the mean points of its own (its team under partnerships). */
static double outcome(const struct engine_game *g, int seat)
{
    bool teams = g->rules->partners != ENGINE_PARTNERS_OFF;
    double mine = 0, theirs = 0;
    int nm = 0, nt = 0;
    for (int s = 0; s < g->n; s++) {
        if (teams ? s % 2 == seat % 2 : s == seat) {
            mine += g->points[s];
            nm++;
        } else {
            theirs += g->points[s];
            nt++;
        }
    }
    return (nt ? theirs / nt : 0) - mine / nm;
}

static int search_play(const struct engine_view *v, struct engine_prng *rng,
                       int budget)
{
    uint8_t cards[64];
    int nc = 0;
    for (uint64_t m = v->legal; m; m &= m - 1)
        cards[nc++] = (uint8_t)bits_low(m);
    if (nc == 1)
        return cards[0];
    struct ai_sampler s;
    if (ai_sampler_init(&s, v) < 0)
        return cards[0];
    int deals = budget / nc > 0 ? budget / nc : 1;
    double sum[64] = {0};
    struct engine_game world, g;
    for (int d = 0; d < deals; d++) {
        ai_sample_world(&s, rng, &world);
        for (int i = 0; i < nc; i++) {
            g = world;
            if (engine_play(&g, cards[i], NULL, NULL) != ENGINE_OK)
                return cards[0]; /* a bug in the world; stay legal */
            playout(&g, rng);
            sum[i] += outcome(&g, v->seat);
        }
    }
    int best = 0;
    for (int i = 1; i < nc; i++)
        if (sum[i] > sum[best])
            best = i;
    return cards[best];
}

int ai_search_decide(const struct engine_view *v, struct engine_prng *rng,
                     int budget, struct engine_action *a)
{
    if (v->phase != ENGINE_PHASE_PLAY)
        return ai_easy_decide(v, rng, a);
    if (!v->legal)
        return -1;
    a->kind = ENGINE_ACT_PLAY;
    a->ncards = 1;
    a->cards[0] = (uint8_t)search_play(v, rng, budget);
    return 0;
}
