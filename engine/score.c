/*
 * Scoring a hand under every scoring option: card values, matched pairs,
 * the moon and the sun in each mode (the shooter's choice becomes a pending
 * decision), partnerships, the exact-target reset, and the end of the game
 * with its tie rule.
 *
 * A "unit" is what scores and shoots as one: a seat, or a team of two
 * opposite seats under partners=team_score.
 */
#include "engine/score.h"
#include "engine/internal.h"

#include <string.h>

static bool team_score(const struct engine_game *g)
{
    return g->rules->partners == ENGINE_PARTNERS_TEAM;
}

static int unit_of(const struct engine_game *g, int seat)
{
    return team_score(g) ? seat % 2 : seat;
}

static int unit_count(const struct engine_game *g)
{
    return team_score(g) ? 2 : g->n;
}

/* Removes matched pairs (a heart with the diamond of its rank, the QS with
 * the QC) from a unit's cards, copy by copy. */
static void match_pairs(struct engine_cards *c)
{
    for (int rank = 0; rank <= 13; rank++) {
        int a = rank < 13 ? ENGINE_CARD(ENGINE_HEARTS, rank) : ENGINE_QS;
        int b = rank < 13 ? ENGINE_CARD(ENGINE_DIAMONDS, rank) : ENGINE_QC;
        int na = cards_has(c, a), nb = cards_has(c, b);
        int pairs = na < nb ? na : nb;
        for (int i = 0; i < pairs; i++) {
            cards_remove(c, a);
            cards_remove(c, b);
        }
    }
}

/* The points of a unit's cards: the bonus card's apart, and the others'
 * split into positive and negative. */
static void value_cards(const struct engine_rules *r, struct engine_cards c,
                        int *pos, int *neg, int *bonus)
{
    if (r->match_pairs)
        match_pairs(&c);
    int b = 0;
    if (r->bonus != ENGINE_NO_CARD) {
        uint64_t bit = ENGINE_BIT(r->bonus);
        b = r->points[r->bonus] * (((c.one & bit) != 0) + ((c.two & bit) != 0));
        c.one &= ~bit;
        c.two &= ~bit;
    }
    /* cards grouped by value: a popcount per group and copy, summed in
     * locals (not through the pointers, which would chain memory adds) */
    int p = 0, m = 0;
    for (int k = 0; k < r->nclasses; k++) {
        int v = r->class_value[k] * (bits_count(c.one & r->class_mask[k]) +
                                     bits_count(c.two & r->class_mask[k]));
        p += v > 0 ? v : 0;
        m += v < 0 ? v : 0;
    }
    *pos = p;
    *neg = m;
    *bonus = b;
}

struct hand_tally {
    int units;
    struct engine_cards taken[ENGINE_MAX_PLAYERS];
    int tricks[ENGINE_MAX_PLAYERS];
    int pos[ENGINE_MAX_PLAYERS];
    int neg[ENGINE_MAX_PLAYERS];
    int bonus[ENGINE_MAX_PLAYERS]; /* the bonus card's points */
    int shooter;                   /* unit, or -1 */
    bool sun;
};

static void tally(const struct engine_game *g, struct hand_tally *t)
{
    const struct engine_rules *r = g->rules;
    t->units = unit_count(g);
    t->shooter = -1;
    t->sun = false;
    if (t->units == g->n) {
        for (int s = 0; s < g->n; s++) {
            t->taken[s] = g->taken[s];
            t->tricks[s] = g->tricks[s];
        }
    } else {
        memset(t->taken, 0, sizeof t->taken);
        memset(t->tricks, 0, sizeof t->tricks);
        for (int s = 0; s < g->n; s++) {
            int u = unit_of(g, s);
            cards_merge(&t->taken[u], &g->taken[s]);
            t->tricks[u] += g->tricks[s];
        }
    }
    const bool moon = r->moon != ENGINE_MOON_OFF && r->moon_cards;
    for (int u = 0; u < t->units; u++) {
        const struct engine_cards *c = &t->taken[u];
        value_cards(r, *c, &t->pos[u], &t->neg[u], &t->bonus[u]);
        uint64_t all = r->decks == 2 ? c->two : c->one;
        if (moon && (all & r->moon_cards) == r->moon_cards)
            t->shooter = u;
    }
    if (!r->sun || r->moon == ENGINE_MOON_OFF)
        return;
    /* The sun goes to the unit that took every trick, even where another
     * holds every penalty card (domino's last player, from its hand). */
    for (int u = 0; u < t->units; u++) {
        if (g->trick_no > 0 && t->tricks[u] == g->trick_no) {
            t->shooter = u;
            t->sun = true;
        }
    }
}

