/*
 * Property tests of the engine over many simulated games: every preset for
 * every player count it allows, and a set of option mixes, played by
 * random players (random passes, blind passes where allowed, random
 * discards, random or default moon answers). At every step:
 *
 * - no card is created or lost: hands, taken cards, the trick, cards set
 *   aside, the kitty not yet taken and the undrawn stock are the pack;
 * - in PLAY the legal set is never empty and lies in the hand of the seat
 *   to play; a legal card is accepted, every other card of the hand is
 *   refused (with a reason) and changes nothing;
 * - each hand's points are the values of the cards each unit took (pairs
 *   matched), or the moon's scoring when a unit took every penalty card or
 *   every trick; without dead cards the hand adds up to the pack's total;
 * - totals add the points (with the exact-target reset) and the game ends
 *   exactly when the end rule says, with the lowest totals winning;
 * - the same seed gives the same game; games end.
 *
 * HEARTS_PROPERTY_GAMES sets roughly how many games are played in all.
 */
#include "scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_GAMES 20000
#define MAX_HANDS 1000

struct config {
    const char *text;
    int players;
};

/* Option mixes on top of the presets (the presets themselves are run for
 * every player count from the preset table). */
static const struct config mixes[] = {
    {"standard pass_blind=on", 3},
    {"standard pass_blind=on", 4},
    {"standard pass_blind=on pass_cycle=left,right,across,left2,right2", 5},
    {"standard pass_blind=on pass_count=4", 7},
    {"standard odd_cards=kitty", 3},
    {"standard odd_cards=kitty", 6},
    {"standard odd_cards=kitty_first_point", 5},
    {"standard odd_cards=kitty_first_point", 7},
    {"standard odd_cards=kitty_exchange", 3},
    {"standard odd_cards=kitty_exchange", 6},
    {"standard odd_cards=faceup_leftover", 5},
    {"standard lowest_club_fallback=first_left_with_clubs odd_cards=kitty", 3},
    {"standard lowest_club_fallback=first_left_with_clubs "
     "odd_cards=kitty_exchange",
     5},
    {"standard sun=on", 4},
    {"standard sun=on moon=add_unless_loses", 3},
    {"omnibus match_pairs=on", 4},
    {"omnibus match_pairs=on sun=on moon_keeps_bonus=off", 5},
    {"standard tie=share", 4},
    {"standard hands=3", 4},
    {"standard hands=2 tie=share target=1000", 3},
    {"standard exact_target_reset=half", 4},
    {"standard exact_target_reset=zero moon=add_unless_loses", 4},
    {"partners partners=individual_score", 4},
    {"partners moon=add_unless_loses sun=on match_pairs=on", 4},
    {"partners partners=individual_score moon=add_unless_loses tie=share", 4},
    {"standard first_trick_points=forbidden dump_queen=on", 3},
    {"standard first_trick_points=forbidden dump_queen=on", 4},
    {"standard first_trick_points=forbidden dump_queen=on", 7},
    {"black-maria first_trick_points=forbidden dump_queen=on moon=subtract", 4},
    {"standard pass_cycle=scatter", 4},
    {"standard pass_cycle=scatter pass_count=2", 3},
    {"standard pass_cycle=left,scatter pass_count=4", 3},
    {"standard pass_cycle=scatter pass_count=4", 5},
    {"standard pass_cycle=across", 5},
    {"standard pass_cycle=left,right,left2,hold,left,right,right2,hold", 5},
    {"standard remove_table=bigd", 5},
    {"standard remove_table=modern", 6},
    {"standard queen_breaks_hearts=on lead_hearts_over_queen=off", 4},
    {"party first_trick_points=forbidden", 4},
    {"standard heart_points=spot ace_spot_value=1 card_points=QH:50", 4},
    {"modern bonus_points=5", 4},
    {"black-maria moon=choice sun=on", 4},
    {"greek moon=choice pass_blind=on", 4},
    {"joker hearts_lead=any moon=subtract", 4},
    {"joker qs_points=13 moon=choice first_trick_points=forbidden "
     "dump_queen=on",
     5},
    {"heartsette pass_count=3 pass_blind=on", 3},
    {"heartsette moon=subtract sun=on", 6},
    {"domino moon=subtract sun=on", 3},
    {"domino hearts_lead=any qs_points=13 moon=choice", 5},
    {"two-handed moon=choice sun=on pass_count=3", 2},
    {"cancellation moon=add_unless_loses sun=on", 6},
    {"cancellation pass_count=3 pass_blind=on", 7},
    {"cancellation odd_cards=kitty_first_point", 9},
    {"cancellation odd_cards=kitty_exchange", 10},
    {"cancellation odd_cards=remove match_pairs=on", 8},
    {"cancellation first_trick_points=forbidden dump_queen=on tie=share", 6},
    {"cancellation odd_cards=faceup_leftover exact_target_reset=half", 7},
};

