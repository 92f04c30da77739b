/*
 * The invariants of a game the engine's property tests check at every
 * step (tests/unit/engine/test_properties.c over presets and fixed mixes,
 * test_random_rules.c over random option combinations), with an
 * independent scoring oracle written from docs/spec/variants.md:
 *
 * - no card is created or lost: hands, taken cards, the trick, cards set
 *   aside, the kitty not yet taken and the undrawn stock are the pack;
 * - in PLAY the legal set is never empty and lies in the hand of the seat
 *   to play; every other card of the hand is refused (with a reason) and
 *   changes nothing;
 * - each hand's points are the values of the cards each unit took (pairs
 *   matched), or the moon's scoring when a unit took every moon card (the
 *   bonus card is never one) or every trick; without dead cards the hand
 *   adds up to the pack's total;
 * - totals add the points (with the exact-target reset) and the game ends
 *   exactly when the end rule says (or after 1,000 hands), with the lowest
 *   totals winning.
 *
 * Every check fails the running cmocka test with a message that starts
 * with the run's `what` (rules, players, seed).
 */
#include "tests/support/invariants.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Counting cards --------------------------------------------------- */

static void count_cards(int *count, const struct engine_cards *c)
{
    for (uint64_t m = c->one; m; m &= m - 1)
        count[__builtin_ctzll(m)]++;
    for (uint64_t m = c->two; m; m &= m - 1)
        count[__builtin_ctzll(m)]++;
}

/* The cards of this hand that are nowhere a player can get them: a stock
 * nobody drew, a kitty never earned, a cancelled trick at the end (once
 * the hand is over; before, the same places hold cards still to come). */
static void dead_cards(const struct engine_game *g, int *count)
{
    const struct engine_rules *r = g->rules;
    int len;
    const uint8_t *rest = engine_rest(g, &len);
    if (g->rest_owner_pending)
        for (int i = 0; i < len; i++)
            count[rest[i]]++;
    if (r->stock != ENGINE_STOCK_OFF)
        for (int i = g->rest_pos; i < len; i++)
            count[rest[i]]++;
    count_cards(count, &g->aside);
}

void prop_check_cards(const struct engine_game *g, const struct prop_run *ru,
                      const char *when)
{
    const struct engine_rules *r = g->rules;
    int count[64] = {0}, pack[64] = {0};
    for (int k = 0; k < r->deck_len; k++)
        pack[r->deck[k]]++;
    for (int s = 0; s < g->n; s++) {
        count_cards(count, &g->hand[s]);
        count_cards(count, &g->taken[s]);
    }
    for (int i = 0; i < g->trick_len; i++)
        count[g->trick[i]]++;
    /* mid-hand: the rest not yet taken or drawn and the cards set aside;
     * once the hand is over the same places hold the dead cards */
    dead_cards(g, count);
    for (int c = 0; c < 64; c++)
        if (count[c] != pack[c])
            fail_msg("%s hand %d %s: %s counted %d times, the pack has %d",
                     ru->what, ru->hand, when, engine_card_name(c), count[c],
                     pack[c]);
}

/* ---- Independent scoring ---------------------------------------------- */

static int unit_of(const struct engine_rules *r, int seat)
{
    return r->partners == ENGINE_PARTNERS_TEAM ? seat % 2 : seat;
}

static int unit_count(const struct engine_rules *r)
{
    return r->partners == ENGINE_PARTNERS_TEAM ? 2 : r->players;
}

/* The bonus card in play, or -1. */
static int bonus_card(const struct engine_rules *r)
{
    int b = r->bonus_card == ENGINE_BONUS_TD   ? ENGINE_TD
            : r->bonus_card == ENGINE_BONUS_JD ? ENGINE_JD
                                               : -1;
    return b >= 0 && (r->in_play & ENGINE_BIT(b)) ? b : -1;
}

/* Whether a card is a moon card: worth more than 0 and not the bonus
 * card (never a moon card, whatever its sign). */
static bool moon_card(const struct engine_rules *r, int c)
{
    return r->points[c] > 0 && c != bonus_card(r);
}

/* The value of a count of cards, after matching pairs if the rules say
 * so: the bonus card's points apart, the other cards' split into positive
 * and negative parts. */