/* Per-seat points of the hand under moon mode `mode` (ignored when nobody
 * shot). */
static void hand_points(const struct engine_game *g, const struct hand_tally *t,
                        int mode, int32_t *pts)
{
    const struct engine_rules *r = g->rules;
    int32_t up[ENGINE_MAX_PLAYERS] = {0};
    for (int u = 0; u < t->units; u++)
        up[u] = t->pos[u] + t->neg[u] + t->bonus[u];
    if (t->shooter >= 0) {
        /* every card but the bonus card counts as the moon mode says,
         * negative ones included; the bonus card counts for whoever took
         * it, for the shooter only if moon_keeps_bonus */
        int amount = r->moon_points * (t->sun ? 2 : 1);
        for (int u = 0; u < t->units; u++) {
            bool shooter = u == t->shooter;
            if (mode == ENGINE_MOON_SUBTRACT)
                up[u] = shooter ? -amount : 0;
            else
                up[u] = shooter ? 0 : amount;
            if (!shooter || r->moon_keeps_bonus)
                up[u] += t->bonus[u];
        }
    }
    for (int s = 0; s < g->n; s++)
        pts[s] = up[unit_of(g, s)];
}

static void apply_reset(const struct engine_rules *r, int32_t *totals, int n)
{
    if (r->exact_target_reset == ENGINE_RESET_OFF)
        return;
    for (int s = 0; s < n; s++)
        if (totals[s] == r->target)
            totals[s] =
                r->exact_target_reset == ENGINE_RESET_HALF ? r->target / 2 : 0;
}

/*
 * Whether the game ends with these totals after `hands` hands, and who wins.
 * Partners under individual_score compare team sums.
 */
static bool game_ends(const struct engine_game *g, const int32_t *totals,
                      int hands, uint8_t *winners, int *nwinners)
{
    const struct engine_rules *r = g->rules;
    int n = g->n;
    bool last = hands >= ENGINE_MAX_HANDS;
    bool reached = last || (r->hands > 0 && hands >= r->hands);
    for (int s = 0; s < n; s++)
        if (totals[s] >= r->target)
            reached = true;
    if (!reached)
        return false;
    int32_t score[ENGINE_MAX_PLAYERS];
    int units = n;
    if (r->partners != ENGINE_PARTNERS_OFF) {
        units = 2;
        score[0] = totals[0] +
                   (r->partners == ENGINE_PARTNERS_INDIVIDUAL ? totals[2] : 0);
        score[1] = totals[1] +
                   (r->partners == ENGINE_PARTNERS_INDIVIDUAL ? totals[3] : 0);
    } else {
        memcpy(score, totals, sizeof(int32_t) * (size_t)n);
    }
    int32_t best = score[0];
    for (int u = 1; u < units; u++)
        if (score[u] < best)
            best = score[u];
    int tied = 0;
    for (int u = 0; u < units; u++)
        tied += score[u] == best;
    if (tied > 1 && r->tie == ENGINE_TIE_PLAY_ON && !last)
        return false;
    int k = 0;
    for (int s = 0; s < n; s++) {
        int u = r->partners != ENGINE_PARTNERS_OFF ? s % 2 : s;
        if (score[u] == best)
            winners[k++] = (uint8_t)s;
    }
    *nwinners = k;
    return true;
}

/* How good totals are for `seat`: 2 wins, 1 plays on, 0 loses; and the
 * gap to the best other side (smaller is better). */
