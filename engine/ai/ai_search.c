/*
 * The searching levels, normal and hard: perfect-information Monte Carlo
 * with flat playouts. For each sampled deal of the unseen cards (ai_sample)
 * every legal card is played, the hand is played out by a cheap randomized
 * heuristic for every seat, and the card with the best mean outcome for the
 * seat's side wins. The budget is the number of playouts per decision.
 * The pass is searched the same way over candidate passes, with
 * AI_PASS_FACTOR times the budget; kitty-exchange discards are easy's (see
 * docs/engine.md).
 */
#include "engine/ai/ai_internal.h"
#include "engine/ai/ai_sample.h"
#include "engine/internal.h"
#include "engine/score.h"

#include <math.h>
#include <string.h>

/* One in ten playout plays is uniformly random: 16 random bits under
 * PLAYOUT_NOISE (6,554 of 65,536, 10.0006 %). */
#define PLAYOUT_NOISE 6554

/* Every seat of g, as bits. */
static unsigned all_seats(const struct engine_game *g)
{
    return (1u << g->n) - 1;
}

/* The cards held by the seats in `seats` (kinds, either copy). */
static uint64_t cards_of(const struct engine_game *g, unsigned seats)
{
    uint64_t m = 0;
    for (int s = 0; s < g->n; s++)
        if (seats >> s & 1)
            m |= g->hand[s].one | g->hand[s].two;
    return m;
}

/*
 * What the playout policy sees of a position, every hand in view: the
 * seat to play and the trick so far. The playouts keep it as they play
 * (playout_plain) or read it off the game (spot_of).
 */
struct spot {
    const struct engine_rules *r;
    const uint64_t *hand; /* each seat's cards (kinds, either copy) */
    uint64_t held;        /* every seat's cards with one deck, else 0 */
    uint64_t led;         /* the suit led (following only) */
    uint64_t on_trick;    /* the cards on the trick */
    unsigned all;         /* every seat, as bits */
    unsigned played;      /* the seats that have played to the trick, and
                           * the one to play */
    int me;               /* the seat to play */
    int len;              /* cards on the trick */
    bool last;            /* the trick's last card */
    int win_card, win_seat;
};

/* The cards held by the seats in `seats`. */
static uint64_t spot_cards(const struct spot *p, unsigned seats)
{
    uint64_t m = 0;
    for (; seats; seats &= seats - 1)
        m |= p->hand[__builtin_ctz(seats)];
    return m;
}

/*
 * The moon in a playout. Playouts where nobody ever tries to shoot let the
 * search hand an opponent every point while it collects them, and an
 * opponent that does shoot then wins the hand. So once one side (a seat,
 * or a team that scores as one) has taken every moon card taken so far,
 * and at least AI_MOON_ALERT of them, that side plays to take every trick
 * (shoot_card) and the others to take one moon card from it (stop_card),
 * as people do. The side is ai_moon_side's (ai_sample.h); the samples
 * give it high cards too.
 */
static unsigned moon_side(const struct engine_game *g)
{
    return ai_moon_side(g->rules, g->n, g->taken);
}

/* The cards of `mine` that no card of `theirs` beats in its suit. */
static uint64_t masters(uint64_t mine, uint64_t theirs)
{
    uint64_t out = 0;
    for (int suit = 0; suit < 4; suit++) {
        uint64_t m = mine & ENGINE_SUIT_MASK(suit);
        if (!m)
            continue;
        uint64_t t = theirs & ENGINE_SUIT_MASK(suit);
        int top = t ? bits_high(t) : -1;
        out |= m & ~(ENGINE_BIT(top + 1) - 1);
    }
    return out;
}

/* A card of the shooting side: take every trick it can. Leading, a card
 * nobody else can beat (a moon card first); following, the highest card
 * if it wins the trick for now; else the lowest card without points.
 * -1: the usual policy. */
static int shoot_card(const struct spot *p, unsigned side, uint64_t legal)
{
    const struct engine_rules *r = p->r;
    uint64_t theirs = spot_cards(p, p->all & ~side);
    if (p->len == 0) {
        uint64_t sure = masters(legal, theirs);
        if (sure & r->moon_cards)
            return bits_low(sure & r->moon_cards);
        return sure ? bits_low(sure) : -1;
    }
    if (side >> p->win_seat & 1)
        return -1; /* ours already */
    uint64_t follow = legal & p->led;
    if (follow && bits_high(follow) > p->win_card)
        return bits_high(follow);
    uint64_t clean = legal & ~r->penalty;
    return clean ? bits_low(clean) : -1;
}