static void value_of(const struct engine_rules *r, const int *count_in,
                     int *pos, int *neg, int *bonus)
{
    int count[64];
    memcpy(count, count_in, sizeof count);
    if (r->match_pairs) {
        for (int rank = 0; rank < 13; rank++) {
            int h = ENGINE_CARD(ENGINE_HEARTS, rank);
            int d = ENGINE_CARD(ENGINE_DIAMONDS, rank);
            int m = count[h] < count[d] ? count[h] : count[d];
            count[h] -= m;
            count[d] -= m;
        }
        int m = count[ENGINE_QS] < count[ENGINE_QC] ? count[ENGINE_QS]
                                                    : count[ENGINE_QC];
        count[ENGINE_QS] -= m;
        count[ENGINE_QC] -= m;
    }
    *pos = *neg = *bonus = 0;
    for (int c = 0; c < 64; c++) {
        int v = count[c] * r->points[c];
        if (c == bonus_card(r))
            *bonus = v;
        else if (v > 0)
            *pos += v;
        else
            *neg += v;
    }
}

/* Whether the game ends with these totals after `hands` hands, and who
 * wins, written from variants.md. */
static bool ends(const struct engine_rules *r, const int32_t *totals, int hands,
                 uint16_t *winners)
{
    int n = r->players;
    /* after 1,000 hands the game ends whatever the totals, a tie shared */
    bool last = hands >= 1000;
    bool reached = last || (r->hands > 0 && hands >= r->hands);
    for (int s = 0; s < n; s++)
        reached |= totals[s] >= r->target;
    if (!reached)
        return false;
    int64_t side[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < n; s++) {
        side[s] = totals[s];
        if (r->partners == ENGINE_PARTNERS_INDIVIDUAL)
            side[s] += totals[(s + 2) % 4];
    }
    int64_t best = side[0];
    for (int s = 1; s < n; s++)
        if (side[s] < best)
            best = side[s];
    uint16_t w = 0;
    for (int s = 0; s < n; s++)
        if (side[s] == best)
            w |= (uint16_t)(1u << s);
    /* a team is one side: both partners win together */
    bool tie;
    if (r->partners != ENGINE_PARTNERS_OFF)
        tie = w == 0xF;
    else
        tie = __builtin_popcount(w) > 1;
    if (tie && r->tie == ENGINE_TIE_PLAY_ON && !last)
        return false;
    *winners = w;
    return true;
}

static void apply_reset(const struct engine_rules *r, int32_t *t)
{
    for (int s = 0; s < r->players; s++)
        if (r->exact_target_reset != ENGINE_RESET_OFF && t[s] == r->target)
            t[s] =
                r->exact_target_reset == ENGINE_RESET_HALF ? r->target / 2 : 0;
}

/* The points of each seat under moon mode `mode` for shooter unit `sh`
 * (or -1: no moon). In a moon or sun hand every card but the bonus card
 * counts as the mode says, negative ones included; the bonus card counts
 * for whoever took it, for the shooter only with moon_keeps_bonus. */
static void expected_points(const struct engine_rules *r, const int *pos,
                            const int *neg, const int *bonus, int sh, bool sun,
                            int mode, int32_t *pts)
{
    int amount = r->moon_points * (sun ? 2 : 1);
    for (int s = 0; s < r->players; s++) {
        int u = unit_of(r, s);
        if (sh < 0) {
            pts[s] = pos[u] + neg[u] + bonus[u];
        } else if (u == sh) {
            pts[s] = (mode == ENGINE_MOON_SUBTRACT ? -amount : 0) +
                     (r->moon_keeps_bonus ? bonus[u] : 0);
        } else {
            pts[s] = (mode == ENGINE_MOON_ADD_OTHERS ? amount : 0) + bonus[u];
        }
    }
}

/* The seats on the side of unit u: the unit's seat, or with partners
 * (either form) the team; for add_unless_loses and the winners. */
static uint16_t side_seats(const struct engine_rules *r, int u)
{
    if (r->partners == ENGINE_PARTNERS_OFF)
        return (uint16_t)(1u << u);
    return (uint16_t)(0x5u << (u % 2));
}