#define NMIXES ((int)(sizeof mixes / sizeof mixes[0]))

/* ---- Counting cards --------------------------------------------------- */

static void count_cards(int *count, const struct engine_cards *c)
{
    for (uint64_t m = c->one; m; m &= m - 1)
        count[__builtin_ctzll(m)]++;
    for (uint64_t m = c->two; m; m &= m - 1)
        count[__builtin_ctzll(m)]++;
}

/* The cards of this hand that are nowhere a player can get them: a stock
 * nobody drew, a kitty never earned, a cancelled trick at the end. Only
 * meaningful once the hand is over. */
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

struct run {
    const char *text;
    uint64_t seed;
    int hand;
    char what[200];
};

static void check_cards(const struct engine_game *g, const struct run *ru,
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
    if (g->phase == ENGINE_PHASE_DEAL || g->phase == ENGINE_PHASE_GAME_OVER) {
        dead_cards(g, count);
    } else {
        count_cards(count, &g->aside);
        int len;
        const uint8_t *rest = engine_rest(g, &len);
        if (g->rest_owner_pending)
            for (int i = 0; i < len; i++)
                count[rest[i]]++;
        if (r->stock != ENGINE_STOCK_OFF)
            for (int i = g->rest_pos; i < len; i++)
                count[rest[i]]++;
    }
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

/* The bonus card named by the rules (variants.md), or -1. */
static int bonus_card(const struct engine_rules *r)
{
    switch (r->bonus_card) {
    case ENGINE_BONUS_TD:
        return ENGINE_TD;
    case ENGINE_BONUS_JD:
        return ENGINE_JD;
    case ENGINE_BONUS_NONE:
        break;
    }
    return -1;
}

/* Whether a card is one of the moon's cards: worth more than 0 and not the
 * bonus card (the bonus card is never a moon card). */
static bool moon_card(const struct engine_rules *r, int c)
{
    return r->points[c] > 0 && c != bonus_card(r);
}

/* The value of a count of cards: positive and negative parts of the cards
 * but the bonus card, and the bonus card's points, after matching pairs if
 * the rules say so. */
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
            *bonus += v;
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
    /* after 1,000 hands the game ends whatever the totals */
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
 * (or -1: no moon). In a moon hand every card but the bonus card counts as
 * the mode says, negative ones included; the bonus card counts for whoever
 * took it, for the shooter only under moon_keeps_bonus. */
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

/* Checks a scored hand: g is the game after scoring, before[] the totals
 * before the hand. */
static void check_scored(const struct engine_game *g, const int32_t *before,
                         const struct run *ru)
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
    int pos[ENGINE_MAX_PLAYERS], neg[ENGINE_MAX_PLAYERS];
    int bonus[ENGINE_MAX_PLAYERS];
    int sh = -1, sun_unit = -1;
    bool sun = false;
    int moon_cards = 0;
    for (int k = 0; k < r->deck_len; k++)
        moon_cards += moon_card(r, r->deck[k]);
    for (int u = 0; u < units; u++) {
        value_of(r, count[u], &pos[u], &neg[u], &bonus[u]);
        if (r->moon == ENGINE_MOON_OFF)
            continue;
        int got = 0;
        for (int c = 0; c < 64; c++)
            if (moon_card(r, c))
                got += count[u][c];
        if (moon_cards > 0 && got == moon_cards)
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
            dp += dn + db;
            pp += pn + pb;
            for (int u = 0; u < units; u++)
                sum += pos[u] + neg[u] + bonus[u];
            if (sum + dp != pp)
                fail_msg("%s hand %d: the hand scores %d, dead cards %d, the "
                         "pack %d",
                         ru->what, ru->hand, sum, dp, pp);
            int any_dead = 0;
            for (int c = 0; c < 64; c++)
                any_dead += dead[c];
            if (!any_dead && sum != pp)
                fail_msg("%s hand %d: no dead cards, the hand scores %d, the "
                         "pack %d",
                         ru->what, ru->hand, sum, pp);
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
            /* the shooter's side: the seat, or both partners */
            uint16_t side = (uint16_t)(1u << sh);
            if (r->partners != ENGINE_PARTNERS_OFF)
                side = (uint16_t)(sh % 2 ? 0xA : 0x5);
            /* anyone else among the winners, a shared win too */
            bool loses = ends(r, t, g->hand_no, &w) && (w & ~side);
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
static void random_cards(struct engine_prng *p, struct engine_cards h, int k,
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

static int pick_bit(struct engine_prng *p, uint64_t m)
{
    int k = (int)engine_prng_below(p, (uint32_t)__builtin_popcountll(m));
    while (k--)
        m &= m - 1;
    return __builtin_ctzll(m);
}

/* The whole game struct compared byte for byte (it holds no pointers of
 * its own beyond the rules). */
static void expect_unchanged(const struct engine_game *g,
                             const struct engine_game *before,
                             const struct run *ru, const char *what)
{
    if (memcmp(g, before, sizeof *g))
        fail_msg("%s hand %d: a refused %s changed the game", ru->what,
                 ru->hand, what);
}

/* The plain rules every legal set keeps: the first lead, following suit,
 * leading hearts before they are broken, drawing in domino. */
static void check_play_rules(const struct engine_game *g, int turn,
                             uint64_t legal, const struct run *ru)
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

static void check_play(struct engine_game *g, struct engine_prng *p,
                       const struct run *ru)
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
                     ru->hand, turn, engine_card_name(c),
                     engine_refusal_text(why));
        expect_unchanged(g, &before, ru, "play");
    }
    /* a card of the game it does not hold, one that is no card here, and
     * a play by another seat */
    uint64_t others = r->in_play & ~hand;
    if (others) {
        int c = pick_bit(p, others);
        if (engine_play(g, c, NULL, NULL) != ENGINE_REFUSE_NOT_IN_HAND)
            fail_msg("%s hand %d: seat %d played %s it does not hold", ru->what,
                     ru->hand, turn, engine_card_name(c));
        expect_unchanged(g, &before, ru, "play");
    }
    uint64_t outside = ENGINE_ALL_CARDS & ~r->in_play;
    if (outside) {
        int c = pick_bit(p, outside);
        if (engine_play(g, c, NULL, NULL) != ENGINE_REFUSE_BAD_CARD)
            fail_msg("%s hand %d: %s is not in the pack but not refused",
                     ru->what, ru->hand, engine_card_name(c));
        expect_unchanged(g, &before, ru, "play");
    }
    struct engine_action a = {.kind = ENGINE_ACT_PLAY,
                              .seat = (uint8_t)((turn + 1) % g->n),
                              .ncards = 1,
                              .cards = {(uint8_t)pick_bit(p, legal)}};
    if (engine_act(g, &a, NULL, NULL) != ENGINE_REFUSE_NOT_YOUR_TURN)
        fail_msg("%s hand %d: seat %d played out of turn", ru->what, ru->hand,
                 a.seat);
    expect_unchanged(g, &before, ru, "play out of turn");
}