/* A card of a side that is not shooting: take a moon card from the side
 * that is. Leading, a moon card it cannot beat; when it wins the trick,
 * beat it with the lowest card that stays on top if the trick holds a
 * moon card, and never throw it points. -1: the usual policy. */
static int stop_card(const struct spot *p, unsigned side, uint64_t legal)
{
    const struct engine_rules *r = p->r;
    if (p->len == 0) {
        uint64_t sure = masters(legal & r->moon_cards, spot_cards(p, side));
        return sure ? bits_low(sure) : -1;
    }
    if (!(side >> p->win_seat & 1))
        return -1;
    uint64_t follow = legal & p->led;
    if (follow) {
        if (!(p->on_trick & r->moon_cards))
            return -1;
        uint64_t later = spot_cards(p, side & p->all & ~p->played) & p->led;
        int top = p->win_card;
        if (later && bits_high(later) > top)
            top = bits_high(later);
        uint64_t over = follow & ~(ENGINE_BIT(top + 1) - 1);
        return over ? bits_low(over) : -1;
    }
    uint64_t clean = legal & ~r->penalty;
    return clean ? bits_low(clean) : -1;
}

/* The playout policy, with every hand in view: lead the lowest card of
 * the suit where the fewest cards of the others lie under it (never a
 * suit they are all void in, nor a spade over an unseen Q♠); follow under
 * the winning card with the highest that ducks, else the lowest (last:
 * the highest that is not worth points); void, shed the Q♠, then a high
 * spade while another seat holds the Q♠, then the card worth most, then
 * the highest rank of a suit. Before all that, when a side may shoot
 * (`side`, moon_side's), its seats play shoot_card and the others
 * stop_card, where those have a card to play. A card takes one 64-bit
 * draw: 16 bits for the noise, 16 for its random card, and a byte for
 * each suit's tie at a lead (0, 1 or 2 from the top of byte x 3: 86, 85
 * and 85 of 256).
 */
static inline __attribute__((always_inline)) int
policy_card(const struct spot *p, uint64_t legal, unsigned side,
            struct engine_prng *rng)
{
    uint64_t x = engine_prng_next(rng);
    if ((x & 0xffff) < PLAYOUT_NOISE)
        return engine_pick_16(rng, (uint32_t)(x >> 16) & 0xffff, legal);
    const struct engine_rules *r = p->r;
    int me = p->me;
    if (side) {
        int c = side >> me & 1 ? shoot_card(p, side, legal)
                               : stop_card(p, side, legal);
        if (c >= 0)
            return c;
    }
    if (p->len && (legal & p->led) == legal) {
        uint64_t under = legal & (ENGINE_BIT(p->win_card) - 1);
        if (under)
            return bits_high(under);
        if (!p->last)
            return bits_low(legal);
        uint64_t safe = legal & ~r->penalty;
        return bits_high(safe ? safe : legal);
    }
    /* one deck: nobody else holds a card of mine */
    uint64_t others =
        p->held ? p->held & ~p->hand[me] : spot_cards(p, p->all & ~(1u << me));
    bool qs_out = (r->penalty & ENGINE_BIT(ENGINE_QS)) &&
                  (others & ENGINE_BIT(ENGINE_QS));
    if (p->len == 0) {
        int best = -1, best_score = 0;
        uint32_t ties = (uint32_t)(x >> 32);
        for (int suit = 0; suit < 4; suit++, ties >>= 8) {
            uint64_t mine = legal & ENGINE_SUIT_MASK(suit);
            if (!mine)
                continue;
            int c = bits_low(mine);
            uint64_t theirs = others & ENGINE_SUIT_MASK(suit);
            int score = bits_count(theirs & (ENGINE_BIT(c) - 1)) * 4;
            if (!theirs)
                score += 100;
            if (suit == ENGINE_SPADES && qs_out && c > ENGINE_QS)
                score += 50;
            score += r->points[c] > 0 ? r->points[c] : 0;
            score += (int)((ties & 0xff) * 3 >> 8);
            if (best < 0 || score < best_score) {
                best = c;
                best_score = score;
            }
        }
        return best >= 0 ? best : bits_low(legal);
    }
    if (legal & ENGINE_BIT(ENGINE_QS) & r->penalty)
        return ENGINE_QS;
    if (qs_out) {
        uint64_t high = legal & (ENGINE_BIT(ENGINE_AS) | ENGINE_BIT(ENGINE_KS));
        if (high)
            return bits_high(high);
    }
    uint64_t pen = legal & r->penalty;
    if (pen) {
        int best = bits_high(pen);
        for (uint64_t m = pen; m; m &= m - 1)
            if (r->points[bits_low(m)] > r->points[best])
                best = bits_low(m);
        return best;
    }
    uint64_t plain = legal;
    for (uint64_t m = legal; m; m &= m - 1)
        if (r->points[bits_low(m)] < 0)
            plain &= ~ENGINE_BIT(bits_low(m));
    if (!plain)
        plain = legal;
    int best = bits_low(plain);
    for (uint64_t m = plain; m; m &= m - 1)
        if (engine_card_rank(bits_low(m)) >= engine_card_rank(best))
            best = bits_low(m);
    return best;
}