/* Checks a scored hand: g is the game after scoring, before[] the totals
 * before the hand. */
void prop_check_scored(const struct engine_game *g, const int32_t *before,
                       const struct prop_run *ru)
{
    const struct engine_rules *r = g->rules;
    int n = g->n, units = unit_count(r);
    int count[ENGINE_MAX_PLAYERS][64];
    int tricks[ENGINE_MAX_PLAYERS] = {0};
    memset(count, 0, sizeof count);
    for (int s = 0; s < n; s++) {
        count_cards(count[unit_of(r, s)], &g->taken[s]);
        tricks[unit_of(r, s)] += g->tricks[s];
    }
    int pos[ENGINE_MAX_PLAYERS], neg[ENGINE_MAX_PLAYERS],
        bonus[ENGINE_MAX_PLAYERS];
    int sh = -1, sun_unit = -1;
    bool sun = false;
    int penalty_cards = 0;
    for (int k = 0; k < r->deck_len; k++)
        penalty_cards += moon_card(r, r->deck[k]);
    for (int u = 0; u < units; u++) {
        value_of(r, count[u], &pos[u], &neg[u], &bonus[u]);
        /* no moon without moon cards */
        if (r->moon == ENGINE_MOON_OFF || penalty_cards == 0)
            continue;
        int got = 0;
        for (int c = 0; c < 64; c++)
            if (moon_card(r, c))
                got += count[u][c];
        if (got == penalty_cards)
            sh = u;
        if (r->sun && g->trick_no > 0 && tricks[u] == g->trick_no)
            sun_unit = u;
    }
    /* the sun (every trick) wins over a moon by another unit: domino's
     * last player may hold every penalty card in hand */
    if (sun_unit >= 0) {
        sh = sun_unit;
        sun = true;
    }
    int32_t pts[ENGINE_MAX_PLAYERS];
    if (sh < 0) {
        if (g->moon_applied != ENGINE_MOON_OFF)
            fail_msg("%s hand %d: a moon (%d) nobody shot", ru->what, ru->hand,
                     g->moon_applied);
        expected_points(r, pos, neg, bonus, -1, false, 0, pts);
        /* the hand adds up to the pack's total, less the dead cards */
        if (!r->match_pairs) {
            int dead[64] = {0}, pack[64] = {0};
            dead_cards(g, dead);
            for (int k = 0; k < r->deck_len; k++)
                pack[r->deck[k]]++;
            int dp, dn, db, pp, pn, pb, sum = 0;
            value_of(r, dead, &dp, &dn, &db);
            value_of(r, pack, &pp, &pn, &pb);
            dn += db;
            pn += pb;
            for (int u = 0; u < units; u++)
                sum += pos[u] + neg[u] + bonus[u];
            if (sum + dp + dn != pp + pn)
                fail_msg("%s hand %d: the hand scores %d, dead cards %d, the "
                         "pack %d",
                         ru->what, ru->hand, sum, dp + dn, pp + pn);
            int any_dead = 0;
            for (int c = 0; c < 64; c++)
                any_dead += dead[c];
            if (!any_dead && sum != pp + pn)
                fail_msg("%s hand %d: no dead cards, the hand scores %d, the "
                         "pack %d",
                         ru->what, ru->hand, sum, pp + pn);
        }
    } else {
        int mode = g->moon_applied;
        if (mode != ENGINE_MOON_SUBTRACT && mode != ENGINE_MOON_ADD_OTHERS)
            fail_msg("%s hand %d: unit %d shot (sun %d) but moon_applied "
                     "is %d",
                     ru->what, ru->hand, sh, sun, mode);
        if ((r->moon == ENGINE_MOON_SUBTRACT ||
             r->moon == ENGINE_MOON_ADD_OTHERS) &&
            mode != (int)r->moon)
            fail_msg("%s hand %d: moon %d applied as %d", ru->what, ru->hand,
                     r->moon, mode);
        if (r->moon == ENGINE_MOON_ADD_UNLESS_LOSES) {
            int32_t t[ENGINE_MAX_PLAYERS];
            expected_points(r, pos, neg, bonus, sh, sun, ENGINE_MOON_ADD_OTHERS,
                            t);
            for (int s = 0; s < n; s++)
                t[s] += before[s];
            apply_reset(r, t);
            uint16_t w = 0;
            /* a shared win with anyone besides the shooter's side counts
             * as someone else winning (a team: seat sh is one of them) */
            bool loses =
                ends(r, t, g->hand_no, &w) && (w & ~side_seats(r, sh)) != 0;
            int want = loses ? ENGINE_MOON_SUBTRACT : ENGINE_MOON_ADD_OTHERS;
            if (mode != want)
                fail_msg("%s hand %d: add_unless_loses applied %d, want %d",
                         ru->what, ru->hand, mode, want);
        }
        expected_points(r, pos, neg, bonus, sh, sun, mode, pts);
    }
    for (int s = 0; s < n; s++)
        if (g->points[s] != pts[s])
            fail_msg("%s hand %d: seat %d scored %d, want %d (shooter %d)",
                     ru->what, ru->hand, s, (int)g->points[s], (int)pts[s], sh);
    int32_t t[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < n; s++)
        t[s] = before[s] + pts[s];
    apply_reset(r, t);
    for (int s = 0; s < n; s++)
        if (g->totals[s] != t[s])
            fail_msg("%s hand %d: seat %d total %d, want %d", ru->what,
                     ru->hand, s, (int)g->totals[s], (int)t[s]);
    uint16_t w = 0;
    bool over = ends(r, t, g->hand_no, &w);
    if (over != (g->phase == ENGINE_PHASE_GAME_OVER))
        fail_msg("%s hand %d: phase %d, the game %s", ru->what, ru->hand,
                 g->phase, over ? "is over" : "goes on");
    if (over) {
        uint16_t got = 0;
        for (int i = 0; i < g->nwinners; i++)
            got |= (uint16_t)(1u << g->winners[i]);
        if (got != w || g->nwinners != __builtin_popcount(w))
            fail_msg("%s hand %d: winners %#x, want %#x", ru->what, ru->hand,
                     got, w);
    }
}