/* ---- A game ------------------------------------------------------------ */

struct trace {
    uint64_t hash;
    int hands_scored;
    int moons;
};

static void mix(uint64_t *h, uint64_t v)
{
    *h ^= v + 0x9E3779B97F4A7C15ull + (*h << 6) + (*h >> 2);
}

static void trace_event(void *ctx, const struct engine_game *g,
                        const struct engine_event *ev)
{
    struct trace *t = ctx;
    mix(&t->hash, (uint64_t)ev->kind);
    mix(&t->hash, (uint64_t)(int64_t)ev->seat);
    mix(&t->hash, (uint64_t)(int64_t)ev->card);
    mix(&t->hash, (uint64_t)(int64_t)ev->value);
    mix(&t->hash, ev->cards);
    mix(&t->hash, ev->cards2);
    if (ev->kind == ENGINE_EV_DEALT) {
        int len;
        const uint8_t *d = engine_deal_order(g, &len);
        for (int i = 0; i < len; i++)
            mix(&t->hash, d[i]);
    }
    if (ev->kind == ENGINE_EV_HAND_SCORED) {
        t->hands_scored++;
        for (int s = 0; s < g->n; s++)
            mix(&t->hash, (uint64_t)(int64_t)g->totals[s]);
    }
    if (ev->kind == ENGINE_EV_MOON)
        t->moons++;
}