static int standing(const struct engine_game *g, const int32_t *totals,
                    int seat, int *gap)
{
    const struct engine_rules *r = g->rules;
    uint8_t w[ENGINE_MAX_PLAYERS];
    int nw = 0;
    int32_t score[ENGINE_MAX_PLAYERS];
    int n = g->n, me = seat;
    for (int s = 0; s < n; s++)
        score[s] = totals[s];
    if (r->partners == ENGINE_PARTNERS_INDIVIDUAL) {
        for (int s = 0; s < n; s++)
            score[s] = totals[s] + totals[(s + 2) % 4];
    }
    int32_t best = INT32_MAX;
    for (int s = 0; s < n; s++) {
        bool mine =
            r->partners != ENGINE_PARTNERS_OFF ? s % 2 == me % 2 : s == me;
        if (!mine && score[s] < best)
            best = score[s];
    }
    *gap = score[me] - best;
    if (!game_ends(g, totals, g->hand_no, w, &nw))
        return 1;
    for (int i = 0; i < nw; i++)
        if (w[i] == seat)
            return 2;
    return 0;
}

static int shooter_seat(const struct engine_game *g, int unit)
{
    if (!team_score(g))
        return unit;
    /* a team chooses through the partner who won more tricks */
    return g->tricks[unit + 2] > g->tricks[unit] ? unit + 2 : unit;
}

/* The totals after this hand scored under moon mode `mode`. */
static void mode_totals(const struct engine_game *g, const struct hand_tally *t,
                        int mode, int32_t *tot)
{
    int32_t pts[ENGINE_MAX_PLAYERS];
    hand_points(g, t, mode, pts);
    for (int s = 0; s < g->n; s++)
        tot[s] = g->totals[s] + pts[s];
    apply_reset(g->rules, tot, g->n);
}

/* The outcome of a moon mode for the shooter: standing and gap. */
static void try_mode(const struct engine_game *g, const struct hand_tally *t,
                     int mode, int *stand, int *gap)
{
    int32_t tot[ENGINE_MAX_PLAYERS];
    mode_totals(g, t, mode, tot);
    *stand = standing(g, tot, shooter_seat(g, t->shooter), gap);
}

/* Whether adding to the others would end the game with anyone besides the
 * shooter (or the shooter's team) among the winners: a shared win counts. */
static bool others_would_win(const struct engine_game *g,
                             const struct hand_tally *t)
{
    int32_t tot[ENGINE_MAX_PLAYERS];
    mode_totals(g, t, ENGINE_MOON_ADD_OTHERS, tot);
    uint8_t w[ENGINE_MAX_PLAYERS];
    int nw = 0;
    if (!game_ends(g, tot, g->hand_no, w, &nw))
        return false;
    int me = shooter_seat(g, t->shooter);
    for (int i = 0; i < nw; i++) {
        bool mine = g->rules->partners != ENGINE_PARTNERS_OFF
                        ? w[i] % 2 == me % 2
                        : w[i] == me;
        if (!mine)
            return true;
    }
    return false;
}

static int best_mode(const struct engine_game *g, const struct hand_tally *t)
{
    int sa, ga, ss, gs;
    try_mode(g, t, ENGINE_MOON_ADD_OTHERS, &sa, &ga);
    try_mode(g, t, ENGINE_MOON_SUBTRACT, &ss, &gs);
    if (sa != ss)
        return sa > ss ? ENGINE_MOON_ADD_OTHERS : ENGINE_MOON_SUBTRACT;
    if (ga != gs)
        return ga < gs ? ENGINE_MOON_ADD_OTHERS : ENGINE_MOON_SUBTRACT;
    return ENGINE_MOON_SUBTRACT;
}

/* Adds the hand's points (g->points) to the totals. */
static void add_points(struct engine_game *g)
{
    for (int s = 0; s < g->n; s++)
        g->totals[s] += g->points[s];
    apply_reset(g->rules, g->totals, g->n);
}

/* The hand is scored: the game ends, or the next hand is to deal. */
static void end_hand(struct engine_game *g, const struct engine_sink *sink)
{
    EMIT(sink, g, .kind = ENGINE_EV_HAND_SCORED);
    int nw = 0;
    if (game_ends(g, g->totals, g->hand_no, g->winners, &nw)) {
        g->nwinners = (uint8_t)nw;
        g->phase = ENGINE_PHASE_GAME_OVER;
        EMIT(sink, g, .kind = ENGINE_EV_GAME_OVER);
    } else {
        g->phase = ENGINE_PHASE_DEAL;
    }
}