/* ---- Random players ---------------------------------------------------- */

/* k random cards of a multiset, as an action's list. */
void prop_random_cards(struct engine_prng *p, struct engine_cards h, int k,
                       struct engine_action *a)
{
    uint8_t all[ENGINE_MAX_CARDS];
    int n = 0;
    for (uint64_t m = h.one; m; m &= m - 1)
        all[n++] = (uint8_t)__builtin_ctzll(m);
    for (uint64_t m = h.two; m; m &= m - 1)
        all[n++] = (uint8_t)__builtin_ctzll(m);
    for (int i = 0; i < k; i++) {
        int j = i + (int)engine_prng_below(p, (uint32_t)(n - i));
        uint8_t t = all[i];
        all[i] = all[j];
        all[j] = t;
        a->cards[i] = all[i];
    }
    a->ncards = (uint8_t)k;
}

int prop_pick_bit(struct engine_prng *p, uint64_t m)
{
    int k = (int)engine_prng_below(p, (uint32_t)__builtin_popcountll(m));
    while (k--)
        m &= m - 1;
    return __builtin_ctzll(m);
}

/* The whole game struct compared byte for byte (it holds no pointers of
 * its own beyond the rules). */
void prop_expect_unchanged(const struct engine_game *g,
                           const struct engine_game *before,
                           const struct prop_run *ru, const char *what)
{
    if (memcmp(g, before, sizeof *g))
        fail_msg("%s hand %d: a refused %s changed the game", ru->what,
                 ru->hand, what);
}

/* The plain rules every legal set keeps: the first lead, following suit,
 * leading hearts before they are broken, drawing in domino. */
