/*
 * What the search thinks of each choice (ai.h's ai_explain), for the
 * bot's hints and reviews: the searching levels' own sampling and
 * playouts, kept per choice instead of reduced to the best one, and
 * counted as the seat's points in the hand rather than the search's
 * margin over the others, since that is what a person is told.
 */
#include "engine/ai/ai_internal.h"
#include "engine/ai/ai_sample.h"
#include "engine/internal.h"

#include <stdlib.h>
#include <string.h>

/* The seat's points in the scored hand g: its own, or its team's
 * (under team scoring both partners carry the team's). */
static double seat_points(const struct engine_game *g, int seat)
{
    if (g->rules->partners == ENGINE_PARTNERS_INDIVIDUAL)
        return g->points[seat] + g->points[(seat + 2) % g->n];
    return g->points[seat];
}

/* Whether two passes are the same: the same cards, in the same order
 * where the order says who gets which (scatter). */
static bool same_pass(const struct engine_action *a, const uint8_t *cards,
                      int k, bool ordered)
{
    if (a->ncards != k)
        return false;
    if (ordered)
        return memcmp(a->cards, cards, (size_t)k) == 0;
    uint64_t x = 0, y = 0;
    for (int i = 0; i < k; i++) {
        x |= ENGINE_BIT(a->cards[i]);
        y |= ENGINE_BIT(cards[i]);
    }
    return x == y;
}

static int by_points(const void *a, const void *b)
{
    const struct ai_choice *x = a, *y = b;
    return (x->points > y->points) - (x->points < y->points);
}

/* Sorts the n choices, fewest points first, and copies up to max of them
 * to out: how many. */
static int deliver(struct ai_choice *all, int n, struct ai_choice *out, int max)
{
    /* a stable order for equal points: the choices' own (merge-free:
     * qsort is not stable, so ties go by index first) */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && by_points(&all[j - 1], &all[j]) > 0; j--) {
            struct ai_choice t = all[j];
            all[j] = all[j - 1];
            all[j - 1] = t;
        }
    if (n > max)
        n = max;
    memcpy(out, all, sizeof *out * (size_t)(n > 0 ? n : 0));
    return n;
}

static int explain_play(const struct engine_view *v, struct engine_prng *rng,
                        int budget, struct ai_choice *out, int max)
{
    struct ai_choice all[AI_EXPLAIN_MAX];
    int nc = 0;
    for (uint64_t m = v->legal; m && nc < AI_EXPLAIN_MAX; m &= m - 1) {
        memset(&all[nc], 0, sizeof all[nc]);
        all[nc].action.kind = ENGINE_ACT_PLAY;
        all[nc].action.seat = (uint8_t)v->seat;
        all[nc].action.ncards = 1;
        all[nc].action.cards[0] = (uint8_t)bits_low(m);
        nc++;
    }
    if (nc == 0)
        return -1;
    struct ai_sampler s;
    if (ai_sampler_init(&s, v) < 0)
        return -1;
    int deals = budget / nc > 0 ? budget / nc : 1;
    double sum[AI_EXPLAIN_MAX] = {0};
    struct engine_game world, g;
    for (int d = 0; d < deals; d++) {
        ai_sample_world(&s, rng, &world);
        struct engine_prng keep = *rng;
        for (int i = 0; i < nc; i++) {
            *rng = keep;
            g = world;
            if (engine_play(&g, all[i].action.cards[0], NULL, NULL) !=
                ENGINE_OK)
                return -1; /* a bug in the world */
            ai_search_playout(&g, rng);
            sum[i] += seat_points(&g, v->seat);
        }
    }
    for (int i = 0; i < nc; i++)
        all[i].points = sum[i] / deals;
    return deliver(all, nc, out, max);
}

static int explain_pass(const struct engine_view *v, struct engine_prng *rng,
                        int budget, const struct engine_action *also,
                        struct ai_choice *out, int max)
{
    int k = v->pass_count;
    uint8_t cand[AI_PASS_CANDIDATES + 1][ENGINE_MAX_PASS];
    int nc = ai_search_pass_candidates(v, cand);
    if (nc < 0)
        return -1;
    bool ordered = v->pass_dir == ENGINE_PASS_SCATTER;
    if (also && also->kind == ENGINE_ACT_PASS && also->ncards == k) {
        int i = 0;
        while (i < nc && !same_pass(also, cand[i], k, ordered))
            i++;
        if (i == nc)
            memcpy(cand[nc++], also->cards, (size_t)k);
    }
    struct ai_sampler s;
    if (ai_sampler_init(&s, v) < 0)
        return -1;
    int worlds = budget / nc > 0 ? budget / nc : 1;
    double sum[AI_PASS_CANDIDATES + 1] = {0};
    int counted[AI_PASS_CANDIDATES + 1] = {0};
    struct engine_game world, g;
    for (int w = 0; w < worlds; w++) {
        ai_sample_world(&s, rng, &world);
        world.passed_mask = 0;
        if (!ai_search_others_pass(&world, v->seat, rng))
            continue;
        struct engine_prng keep = *rng;
        for (int i = 0; i < nc; i++) {
            *rng = keep;
            g = world;
            struct engine_action mine = {.kind = ENGINE_ACT_PASS,
                                         .seat = (uint8_t)v->seat,
                                         .ncards = (uint8_t)k};
            memcpy(mine.cards, cand[i], (size_t)k);
            if (engine_act(&g, &mine, NULL, NULL) != ENGINE_OK)
                continue;
            ai_search_playout(&g, rng);
            sum[i] += seat_points(&g, v->seat);
            counted[i]++;
        }
    }
    struct ai_choice all[AI_PASS_CANDIDATES + 1];
    int n = 0;
    for (int i = 0; i < nc; i++) {
        if (!counted[i])
            continue;
        memset(&all[n], 0, sizeof all[n]);
        all[n].action.kind = ENGINE_ACT_PASS;
        all[n].action.seat = (uint8_t)v->seat;
        all[n].action.ncards = (uint8_t)k;
        memcpy(all[n].action.cards, cand[i], (size_t)k);
        all[n].points = sum[i] / counted[i];
        n++;
    }
    return n ? deliver(all, n, out, max) : -1;
}

int ai_explain(const struct engine_view *v, struct engine_prng *rng, int budget,
               const struct engine_action *also, struct ai_choice *out, int max)
{
    if (max < 1)
        return -1;
    if (budget <= 0)
        budget = ai_default_budget(AI_HARD);
    if (v->phase == ENGINE_PHASE_PLAY && v->turn == v->seat && v->legal)
        return explain_play(v, rng, budget, out, max);
    if (v->phase == ENGINE_PHASE_PASS && v->pass_count > 0 &&
        !(v->known.passed_mask >> v->seat & 1))
        return explain_pass(v, rng, budget, also, out, max);
    return -1;
}