static void finish_hand(struct engine_game *g, const struct hand_tally *t,
                        int mode, const struct engine_sink *sink)
{
    hand_points(g, t, mode, g->points);
    add_points(g);
    g->moon_applied = (uint8_t)(t->shooter >= 0 ? mode : ENGINE_MOON_OFF);
    if (t->shooter >= 0)
        EMIT(sink, g, .kind = ENGINE_EV_MOON,
             .seat = shooter_seat(g, t->shooter), .value = mode,
             .card = t->sun);
    end_hand(g, sink);
}

/*
 * The common hand, scored without the tally: one deck, every seat for
 * itself, no matched pairs, nobody shot. Each seat's points are then the
 * value of its cards (the bonus card's class holds its points), as
 * hand_points gives them; `counted`: g->hand_points hold them already.
 * Returns false, having changed nothing, where that does not apply (a
 * moon or a sun goes through the tally).
 */
static bool score_plain(struct engine_game *g, bool counted,
                        const struct engine_sink *sink)
{
    const struct engine_rules *r = g->rules;
    const int n = g->n;
    if (r->decks != 1 || r->match_pairs || r->partners != ENGINE_PARTNERS_OFF ||
        (r->special & ENGINE_SPECIAL_DOMINO))
        return false;
    const bool moon = r->moon != ENGINE_MOON_OFF && r->moon_cards;
    const bool sun = r->sun && r->moon != ENGINE_MOON_OFF && g->trick_no > 0;
    int32_t pts[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < n; s++) {
        uint64_t c = g->taken[s].one;
        if ((moon && (c & r->moon_cards) == r->moon_cards) ||
            (sun && g->tricks[s] == g->trick_no))
            return false;
        pts[s] = counted ? g->hand_points[s] : set_points(r, c);
    }
    memcpy(g->points, pts, sizeof(int32_t) * (size_t)n);
    add_points(g);
    g->moon_applied = ENGINE_MOON_OFF;
    end_hand(g, sink);
    return true;
}

static void score_hand(struct engine_game *g, bool counted,
                       const struct engine_sink *sink)
{
    const struct engine_rules *r = g->rules;
    if (score_plain(g, counted, sink))
        return;
    if (r->special & ENGINE_SPECIAL_DOMINO) {
        /* the last player in takes the cards left in hand */
        for (int s = 0; s < g->n; s++) {
            cards_merge(&g->taken[s], &g->hand[s]);
            g->hand[s].one = g->hand[s].two = 0;
        }
    }
    struct hand_tally t;
    tally(g, &t);
    int mode = r->moon;
    if (t.shooter >= 0) {
        if (mode == ENGINE_MOON_CHOICE) {
            g->phase = ENGINE_PHASE_MOON;
            g->moon_unit = (uint8_t)t.shooter;
            g->moon_sun = t.sun;
            g->turn = (uint8_t)shooter_seat(g, t.shooter);
            EMIT(sink, g, .kind = ENGINE_EV_MOON_PENDING, .seat = g->turn,
                 .value = t.sun);
            return;
        }
        if (mode == ENGINE_MOON_ADD_UNLESS_LOSES)
            mode = others_would_win(g, &t) ? ENGINE_MOON_SUBTRACT
                                           : ENGINE_MOON_ADD_OTHERS;
    }
    finish_hand(g, &t, mode, sink);
}

void engine_score_hand(struct engine_game *g, const struct engine_sink *sink)
{
    score_hand(g, false, sink);
}

void engine_score_hand_counted(struct engine_game *g,
                               const struct engine_sink *sink)
{
    score_hand(g, true, sink);
}

void engine_score_moon_choice(struct engine_game *g, int mode,
                              const struct engine_sink *sink)
{
    struct hand_tally t;
    tally(g, &t);
    finish_hand(g, &t, mode, sink);
}

bool engine_moon_outcome(const struct engine_game *g, int mode, int32_t *totals,
                         uint8_t *winners, int *nwinners)
{
    *nwinners = 0;
    if (g->phase != ENGINE_PHASE_MOON)
        return false;
    struct hand_tally t;
    tally(g, &t);
    mode_totals(g, &t, mode, totals);
    return game_ends(g, totals, g->hand_no, winners, nwinners);
}

int engine_moon_default(const struct engine_game *g)
{
    if (g->phase != ENGINE_PHASE_MOON)
        return ENGINE_MOON_SUBTRACT;
    struct hand_tally t;
    tally(g, &t);
    return best_mode(g, &t);
}