static void check_play_rules(const struct engine_game *g, int turn,
                             uint64_t legal, const struct prop_run *ru)
{
    const struct engine_rules *r = g->rules;
    const uint64_t clubs = ENGINE_SUIT_MASK(ENGINE_CLUBS);
    const uint64_t hearts = ENGINE_SUIT_MASK(ENGINE_HEARTS);
    uint64_t hand = g->hand[turn].one;
    if (g->nplays == 0 && r->first_lead == ENGINE_LEAD_TWO_CLUBS) {
        uint64_t held = 0;
        for (int s = 0; s < g->n; s++)
            held |= g->hand[s].one & clubs;
        if (held) {
            int low = __builtin_ctzll(held), seat = (g->dealer + 1) % g->n;
            if (!(held & ENGINE_BIT(ENGINE_2C)) &&
                r->lowest_club_fallback ==
                    ENGINE_FALLBACK_FIRST_LEFT_WITH_CLUBS) {
                while (!(g->hand[seat].one & clubs))
                    seat = (seat + 1) % g->n;
                low = __builtin_ctzll(g->hand[seat].one & clubs);
            } else {
                while (!(g->hand[seat].one & ENGINE_BIT(low)))
                    seat = (seat + 1) % g->n;
            }
            if (turn != seat || legal != ENGINE_BIT(low))
                fail_msg("%s hand %d: first lead by %d of [%s], want %d "
                         "leading %s",
                         ru->what, ru->hand, turn, sc_fmt(legal), seat,
                         engine_card_name(low));
        }
    }
    if (g->trick_len > 0) {
        uint64_t led = ENGINE_SUIT_MASK(engine_card_suit(g->trick[0]));
        if ((hand & led) && (legal & ~led))
            fail_msg("%s hand %d: seat %d may revoke: legal [%s]", ru->what,
                     ru->hand, turn, sc_fmt(legal));
        bool special =
            (r->special & ENGINE_SPECIAL_DUMP_QUEEN) ||
            ((r->special & ENGINE_SPECIAL_FIRST_TRICK) && g->trick_no == 0);
        if (!(hand & led) && !special && legal != hand)
            fail_msg("%s hand %d: void seat %d may play only [%s] of [%s]",
                     ru->what, ru->hand, turn, sc_fmt(legal), sc_fmt(hand));
        if ((r->special & ENGINE_SPECIAL_DOMINO) && !(hand & led) &&
            g->rest_pos < g->rest_len)
            fail_msg("%s hand %d: domino seat %d void with a stock left",
                     ru->what, ru->hand, turn);
    } else if (g->nplays > 0 && r->hearts_lead == ENGINE_HEARTS_BROKEN &&
               !g->hearts_broken) {
        uint64_t other = hand & ~hearts;
        bool queen_only =
            other == ENGINE_BIT(ENGINE_QS) && r->lead_hearts_over_queen;
        if (other && !queen_only && (legal & hearts))
            fail_msg("%s hand %d: seat %d may lead [%s] before hearts are "
                     "broken",
                     ru->what, ru->hand, turn, sc_fmt(legal & hearts));
    }
}