struct stats {
    long games, hands, moons, plays;
};

/* Checks the hand once the passing is over: every hand holds its size. */
static void check_after_pass(const struct engine_game *g, const struct run *ru)
{
    for (int s = 0; s < g->n; s++) {
        struct engine_cards h = engine_hand(g, s);
        if (engine_cards_count(&h) != g->rules->hand_size)
            fail_msg("%s hand %d: seat %d holds %d cards after passing",
                     ru->what, ru->hand, s, engine_cards_count(&h));
    }
}

/* Plays one whole game; returns its trace. */
static struct trace play_game(const struct engine_rules *r, uint64_t seed,
                              struct run *ru, struct stats *st)
{
    struct engine_game g;
    struct engine_prng p;
    struct trace tr = {0, 0, 0};
    struct engine_sink sink = {trace_event, &tr};
    engine_game_init(&g, r, seed, (int)(seed % (uint64_t)r->players));
    engine_prng_seed(&p, seed ^ 0xA5A5A5A5DEADBEEFull);
    int32_t before[ENGINE_MAX_PLAYERS];
    ru->hand = 0;
    for (int steps = 0;; steps++) {
        if (steps > MAX_HANDS * 400)
            fail_msg("%s: the game does not end", ru->what);
        int phase = engine_phase(&g);
        if (phase == ENGINE_PHASE_GAME_OVER)
            break;
        int scored = tr.hands_scored;
        switch (phase) {
        case ENGINE_PHASE_DEAL: {
            if (g.hand_no >= MAX_HANDS)
                fail_msg("%s: %d hands and no end", ru->what, g.hand_no);
            memcpy(before, g.totals, sizeof before);
            if (engine_deal(&g, &sink))
                fail_msg("%s: deal refused", ru->what);
            ru->hand = g.hand_no;
            if (engine_phase(&g) == ENGINE_PHASE_PLAY)
                check_after_pass(&g, ru);
            /* the unchecked play-out on a copy scores the same way */
            if (engine_phase(&g) == ENGINE_PHASE_PLAY &&
                engine_prng_below(&p, 4) == 0) {
                struct engine_game copy = g;
                struct engine_prng q = p;
                engine_playout(&copy, &q);
                if (copy.phase != ENGINE_PHASE_DEAL &&
                    copy.phase != ENGINE_PHASE_GAME_OVER)
                    fail_msg("%s hand %d: playout ends in phase %d", ru->what,
                             ru->hand, copy.phase);
                check_cards(&copy, ru, "after engine_playout");
                check_scored(&copy, before, ru);
            }
            break;
        }
        case ENGINE_PHASE_PASS: {
            /* seats choose in a random order */
            int order[ENGINE_MAX_PLAYERS];
            for (int s = 0; s < g.n; s++)
                order[s] = s;
            for (int s = g.n - 1; s > 0; s--) {
                int j = (int)engine_prng_below(&p, (uint32_t)s + 1);
                int t = order[s];
                order[s] = order[j];
                order[j] = t;
            }
            for (int i = 0; i < g.n && (int)engine_phase(&g) == phase; i++) {
                int s = order[i];
                if (!engine_may_act(&g, s))
                    continue;
                bool blind;
                int k = engine_pass_count(&g, s, &blind);
                if (k != r->pass_count)
                    fail_msg("%s hand %d: seat %d passes %d", ru->what,
                             ru->hand, s, k);
                struct engine_action a = {.kind = ENGINE_ACT_PASS,
                                          .seat = (uint8_t)s};
                if (k > 1) {
                    /* one card too few is refused and changes nothing */
                    struct engine_game b2;
                    memcpy(&b2, &g, sizeof b2);
                    random_cards(&p, g.hand[s], k - 1, &a);
                    if (engine_act(&g, &a, NULL, NULL) !=
                        ENGINE_REFUSE_PASS_COUNT)
                        fail_msg("%s: a short pass was taken", ru->what);
                    expect_unchanged(&g, &b2, ru, "pass");
                }
                if (blind && engine_prng_below(&p, 3) == 0) {
                    a.kind = ENGINE_ACT_PASS_BLIND;
                    a.ncards = 0;
                } else {
                    if (!blind && r->pass_blind &&
                        engine_prng_below(&p, 8) == 0) {
                        struct engine_action b = {.kind = ENGINE_ACT_PASS_BLIND,
                                                  .seat = (uint8_t)s};
                        if (engine_act(&g, &b, NULL, NULL) !=
                            ENGINE_REFUSE_BLIND_NOT_ALLOWED)
                            fail_msg("%s: blind scatter pass taken", ru->what);
                    }
                    random_cards(&p, g.hand[s], k, &a);
                }
                if (engine_act(&g, &a, &sink, NULL))
                    fail_msg("%s hand %d: seat %d's pass refused", ru->what,
                             ru->hand, s);
                check_cards(&g, ru, "passing");
            }
            if (engine_phase(&g) == ENGINE_PHASE_PLAY)
                check_after_pass(&g, ru);
            break;
        }
        case ENGINE_PHASE_PLAY: {
            check_play(&g, &p, ru);
            int c = pick_bit(&p, engine_legal_plays(&g));
            if (engine_play(&g, c, &sink, NULL))
                fail_msg("%s hand %d: legal %s refused", ru->what, ru->hand,
                         engine_card_name(c));
            st->plays++;
            break;
        }
        case ENGINE_PHASE_DISCARD: {
            int k = engine_discard_count(&g);
            int s = engine_turn(&g);
            if (k != r->rest_len || s != g.rest_taker)
                fail_msg("%s hand %d: discard %d by %d", ru->what, ru->hand, k,
                         s);
            struct engine_action a = {.kind = ENGINE_ACT_DISCARD,
                                      .seat = (uint8_t)s};
            random_cards(&p, g.hand[s], k, &a);
            if (engine_act(&g, &a, &sink, NULL))
                fail_msg("%s hand %d: discard refused", ru->what, ru->hand);
            break;
        }
        case ENGINE_PHASE_MOON: {
            int s = engine_turn(&g);
            int def = engine_moon_default(&g);
            if (def != ENGINE_MOON_SUBTRACT && def != ENGINE_MOON_ADD_OTHERS)
                fail_msg("%s hand %d: moon default %d", ru->what, ru->hand,
                         def);
            if (r->moon != ENGINE_MOON_CHOICE)
                fail_msg("%s hand %d: a choice under moon %d", ru->what,
                         ru->hand, r->moon);
            int mode = engine_prng_below(&p, 2)   ? def
                       : engine_prng_below(&p, 2) ? ENGINE_MOON_SUBTRACT
                                                  : ENGINE_MOON_ADD_OTHERS;
            struct engine_action a = {.kind = ENGINE_ACT_MOON,
                                      .seat = (uint8_t)s,
                                      .moon = (uint8_t)mode};
            if (engine_act(&g, &a, &sink, NULL))
                fail_msg("%s hand %d: moon answer refused", ru->what, ru->hand);
            break;
        }
        default:
            fail_msg("%s: phase %d", ru->what, phase);
        }
        check_cards(&g, ru, "after an action");
        if (tr.hands_scored != scored) {
            st->hands++;
            check_scored(&g, before, ru);
        }
    }
    if (g.hand_no < 1 || g.hand_no != tr.hands_scored)
        fail_msg("%s: %d hands dealt, %d scored", ru->what, g.hand_no,
                 tr.hands_scored);
    if (r->hands > 0 && g.hand_no < r->hands)
        fail_msg("%s: over after %d of %d hands", ru->what, g.hand_no,
                 r->hands);
    mix(&tr.hash, g.hand_no);
    for (int s = 0; s < g.n; s++)
        mix(&tr.hash, (uint64_t)(int64_t)g.totals[s]);
    st->moons += tr.moons;
    st->games++;
    return tr;
}

