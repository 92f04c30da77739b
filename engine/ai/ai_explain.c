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

#include <math.h>
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

/* Sorts the n choices, fewest points first. */
static void sort_choices(struct ai_choice *all, int n)
{
    /* a stable order for equal points: the choices' own (merge-free:
     * qsort is not stable, so ties go by index first) */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && by_points(&all[j - 1], &all[j]) > 0; j--) {
            struct ai_choice t = all[j];
            all[j] = all[j - 1];
            all[j - 1] = t;
        }
}

/* The differences of the second action's points less the first's, deal
 * by deal, where a deal counted both. */
struct paired {
    double sum, sq;
    int n;
};

/*
 * Weighs the n actions of the seat (its plays, or its passes) over
 * `deals` sampled deals of the unseen cards: each played out from the
 * same deal with the same playout luck (common random numbers), the seat's
 * points summed into sum[] and the deals counted into counted[] (a pass
 * the deal refuses is not counted); with `pair`, the first two actions'
 * differences too. -1 if the sampler finds the view inconsistent, or a
 * play is refused (a bug in the world).
 */
static int weigh(const struct engine_view *v, struct engine_prng *rng,
                 int deals, const struct engine_action *acts, int n,
                 double *sum, int *counted, struct paired *pair)
{
    struct ai_sampler s;
    if (ai_sampler_init(&s, v) < 0)
        return -1;
    bool pass = v->phase == ENGINE_PHASE_PASS;
    struct engine_game world, g;
    for (int d = 0; d < deals; d++) {
        ai_sample_world(&s, rng, &world);
        if (pass) {
            world.passed_mask = 0;
            if (!ai_search_others_pass(&world, v->seat, rng))
                continue;
        }
        struct engine_prng keep = *rng;
        double pts[2];
        int both = 0;
        for (int i = 0; i < n; i++) {
            *rng = keep;
            g = world;
            if (engine_act(&g, &acts[i], NULL, NULL) != ENGINE_OK) {
                if (pass)
                    continue;
                return -1;
            }
            ai_search_playout(&g, rng);
            double p = seat_points(&g, v->seat);
            sum[i] += p;
            counted[i]++;
            if (i < 2) {
                pts[i] = p;
                both++;
            }
        }
        if (pair && both == 2) {
            double dif = pts[1] - pts[0];
            pair->sum += dif;
            pair->sq += dif * dif;
            pair->n++;
        }
    }
    return 0;
}

/* The seat's choices now: every legal card, or the candidate passes and
 * `also` if it is a pass none of them is. How many, or -1. */
static int choices_of(const struct engine_view *v,
                      const struct engine_action *also,
                      struct engine_action *acts)
{
    int n = 0;
    if (v->phase == ENGINE_PHASE_PLAY) {
        for (uint64_t m = v->legal; m && n < AI_EXPLAIN_MAX; m &= m - 1) {
            memset(&acts[n], 0, sizeof acts[n]);
            acts[n].kind = ENGINE_ACT_PLAY;
            acts[n].seat = (uint8_t)v->seat;
            acts[n].ncards = 1;
            acts[n].cards[0] = (uint8_t)bits_low(m);
            n++;
        }
        return n ? n : -1;
    }
    int k = v->pass_count;
    uint8_t cand[AI_PASS_CANDIDATES][ENGINE_MAX_PASS];
    int nc = ai_search_pass_candidates(v, cand);
    if (nc < 0)
        return -1;
    for (; n < nc; n++) {
        memset(&acts[n], 0, sizeof acts[n]);
        acts[n].kind = ENGINE_ACT_PASS;
        acts[n].seat = (uint8_t)v->seat;
        acts[n].ncards = (uint8_t)k;
        memcpy(acts[n].cards, cand[n], (size_t)k);
    }
    if (also && also->kind == ENGINE_ACT_PASS && also->ncards == k) {
        bool ordered = v->pass_dir == ENGINE_PASS_SCATTER;
        int i = 0;
        while (i < n && !same_pass(also, acts[i].cards, k, ordered))
            i++;
        if (i == n) {
            acts[n] = *also;
            acts[n].seat = (uint8_t)v->seat;
            n++;
        }
    }
    return n;
}

/* Whether a is the same choice as b (a pass: the same cards, in the same
 * order under scatter passing). */