void prop_check_play(struct engine_game *g, struct engine_prng *p,
                     const struct prop_run *ru)
{
    const struct engine_rules *r = g->rules;
    int turn = engine_turn(g);
    uint64_t legal = engine_legal_plays(g);
    if (turn < 0 || turn >= g->n)
        fail_msg("%s hand %d: turn %d in PLAY", ru->what, ru->hand, turn);
    uint64_t hand = g->hand[turn].one;
    if (!legal)
        fail_msg("%s hand %d: no legal play for seat %d holding [%s]", ru->what,
                 ru->hand, turn, sc_fmt(hand));
    if (legal & ~hand)
        fail_msg("%s hand %d: legal [%s] not in seat %d's hand [%s]", ru->what,
                 ru->hand, sc_fmt(legal & ~hand), turn, sc_fmt(hand));
    if (!engine_may_act(g, turn))
        fail_msg("%s hand %d: seat %d to play may not act", ru->what, ru->hand,
                 turn);
    if ((r->special & ENGINE_SPECIAL_DOMINO) && !(g->in_mask >> turn & 1))
        fail_msg("%s hand %d: seat %d is out but to play", ru->what, ru->hand,
                 turn);
    check_play_rules(g, turn, legal, ru);
    struct engine_game before;
    memcpy(&before, g, sizeof before);
    /* every held card that is not legal is refused with a reason */
    for (uint64_t m = hand & ~legal; m; m &= m - 1) {
        int c = __builtin_ctzll(m);
        struct engine_refusal_detail d;
        enum engine_refusal why = engine_play(g, c, NULL, &d);
        if (why == ENGINE_OK || why == ENGINE_REFUSE_NOT_IN_HAND ||
            why == ENGINE_REFUSE_BAD_CARD || why == ENGINE_REFUSE_WRONG_PHASE)
            fail_msg("%s hand %d: seat %d playing illegal %s: %s", ru->what,
                     ru->hand, turn, engine_card_name(c), sc_refusal(why));
        prop_expect_unchanged(g, &before, ru, "play");
    }
    /* a card of the game it does not hold, one that is no card here, and
     * a play by another seat */
    uint64_t others = r->in_play & ~hand;
    if (others) {
        int c = prop_pick_bit(p, others);
        if (engine_play(g, c, NULL, NULL) != ENGINE_REFUSE_NOT_IN_HAND)
            fail_msg("%s hand %d: seat %d played %s it does not hold", ru->what,
                     ru->hand, turn, engine_card_name(c));
        prop_expect_unchanged(g, &before, ru, "play");
    }
    uint64_t outside = ENGINE_ALL_CARDS & ~r->in_play;
    if (outside) {
        int c = prop_pick_bit(p, outside);
        if (engine_play(g, c, NULL, NULL) != ENGINE_REFUSE_BAD_CARD)
            fail_msg("%s hand %d: %s is not in the pack but not refused",
                     ru->what, ru->hand, engine_card_name(c));
        prop_expect_unchanged(g, &before, ru, "play");
    }
    struct engine_action a = {.kind = ENGINE_ACT_PLAY,
                              .seat = (uint8_t)((turn + 1) % g->n),
                              .ncards = 1,
                              .cards = {(uint8_t)prop_pick_bit(p, legal)}};
    if (engine_act(g, &a, NULL, NULL) != ENGINE_REFUSE_NOT_YOUR_TURN)
        fail_msg("%s hand %d: seat %d played out of turn", ru->what, ru->hand,
                 a.seat);
    prop_expect_unchanged(g, &before, ru, "play out of turn");
}

void prop_mix(uint64_t *h, uint64_t v)
{
    *h ^= v + 0x9E3779B97F4A7C15ull + (*h << 6) + (*h >> 2);
}

void prop_trace_event(void *ctx, const struct engine_game *g,
                      const struct engine_event *ev)
{
    struct prop_trace *t = ctx;
    prop_mix(&t->hash, (uint64_t)ev->kind);
    prop_mix(&t->hash, (uint64_t)(int64_t)ev->seat);
    prop_mix(&t->hash, (uint64_t)(int64_t)ev->card);
    prop_mix(&t->hash, (uint64_t)(int64_t)ev->value);
    prop_mix(&t->hash, ev->cards);
    prop_mix(&t->hash, ev->cards2);
    if (ev->kind == ENGINE_EV_DEALT) {
        int len;
        const uint8_t *d = engine_deal_order(g, &len);
        for (int i = 0; i < len; i++)
            prop_mix(&t->hash, d[i]);
    }
    if (ev->kind == ENGINE_EV_HAND_SCORED) {
        t->hands_scored++;
        for (int s = 0; s < g->n; s++)
            prop_mix(&t->hash, (uint64_t)(int64_t)g->totals[s]);
    }
    if (ev->kind == ENGINE_EV_MOON)
        t->moons++;
}

/* Checks the hand once the passing is over: every hand holds its size. */
void prop_check_after_pass(const struct engine_game *g,
                           const struct prop_run *ru)
{
    for (int s = 0; s < g->n; s++) {
        struct engine_cards h = engine_hand(g, s);
        if (engine_cards_count(&h) != g->rules->hand_size)
            fail_msg("%s hand %d: seat %d holds %d cards after passing",
                     ru->what, ru->hand, s, engine_cards_count(&h));
    }
}
void prop_deal(struct engine_game *g, int32_t *before,
               const struct engine_sink *sink, struct prop_run *ru)
{
    memcpy(before, g->totals, sizeof g->totals);
    if (engine_deal(g, sink))
        fail_msg("%s: deal refused", ru->what);
    ru->hand = g->hand_no;
    if (engine_phase(g) == ENGINE_PHASE_PLAY)
        prop_check_after_pass(g, ru);
}