static int total_games(void)
{
    const char *e = getenv("HEARTS_PROPERTY_GAMES");
    if (e && *e) {
        int v = atoi(e);
        if (v > 0)
            return v;
    }
    return DEFAULT_GAMES;
}

/* The number of configurations: every preset for every player count,
 * and the mixes. */
static int config_count(void)
{
    int k = NMIXES;
    for (int p = 0; p < engine_preset_count(); p++) {
        int min, max;
        engine_preset_players(p, &min, &max);
        k += max - min + 1;
    }
    return k;
}

static void run_config(const char *text, int players, int games, uint64_t base,
                       struct stats *st)
{
    struct engine_rules r;
    sc_rules(&r, text, players);
    struct run ru = {text, 0, 0, ""};
    for (int i = 0; i < games; i++) {
        ru.seed = base * 1000003u + (uint64_t)i;
        snprintf(ru.what, sizeof ru.what, "'%s' for %d, seed %llu", text,
                 players, (unsigned long long)ru.seed);
        struct trace a = play_game(&r, ru.seed, &ru, st);
        if (i < 2) {
            /* the same seed gives the same game */
            struct stats dummy = {0, 0, 0, 0};
            struct trace b = play_game(&r, ru.seed, &ru, &dummy);
            if (a.hash != b.hash || a.hands_scored != b.hands_scored)
                fail_msg("%s: the same seed gave another game", ru.what);
            /* and another seed another one */
            struct trace c = play_game(&r, ru.seed + 7777, &ru, &dummy);
            if (c.hash == a.hash)
                fail_msg("%s: seeds %llu and +7777 gave the same game", ru.what,
                         (unsigned long long)ru.seed);
        }
    }
}