/* The spot of the seat to play in g, its hands in `hand`; `held` is every
 * card in the seats' hands when the rules have one deck, else 0. */
static void spot_of(const struct engine_game *g, uint64_t held, uint64_t *hand,
                    struct spot *p)
{
    unsigned played = 1u << g->turn;
    for (int i = 0; i < g->trick_len; i++)
        played |= 1u << g->trick_seat[i];
    for (int s = 0; s < g->n; s++)
        hand[s] = g->hand[s].one | g->hand[s].two;
    *p = (struct spot){.r = g->rules,
                       .hand = hand,
                       .held = held,
                       .led = g->led_mask,
                       .on_trick = g->trick_cards,
                       .all = all_seats(g),
                       .played = played,
                       .me = g->turn,
                       .len = g->trick_len,
                       .last = g->trick_len + 1 == g->trick_size,
                       .win_card = g->win_card,
                       .win_seat = g->win_seat};
}

/*
 * The playout of a hand under plain trick rules (one deck; no joker,
 * cancellation, Domino, two-handed stock or kitty), in play: the state
 * that changes every card lives in locals, as in engine_playout's loop,
 * and the game is left as engine_play_step would leave it card by card
 * (test_playout.c's test_search_playout_matches_its_steps compares the
 * two).
 */
static void playout_plain(struct engine_game *g, bool moon,
                          struct engine_prng *rngp)
{
    const struct engine_rules *r = g->rules;
    const int n = g->n, size = r->hand_size;
    const bool narrow =
        r->special & (ENGINE_SPECIAL_FIRST_TRICK | ENGINE_SPECIAL_DUMP_QUEEN);
    struct engine_prng rng = *rngp;
    uint64_t hand[ENGINE_MAX_PLAYERS];
    struct spot p = {.r = r, .hand = hand, .all = all_seats(g)};
    p.held = 0;
    for (int s = 0; s < n; s++) {
        hand[s] = g->hand[s].one;
        p.held |= hand[s];
    }
    int turn = g->turn, len = g->trick_len, np = g->nplays;
    int trick_no = g->trick_no;
    bool broken = g->hearts_broken;
    p.played = 0;
    for (int i = 0; i < len; i++)
        p.played |= 1u << g->trick_seat[i];
    p.led = g->led_mask;
    p.on_trick = g->trick_cards;
    p.win_card = g->win_card;
    p.win_seat = g->win_seat;
    /* the side that may shoot changes only when a trick with a moon card
     * is taken */
    struct ai_moon_tally tally;
    ai_moon_tally(r, n, g->taken, &tally);
    unsigned side = moon ? ai_moon_tally_side(r, n, &tally) : 0;
    int last = turn;
    while (trick_no < size) {
        const bool first = trick_no == 0;
        for (; len < n; len++) {
            uint64_t h = hand[turn], legal;
            if (len == 0) {
                legal = engine_lead_from(
                    r, h, np == 0 ? g->lead_card : ENGINE_NO_CARD, first,
                    broken);
            } else {
                uint64_t follow = h & p.led;
                legal = follow ? follow : h;
                if (narrow)
                    legal = engine_follow_from(r, legal, follow == 0, first,
                                               p.led, p.on_trick);
            }
            p.me = turn;
            p.len = len;
            p.last = len + 1 == n;
            p.played |= 1u << turn;
            int c = policy_card(&p, legal, side, &rng);
            uint64_t b = ENGINE_BIT(c);
            hand[turn] &= ~b;
            p.held &= ~b;
            g->plays[np] = (uint8_t)c;
            g->play_seat[np] = (uint8_t)turn;
            np++;
            g->trick[len] = (uint8_t)c;
            g->trick_seat[len] = (uint8_t)turn;
            if (len == 0) {
                p.led = ENGINE_SUIT_MASK(engine_card_suit(c));
                p.on_trick = b;
                p.win_card = c;
                p.win_seat = turn;
            } else {
                if (!(b & p.led))
                    g->voids[turn] |=
                        (uint8_t)(1u << engine_card_suit(g->trick[0]));
                else if (c > p.win_card) {
                    p.win_card = c;
                    p.win_seat = turn;
                }
                p.on_trick |= b;
            }
            last = turn;
            turn = turn + 1 == n ? 0 : turn + 1;
        }
        /* the trick's end, as plain rules take it */
        int w = p.win_seat;
        g->taken[w].one |= p.on_trick;
        g->tricks[w]++;
        /* hearts break, for the next lead, with a finished trick */
        broken |= (p.on_trick & r->breaks) != 0;
        if (moon && (p.on_trick & r->moon_cards)) {
            ai_moon_take(r, &tally, w, p.on_trick);
            side = ai_moon_tally_side(r, n, &tally);
        }
        turn = w;
        len = 0;
        p.played = 0;
        trick_no++;
    }
    /* the points each seat took: plain rules add nothing to the tricks */
    for (int s = 0; s < n; s++) {
        g->hand[s].one = hand[s];
        g->hand_points[s] = set_points(r, g->taken[s].one);
    }
    /* as the last card's step leaves it: the winner leads, the turn stays
     * with the last seat to play */
    g->leader = (uint8_t)turn;
    g->turn = (uint8_t)last;
    g->trick_len = 0;
    g->trick_cards = 0;
    g->nplays = (uint16_t)np;
    g->trick_no = (uint8_t)size;
    g->win_card = (uint8_t)p.win_card;
    g->win_seat = (uint8_t)p.win_seat;
    g->led_mask = p.led;
    g->hearts_broken = broken;
    *rngp = rng;
    engine_score_hand_counted(g, NULL);
}