static bool same_choice(const struct engine_view *v,
                        const struct engine_action *a,
                        const struct engine_action *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == ENGINE_ACT_PLAY)
        return a->ncards == 1 && b->ncards == 1 && a->cards[0] == b->cards[0];
    return same_pass(a, b->cards, b->ncards,
                     v->pass_dir == ENGINE_PASS_SCATTER);
}

/*
 * The second look (ai.h): the best of the first look and `also` weighed
 * again, alone, on fresh deals. The first look's best is the least of
 * many noisy figures, so its own figure is low by the luck that made it
 * the least (the more choices, the more: the pass weighs 35); the second
 * look's deals did not choose it, so the difference of its two figures
 * is what `also` is expected to cost, without that luck.
 */
#define SECOND_LOOK_SHARE 4 /* of the budget, in playouts */

static int second_look(const struct engine_view *v, struct engine_prng *rng,
                       int budget, struct ai_choice *best,
                       const struct engine_action *also, struct ai_choice *out,
                       int max)
{
    struct engine_action acts[2] = {best->action, *also};
    int n = same_choice(v, &best->action, also) ? 1 : 2;
    int deals = budget / SECOND_LOOK_SHARE / n;
    double sum[2] = {0, 0};
    int counted[2] = {0, 0};
    struct paired pair = {0, 0, 0};
    if (weigh(v, rng, deals > 0 ? deals : 1, acts, n, sum, counted, &pair) < 0)
        return -1;
    if (n > max)
        n = max;
    for (int i = 0; i < n; i++) {
        if (!counted[i])
            return -1;
        out[i].action = acts[i];
        out[i].first = i == 0 ? best->first : -1;
        out[i].points = sum[i] / counted[i];
        out[i].se = 0;
    }
    if (n == 2 && pair.n > 1) {
        double mean = pair.sum / pair.n;
        double var = (pair.sq - pair.n * mean * mean) / (pair.n - 1);
        out[1].se = var > 0 ? sqrt(var / pair.n) : 0;
    }
    return n;
}

int ai_explain(const struct engine_view *v, struct engine_prng *rng, int budget,
               const struct engine_action *also, struct ai_choice *out, int max)
{
    if (max < 1)
        return -1;
    if (budget <= 0)
        budget = ai_default_budget(AI_HARD);
    if (!(v->phase == ENGINE_PHASE_PLAY && v->turn == v->seat && v->legal) &&
        !(v->phase == ENGINE_PHASE_PASS && v->pass_count > 0 &&
          !(v->known.passed_mask >> v->seat & 1)))
        return -1;
    /* a pass weighs more, as the searching levels' own (ai_search_decide) */
    if (v->phase == ENGINE_PHASE_PASS)
        budget *= AI_PASS_FACTOR;
    if (also && also->kind != (v->phase == ENGINE_PHASE_PLAY ? ENGINE_ACT_PLAY
                                                             : ENGINE_ACT_PASS))
        also = NULL;
    struct engine_action acts[AI_EXPLAIN_MAX];
    int nc = choices_of(v, also, acts);
    if (nc < 0)
        return -1;
    int deals = budget / nc > 0 ? budget / nc : 1;
    double sum[AI_EXPLAIN_MAX] = {0};
    int counted[AI_EXPLAIN_MAX] = {0};
    if (weigh(v, rng, deals, acts, nc, sum, counted, NULL) < 0)
        return -1;
    struct ai_choice all[AI_EXPLAIN_MAX];
    int n = 0;
    for (int i = 0; i < nc; i++) {
        if (!counted[i])
            continue;
        memset(&all[n], 0, sizeof all[n]);
        all[n].action = acts[i];
        all[n].points = all[n].first = sum[i] / counted[i];
        n++;
    }
    if (!n)
        return -1;
    sort_choices(all, n);
    if (!also) {
        if (n > max)
            n = max;
        memcpy(out, all, sizeof *out * (size_t)n);
        return n;
    }
    /* the first look's figure of `also`, for measuring the second's worth */
    double also_first = -1;
    for (int i = 0; i < n; i++)
        if (same_choice(v, &all[i].action, also))
            also_first = all[i].points;
    int got = second_look(v, rng, budget, &all[0], also, out, max);
    if (got == 2)
        out[1].first = also_first;
    return got;
}