static void test_properties_every_preset_and_player_count(void **state)
{
    (void)state;
    int per = total_games() / config_count();
    if (per < 1)
        per = 1;
    struct stats st = {0, 0, 0, 0};
    for (int p = 0; p < engine_preset_count(); p++) {
        int min, max;
        engine_preset_players(p, &min, &max);
        for (int n = min; n <= max; n++)
            run_config(engine_preset_name(p), n, per, (uint64_t)(p * 16 + n),
                       &st);
    }
    print_message("presets: %ld games, %ld hands, %ld plays, %ld moons\n",
                  st.games, st.hands, st.plays, st.moons);
    assert_true(st.moons > 0);
}

static void test_properties_option_mixes(void **state)
{
    (void)state;
    int per = total_games() / config_count();
    if (per < 1)
        per = 1;
    struct stats st = {0, 0, 0, 0};
    for (int i = 0; i < NMIXES; i++)
        run_config(mixes[i].text, mixes[i].players, per, (uint64_t)(1000 + i),
                   &st);
    print_message("mixes: %ld games, %ld hands, %ld plays, %ld moons\n",
                  st.games, st.hands, st.plays, st.moons);
    assert_true(st.moons > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_properties_every_preset_and_player_count),
        cmocka_unit_test(test_properties_option_mixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