/* Plays the hand in g to its end with the policy card by card, under any
 * rules (discards at random, the moon choice by default). */
static void playout_steps(struct engine_game *g, bool moon,
                          struct engine_prng *rng)
{
    /* the side that may shoot changes only when a trick is taken */
    unsigned side = 0;
    int trick = -1;
    /* the cards in hand: with one deck, those at the trick's lead less
     * those played to it since (hands change only between tricks) */
    bool one_deck = g->rules->decks == 1;
    uint64_t held = 0;
    uint64_t hand[ENGINE_MAX_PLAYERS];
    for (;;) {
        switch (g->phase) {
        case ENGINE_PHASE_PLAY: {
            if (moon && g->trick_no != trick) {
                side = moon_side(g);
                trick = g->trick_no;
            }
            if (one_deck && (g->trick_len == 0 || !held))
                held = cards_of(g, all_seats(g));
            struct spot p;
            spot_of(g, held, hand, &p);
            int c = policy_card(&p, engine_legal_now(g), side, rng);
            engine_play_step(g, g->turn, c, NULL);
            held &= ~ENGINE_BIT(c);
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

/* Plays the hand in g to its end with the policy: playout_plain where it
 * applies, then card by card (the moon choice). */
static void playout(struct engine_game *g, bool moon, struct engine_prng *rng)
{
    const struct engine_rules *r = g->rules;
    if (g->phase == ENGINE_PHASE_PLAY && r->decks == 1 &&
        !(r->special & (ENGINE_SPECIAL_TRICK_END | ENGINE_SPECIAL_KITTY)) &&
        !g->rest_owner_pending)
        playout_plain(g, moon, rng);
    playout_steps(g, moon, rng);
}

/* The search's playout of g: the policy's, or with AI_PLAYOUT_RANDOM the
 * engine's uniformly random one (engine_playout). */
static void search_playout(struct engine_game *g, int flags,
                           struct engine_prng *rng)
{
    if (flags & AI_PLAYOUT_RANDOM)
        engine_playout(g, rng);
    else
        playout(g, !(flags & AI_MOON_BLIND), rng);
}

double ai_hand_margin(const struct engine_game *g, int seat)
{
    /* sums of whole points, exact in a double: the same margin as the
     * means taken seat by seat */
    const int n = g->n;
    int32_t all = 0;
    for (int s = 0; s < n; s++)
        all += g->points[s];
    if (g->rules->partners == ENGINE_PARTNERS_OFF) {
        int32_t mine = g->points[seat];
        return (n > 1 ? (double)(all - mine) / (n - 1) : 0) - mine;
    }
    int32_t mine = g->points[seat % 2] + g->points[seat % 2 + 2];
    return (double)(all - mine) / 2 - (double)mine / 2;
}

/*
 * The game's objective: the chance that the seat's side wins the game, from
 * the totals after a hand. Exact once the game is over (a shared win
 * counts, as the rules say). Otherwise each side's total moves on by about
 * mean points a hand, with a variance of `var` a hand, for the hands left
 * until the highest total reaches the target (or the rules' last hand):
 * the side wins if it ends lowest, taken pair by pair as normal
 * differences. The search uses it near the game's end (near_end), where
 * it weighs whose total the points land on.
 */
struct objective {
    double mean; /* points a seat takes in a hand, on average */
    double var;  /* their variance, a seat and a hand */
};

static void objective_init(const struct engine_rules *r, struct objective *o)
{
    double sum = 0, sq = 0;
    for (uint64_t m = r->in_play; m; m &= m - 1) {
        int p = r->points[bits_low(m)];
        sum += p;
        sq += (double)p * p;
    }
    int n = r->players > 0 ? r->players : 4;
    o->mean = sum * r->decks / n;
    /* each card to a seat at random, tricks bundling them: the spread
     * measured in standard games is about 1.3 times that of lone cards */
    o->var = 1.7 * sq * r->decks * (n - 1) / ((double)n * n);
    if (o->mean < 1)
        o->mean = 1;
    if (o->var < 1)
        o->var = 1;
}

/* The hands left, at mean points a hand, until the highest of `totals`
 * reaches the target, or until the rules' last hand (`played` of them
 * played). Under partners=team_score each seat's total is its team's,
 * which takes two seats' points a hand. */
static double hands_left(const struct engine_rules *r,
                         const struct objective *o, const int32_t *totals,
                         int n, int played)
{
    int32_t top = totals[0];
    for (int s = 1; s < n; s++)
        if (totals[s] > top)
            top = totals[s];
    double mean = r->partners == ENGINE_PARTNERS_TEAM ? 2 * o->mean : o->mean;
    double left = (r->target - top) / mean;
    if (r->hands > 0 && r->hands - played < left)
        left = r->hands - played;
    return left;
}

/* Whether seat's side is among `winners`. */
static bool among(const struct engine_rules *r, int seat,
                  const uint8_t *winners, int nwinners)
{
    bool pairs = r->partners != ENGINE_PARTNERS_OFF;
    for (int i = 0; i < nwinners; i++)
        if (pairs ? winners[i] % 2 == seat % 2 : winners[i] == seat)
            return true;
    return false;
}

/* Each side's total (a seat's, or a team's under partners) into score;
 * returns the number of sides. Side u is seat u, or seats u and u + 2. */
static int side_totals(const struct engine_rules *r, const int32_t *totals,
                       int n, double *score)
{
    int units = r->partners != ENGINE_PARTNERS_OFF ? 2 : n;
    for (int u = 0; u < units; u++)
        score[u] =
            totals[u] +
            (r->partners == ENGINE_PARTNERS_INDIVIDUAL ? totals[u + 2] : 0);
    return units;
}

/* Whether seat's side has the lowest total (ties included). */
static bool leads(const struct engine_rules *r, const int32_t *totals, int n,
                  int seat)
{
    double score[ENGINE_MAX_PLAYERS];
    int units = side_totals(r, totals, n, score);
    int me = r->partners != ENGINE_PARTNERS_OFF ? seat % 2 : seat;
    for (int u = 0; u < units; u++)
        if (score[u] < score[me])
            return false;
    return true;
}

/* The estimate, for a game that goes on from `totals` after `played`
 * hands, where seat's side is expected to gain `drift` points a hand on
 * each other side (0: the sides are alike). */
static double chance_drift(const struct engine_rules *r,
                           const struct objective *o, const int32_t *totals,
                           int n, int played, int seat, double drift)
{
    bool pairs = r->partners != ENGINE_PARTNERS_OFF;
    int me = pairs ? seat % 2 : seat;
    double score[ENGINE_MAX_PLAYERS];
    int units = side_totals(r, totals, n, score);
    double left = hands_left(r, o, totals, n, played);
    if (left < 0.5)
        left = 0.5;
    /* a side's total: one seat's points, or two under partners */
    double var = 2 * (pairs ? 2 : 1) * o->var * left;
    double p = 1, k = 1 / sqrt(2 * var);
    for (int u = 0; u < units; u++)
        if (u != me)
            p *= 0.5 * erfc((score[me] - score[u] - drift * left) * k);
    return p;
}

static double chance_from(const struct engine_rules *r,
                          const struct objective *o, const int32_t *totals,
                          int n, int played, int seat)
{
    return chance_drift(r, o, totals, n, played, seat, 0);
}

static double win_chance(const struct engine_game *g, const struct objective *o,
                         int seat)
{
    if (g->phase == ENGINE_PHASE_GAME_OVER)
        return among(g->rules, seat, g->winners, g->nwinners) ? 1 : 0;
    return chance_from(g->rules, o, g->totals, g->n, g->hand_no, seat);
}

static bool near_end(const struct engine_view *v, const struct objective *o);

/* The normal quantile: z with Phi(z) = p, 0 < p < 1 (by halving; the
 * moon choice needs it once). */
static double normal_quantile(double p)
{
    double lo = -10, hi = 10;
    for (int i = 0; i < 80; i++) {
        double mid = (lo + hi) / 2;
        if (0.5 * erfc(-mid / sqrt(2)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/*
 * Under partners, the points a hand that seat's side is expected to gain
 * on the other's total, from the table's ratings (ai_table); 0 without
 * partners, without ratings, or for sides rated alike. A seat rated 0
 * (unknown: a person) counts as the mean of the rated ones.
 *
 * A side's rating is the sum of its two seats': `hard` and `easy` against
 * two `easy` won 87 % of their games under partners (docs/engine.md), a
 * side 330 above the other, where the sum says 260 and the mean 130. The
 * ratings give the stronger side's chance to win a whole game, and the
 * drift is what gives the same chance in the objective's own model: a
 * difference of totals growing by drift a hand, with the pair's variance
 * a hand, over the hands of a game from nothing.
 */
static double side_drift(const struct engine_rules *r,
                         const struct objective *o, const struct ai_table *t,
                         int n, int seat)
{
    if (!t || r->partners == ENGINE_PARTNERS_OFF || n != 4)
        return 0;
    double rating[4], sum = 0;
    int known = 0;
    for (int s = 0; s < 4; s++) {
        int x = t->rating[s];
        rating[s] = x >= AI_RATING_MIN && x <= AI_RATING_MAX ? x : 0;
        if (rating[s] > 0) {
            sum += rating[s];
            known++;
        }
    }
    if (known == 0)
        return 0;
    for (int s = 0; s < 4; s++)
        if (rating[s] == 0)
            rating[s] = sum / known;
    int me = seat % 2;
    double d = rating[me] + rating[me + 2] - rating[1 - me] - rating[3 - me];
    if (fabs(d) < 1e-9)
        return 0;
    double won = 1 / (1 + pow(10, -d / 400));
    const int32_t none[ENGINE_MAX_PLAYERS] = {0};
    double hands = hands_left(r, o, none, n, 0);
    if (hands < 1)
        hands = 1;
    return normal_quantile(won) * sqrt(2 * 2 * o->var / hands);
}

int ai_moon_choice(const struct engine_view *v, bool near_only,
                   const struct ai_table *t)
{
    if (v->moon_best < 0)
        return -1;
    struct objective o;
    objective_init(v->rules, &o);
    if (near_only && !near_end(v, &o))
        return v->moon_best;
    double drift = side_drift(v->rules, &o, t, v->n, v->seat);
    double chance[2];
    for (int mode = 0; mode < 2; mode++) {
        const struct engine_moon_option *x = &v->moon_option[mode];
        chance[mode] = x->over
                           ? among(v->rules, v->seat, x->winners, x->nwinners)
                           : chance_drift(v->rules, &o, x->totals, v->n,
                                          v->hand_no, v->seat, drift);
    }
    /* alike (both won, both lost, or too close to tell): the engine's
     * choice, by standing and gap */
    if (fabs(chance[ENGINE_MOON_SUBTRACT] - chance[ENGINE_MOON_ADD_OTHERS]) <
        1e-9)
        return v->moon_best;
    return chance[ENGINE_MOON_ADD_OTHERS] > chance[ENGINE_MOON_SUBTRACT]
               ? ENGINE_MOON_ADD_OTHERS
               : ENGINE_MOON_SUBTRACT;
}

double ai_win_chance(const struct engine_game *g, int seat)
{
    struct objective o;
    objective_init(g->rules, &o);
    return win_chance(g, &o, seat);
}

/*
 * Whether the game's end is near enough, at the position decided, for
 * the objective to differ from the points: at most NEAR_END hands left,
 * this one included, at the rate of mean points a hand. Before that the
 * two choose alike, and the points are the sharper measure: the chance
 * of winning, near 0 or 1 for a player far ahead or behind, is flat
 * there, and its playout noise drowned the points (hard x1 against easy
 * x3 took 4.21 points a hand instead of 3.80, measured with the
 * objective throughout).
 */
#define NEAR_END 3.0

static bool near_end(const struct engine_view *v, const struct objective *o)
{
    /* this hand is not played yet */
    return hands_left(v->rules, o, v->totals, v->n, v->hand_no - 1) <= NEAR_END;
}

/*
 * Whether the search values the game's objective at this view: near the
 * end, while the seat's side leads (AI_GAME_ALWAYS: whoever leads). A
 * trailer valuing the chance gambles: against three hard/points, valuing
 * it whoever leads won 27.3 % of the games at a margin 0.23 points a hand
 * below theirs, only while leading 26.4 % at 0.07 below; against easy
 * under black-maria, where nearly every hand is near the end, the gamble
 * cost 1.1 points a hand (docs/engine.md, "Playing for the game").
 */
static bool plays_for_game(const struct engine_view *v,
                           const struct objective *o, int flags)
{
    if ((flags & AI_EVAL_POINTS) || !near_end(v, o))
        return false;
    return (flags & AI_GAME_ALWAYS) ||
           leads(v->rules, v->totals, v->n, v->seat);
}

/*
 * What a played-out hand is worth to seat: near the game's end, the
 * chance to win it plus POINTS_WEIGHT times the hand's margin (a point
 * of margin is worth a twentieth of a game); else, or with
 * AI_EVAL_POINTS (the levels before the objective), the points. Where
 * the chance is flat (a game won or lost whatever the hand does) the
 * points decide; elsewhere the weight keeps a leader from giving points
 * away for a sliver of chance: at 0.002 (a point worth a 500th of a
 * game) hard against easy x3 won as many more games than hard/points but
 * gave up 0.056 points a hand of margin on standard and 0.41 under
 * black-maria; at 0.05 its margin is hard/points' (docs/engine.md, "The
 * points' weight near the end").
 */
#define POINTS_WEIGHT 0.05

static double value(const struct engine_game *g, const struct objective *o,
                    int seat, bool game)
{
    double pts = ai_hand_margin(g, seat);
    if (!game)
        return pts;
    return win_chance(g, o, seat) + POINTS_WEIGHT * pts;
}

static int search_play(const struct engine_view *v, struct engine_prng *rng,
                       int budget, int flags)
{
    uint8_t cards[64];
    int nc = 0;
    for (uint64_t m = v->legal; m; m &= m - 1)
        cards[nc++] = (uint8_t)bits_low(m);
    if (nc == 1)
        return cards[0];
    struct ai_sampler s;
    if (ai_sampler_init_moon(&s, v, !(flags & AI_MOON_BLIND)) < 0)
        return cards[0];
    int deals = budget / nc > 0 ? budget / nc : 1;
    struct objective o;
    objective_init(v->rules, &o);
    bool game = plays_for_game(v, &o, flags);
    double sum[64] = {0};
    struct engine_game world, g;
    for (int d = 0; d < deals; d++) {
        ai_sample_world(&s, rng, &world);
        for (int i = 0; i < nc; i++) {
            g = world;
            if (engine_play(&g, cards[i], NULL, NULL) != ENGINE_OK)
                return cards[0]; /* a bug in the world; stay legal */
            search_playout(&g, flags, rng);
            sum[i] += value(&g, &o, v->seat, game);
        }
    }
    int best = 0;
    for (int i = 1; i < nc; i++)
        if (sum[i] > sum[best])
            best = i;
    return cards[best];
}

/* Candidate passes: every k-subset of the `pool` cards easy most wants
 * gone, in easy's order. */
#define PASS_MIN_WORLDS 16

static int pass_candidates(const uint8_t *pool, int npool, int k,
                           uint8_t out[][ENGINE_MAX_PASS])
{
    int n = 0;
    for (unsigned m = 0; m < (1u << npool); m++) {
        if (__builtin_popcount(m) != k)
            continue;
        int j = 0;
        for (int i = 0; i < npool; i++)
            if (m >> i & 1)
                out[n][j++] = pool[i];
        n++;
    }
    return n;
}

/*
 * The pass by search: for each sampled deal, the other seats pass as easy
 * would with the hands sampled for them; then each candidate pass is made
 * and the hand played out with the same playout randomness (common random
 * numbers), and the candidate with the best mean outcome is chosen. Falls
 * back to easy's pass where the search has too few deals to tell passes
 * apart, or under rules it does not model (blind passing, two decks).
 */
static int search_pass(const struct engine_view *v, struct engine_prng *rng,
                       int budget, int flags, struct engine_action *a)
{
    int k = v->pass_count;
    uint8_t cand[AI_PASS_CANDIDATES][ENGINE_MAX_PASS];
    int nc = ai_search_pass_candidates(v, cand);
    if (nc < 0)
        return ai_easy_decide(v, rng, 0, 0, a);
    int worlds = budget / nc;
    if (worlds < PASS_MIN_WORLDS)
        return ai_easy_decide(v, rng, 0, 0, a);
    struct ai_sampler s;
    if (ai_sampler_init_moon(&s, v, !(flags & AI_MOON_BLIND)) < 0)
        return ai_easy_decide(v, rng, 0, 0, a);
    struct objective obj;
    objective_init(v->rules, &obj);
    bool game = plays_for_game(v, &obj, flags);
    double sum[AI_PASS_CANDIDATES] = {0};
    int counted[AI_PASS_CANDIDATES] = {0};
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
            struct engine_action mine = {
                .kind = ENGINE_ACT_PASS, .seat = v->seat, .ncards = (uint8_t)k};
            memcpy(mine.cards, cand[i], (size_t)k);
            if (engine_act(&g, &mine, NULL, NULL) != ENGINE_OK)
                continue;
            search_playout(&g, flags, rng);
            sum[i] += value(&g, &obj, v->seat, game);
            counted[i]++;
        }
    }
    int best = -1;
    for (int i = 0; i < nc; i++)
        if (counted[i] &&
            (best < 0 || sum[i] / counted[i] > sum[best] / counted[best]))
            best = i;
    if (best < 0)
        return ai_easy_decide(v, rng, 0, 0, a);
    a->kind = ENGINE_ACT_PASS;
    a->ncards = (uint8_t)k;
    memcpy(a->cards, cand[best], (size_t)k);
    return 0;
}

int ai_search_decide(const struct engine_view *v, struct engine_prng *rng,
                     int budget, int flags, struct engine_action *a)
{
    if (v->phase == ENGINE_PHASE_PASS)
        return search_pass(v, rng, budget * AI_PASS_FACTOR, flags, a);
    if (v->phase != ENGINE_PHASE_PLAY)
        return ai_easy_decide(v, rng, 0, 0, a);
    if (!v->legal)
        return -1;
    a->kind = ENGINE_ACT_PLAY;
    a->ncards = 1;
    a->cards[0] = (uint8_t)search_play(v, rng, budget, flags);
    return 0;
}

bool ai_search_others_pass(struct engine_game *world, int seat,
                           struct engine_prng *rng)
{
    for (int o = 0; o < world->n; o++) {
        if (o == seat)
            continue;
        struct engine_view ov;
        engine_view_make(world, o, &ov);
        struct engine_action oa = {.seat = (uint8_t)o};
        if (ai_easy_decide(&ov, rng, 0, 0, &oa) ||
            engine_act(world, &oa, NULL, NULL) != ENGINE_OK)
            return false;
    }
    return true;
}

void ai_search_playout(struct engine_game *g, struct engine_prng *rng)
{
    playout(g, true, rng);
}

void ai_search_playout_steps(struct engine_game *g, struct engine_prng *rng)
{
    playout_steps(g, true, rng);
}

int ai_search_pass_candidates(const struct engine_view *v,
                              uint8_t out[][ENGINE_MAX_PASS])
{
    int k = v->pass_count;
    int npool = AI_PASS_POOL;
    if (npool > engine_cards_count(&v->hand))
        npool = engine_cards_count(&v->hand);
    struct engine_action order = {0};
    if (k < 1 || k > ENGINE_MAX_PASS || k > npool || v->blind_allowed ||
        v->rules->decks != 1 || v->known.blind_mask ||
        ai_easy_pass_order(v, npool, &order) < 0)
        return -1;
    return pass_candidates(order.cards, npool, k, out);
}
