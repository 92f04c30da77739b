/*
 * Tests of the easy level (engine/ai/ai_easy.c): its choices in
 * table-driven situations (voids, following, the last seat, the bonus
 * card, leads, passes, kitty discards, moon threats), and the view
 * contract (a decision depends on the seat's view only).
 */
#include "engine/ai/ai.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

/* ---- Situations ------------------------------------------------------- */

/* The easy player's card for the seat to play. */
static int easy_play(const struct engine_game *g)
{
    struct engine_prng rng;
    struct engine_action a;
    engine_prng_seed(&rng, 1);
    assert_int_equal(ai_act_for(AI_EASY, g, engine_turn(g), &rng, &a), 0);
    assert_int_equal(a.kind, ENGINE_ACT_PLAY);
    assert_int_equal(a.seat, engine_turn(g));
    assert_true(engine_legal_plays(g) & ENGINE_BIT(a.cards[0]));
    return a.cards[0];
}

/* Asserts the easy player plays `card` now, and plays it. */
static void expect_play(struct engine_game *g, const char *card)
{
    int c = easy_play(g);
    if (c != (int)__builtin_ctzll(sc_set(card)))
        fail_msg("easy played %s, expected %s", engine_card_name(c), card);
    assert_int_equal(engine_play(g, c, NULL, NULL), ENGINE_OK);
}

/* The easy player's pass or discard for seat, taken by the engine; the
 * cards as a set (and in order in *a). */
static uint64_t easy_cards(struct engine_game *g, int seat,
                           struct engine_action *a)
{
    struct engine_prng rng;
    engine_prng_seed(&rng, 1);
    assert_int_equal(ai_act_for(AI_EASY, g, seat, &rng, a), 0);
    uint64_t set = 0;
    for (int i = 0; i < a->ncards; i++)
        set |= ENGINE_BIT(a->cards[i]);
    assert_int_equal(engine_act(g, a, NULL, NULL), ENGINE_OK);
    return set;
}

/* Black Lady, no passing: the dealer is seat 3, so seat 0 leads. These
 * three hands and whatever is left for seat 3 set up a diamond lead. */
static const char *const diamond_lead[4] = {
    "8D 9D TD JD QD KD AD 8C 9C TC JC QC KC",
    "2D 3D 4D 5D 6D 7D 2H 5H 6H 7H 8H 9H JH", NULL, NULL};

static void start_void(struct engine_game *g, struct engine_rules *r,
                       const char *seat2)
{
    const char *hands[4] = {diamond_lead[0], diamond_lead[1], seat2, NULL};
    sc_rules(r, "black-lady", 4);
    sc_start(g, r, 3, hands, NULL);
    sc_plays(g, "8D 2D");
}

static void test_ai_easy_void_dumps_queen(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    start_void(&g, &r, "QS KS AH 3H 4S 5S 6S 2C 3C 4C 5C 6C 7C");
    expect_play(&g, "QS");
}

static void test_ai_easy_void_dumps_high_heart_without_queen(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    start_void(&g, &r, "AH 3H 4H AC 4S 5S 6S 2C 3C 4C 5C 6C 7C");
    expect_play(&g, "AH");
}

static void test_ai_easy_void_dumps_ace_of_spades_while_queen_out(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    /* the AS would catch the QS still out: before the TH */
    start_void(&g, &r, "AS 2S 3S 4S 2C 3C 4C 5C 6C 7C AC TH 4H");
    expect_play(&g, "AS");
}

static void test_ai_easy_void_keeps_ace_of_spades_after_queen(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    /* seat 3 (filled) holds the QS and is void in clubs: a club trick
     * draws it out first */
    const char *hands[4] = {"2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
                            "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
                            "AS 2S 3S 4S 5S 6S 7S 8S TH 2H 3H 4H 5H", NULL};
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "2C 2D 2S QS");
    /* seat 0 won and leads clubs again: the queen is gone, so the AS is
     * just a high card, and the TH goes first */
    sc_plays(&g, "3C 3D");
    expect_play(&g, "TH");
}

static void test_ai_easy_follow_ducks_under_winning_card(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    const char *hands[4] = {"8D 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
                            "KD 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
                            "2D 9D QD AD AC AH 2S 3S 4S 5S 6S 7S 8S", NULL};
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "8D KD");
    expect_play(&g, "QD");
}

static void test_ai_easy_follow_ducks_queen_under_king(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    const char *hands[4] = {"KS 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
                            "3S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
                            "QS 4S 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD", NULL};
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "KS 3S");
    expect_play(&g, "QS");
}

static void test_ai_easy_follow_cannot_duck_wins_highest(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    const char *hands[4] = {"2C 3C 4C 6C 7C 8C 9C TC JC QC 2D 3D 2S",
                            "5C 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
                            "KC AC 4D 5D 6D 7D 8D 9D TD JD QD KD AD", NULL};
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "2C 5C");
    expect_play(&g, "AC");
}

static void test_ai_easy_follow_cannot_duck_spares_queen(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    const char *hands[4] = {"2S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
                            "5S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
                            "QS AS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD", NULL};
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "2S 5S");
    expect_play(&g, "AS");
}

/* Seat 3 plays last to 4C 9C and a third card. */
static void start_last(struct engine_game *g, struct engine_rules *r,
                       const char *third)
{
    const char *hands[4] = {"4C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
                            "9C 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
                            "7C 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
                            "3C KC AC 2C 5C 6C 8C TC JC QC AD AH AS"};
    sc_rules(r, "black-lady", 4);
    sc_start(g, r, 3, hands, NULL);
    sc_plays(g, "4C 9C");
    sc_play(g, third);
}

static void test_ai_easy_last_wins_clean_trick_with_highest(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    start_last(&g, &r, "7C");
    expect_play(&g, "AC");
    assert_int_equal(engine_turn(&g), 3);
}

static void test_ai_easy_last_ducks_trick_with_points(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    const char *hands[4] = {"4C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
                            "9C 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
                            "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
                            "3C KC AC 2C 5C 6C 7C 8C TC JC QC AD AS"};
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "4C 9C 2H");
    expect_play(&g, "8C");
    assert_int_equal(g.hand_points[1], 1);
}

/* Omnibus (the TD is worth -10) without passing, seat 0 leading 5D. */
static void start_bonus(struct engine_game *g, struct engine_rules *r,
                        const char *seat2, const char *seat3)
{
    const char *hands[4] = {"5D 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
                            "TD 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", seat2,
                            seat3};
    sc_rules(r, "omnibus pass_count=0 first_lead=left_of_dealer", 4);
    sc_start(g, r, 3, hands, NULL);
    sc_plays(g, "5D TD");
}

static void test_ai_easy_follow_takes_bonus_with_sure_winner(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    start_bonus(&g, &r, "AD 3D AC AH 2S 3S 4S 5S 6S 7S 8S 9S TS", NULL);
    /* the AD cannot be beaten: take the -10 although a duck exists */
    expect_play(&g, "AD");
}

static void test_ai_easy_last_takes_bonus_trick(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    start_bonus(&g, &r, "3D AC AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS", NULL);
    sc_play(&g, "3D");
    int c = easy_play(&g);
    assert_int_equal(engine_card_suit(c), ENGINE_DIAMONDS);
    assert_true(c > ENGINE_TD);
    assert_int_equal(engine_play(&g, c, NULL, NULL), ENGINE_OK);
    assert_int_equal(g.hand_points[3], -10);
}

static void test_ai_easy_follow_ducks_when_bonus_trick_unsafe(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    /* the QD could win but the KD and AD are still out: duck */
    start_bonus(&g, &r, "QD 3D AC AH 2S 3S 4S 5S 6S 7S 8S 9S TS", NULL);
    expect_play(&g, "3D");
}

/* Seat 0 leads from 13 cards (Black Lady, hearts not broken). */
static int easy_lead(const char *hand)
{
    struct engine_rules r;
    struct engine_game g;
    const char *hands[4] = {hand, NULL, NULL, NULL};
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, hands, NULL);
    return easy_play(&g);
}

static void test_ai_easy_lead_smokes_queen_with_low_spade(void **state)
{
    (void)state;
    int c = easy_lead("3S 4S 9C TC JC QC 9D TD JD QD 2H 3H 4H");
    assert_string_equal(engine_card_name(c), "3S");
}

static void test_ai_easy_lead_avoids_spades_holding_ace(void **state)
{
    (void)state;
    int c = easy_lead("3S AS 9C TC JC QC 2D TD JD QD 2H 3H 4H");
    assert_string_equal(engine_card_name(c), "2D");
}

static void test_ai_easy_lead_never_queen_while_others(void **state)
{
    (void)state;
    /* only the QS and high cards: any of them wins, the QS costs most */
    int c = easy_lead("QS AC KC QC JC TC AD KD QD JD TD 2H 3H");
    assert_int_not_equal(c, ENGINE_QS);
}

static void test_ai_easy_void_joker_kept_when_it_would_win(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    const char *hands[4] = {"4C 5C 6C 7C 8C 9C TC JC QC KC AC 2S 3S",
                            "3C 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2D",
                            "JK 3H 4H 3D 4D 5D 6D 7D 8D 9D TD JD QD", NULL};
    sc_rules(&r, "joker", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "4C 3C");
    /* void in clubs: the joker would win this trick */
    int c = easy_play(&g);
    assert_int_not_equal(c, ENGINE_JOKER);
    assert_string_equal(engine_card_name(c), "QD");
}

static void test_ai_easy_void_dumps_joker_under_high_heart(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    const char *hands[4] = {"4C 5C 6C 7C 8C 9C TC JC QC KC AC 2S 3S",
                            "QH 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2D",
                            "JK 3H 4H 3D 4D 5D 6D 7D 8D 9D TD JD QD", NULL};
    sc_rules(&r, "joker", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "4C QH");
    /* the QH beats the joker: it loses, and costs 5 */
    expect_play(&g, "JK");
}

static void test_ai_easy_cancellation_twin_cannot_win(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    const char *hands[6] = {
        "AD 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2C 3C 4C",
        "5D 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2H 3H 4H",
        "AD KD 2D 5C 6C 7C 8C 9C TC JC QC KC AC 5H 6H 7H 8H",
        NULL,
        NULL,
        NULL};
    sc_rules(&r, "cancellation", 6);
    sc_start(&g, &r, 5, hands, NULL);
    sc_plays(&g, "AD 5D");
    /* the second AD cancels the first and cannot win: the highest duck
     * (the KD would win) */
    expect_play(&g, "AD");
}

static void test_ai_easy_pass_unguarded_queen(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    const char *hands[4] = {"QS 2S 2C 3C 4C 5C 6C 7C 8C 2D 3D 4D 5D", NULL,
                            NULL, NULL};
    sc_rules(&r, "standard", 4);
    sc_start(&g, &r, 3, hands, NULL);
    uint64_t p = easy_cards(&g, 0, &a);
    assert_int_equal(a.kind, ENGINE_ACT_PASS);
    assert_string_equal(sc_fmt(p), "7C 8C QS");
}

static void test_ai_easy_pass_keeps_guarded_queen(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    const char *hands[4] = {"QS 2S 3S 4S 5S AH KH 2C 3C 4C 2D 3D 4D", NULL,
                            NULL, NULL};
    sc_rules(&r, "standard", 4);
    sc_start(&g, &r, 3, hands, NULL);
    uint64_t p = easy_cards(&g, 0, &a);
    assert_false(p & sc_set("QS 2S 3S 4S 5S"));
    assert_true((p & sc_set("AH KH")) == sc_set("AH KH"));
}

static void test_ai_easy_pass_never_low_spades(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    /* spades are the lowest cards here, and still not passed */
    const char *hands[4] = {"2S 3S 4S 5S 6S 7S 8S 9S 8C 9C 8D 9D 8H", NULL,
                            NULL, NULL};
    sc_rules(&r, "standard", 4);
    sc_start(&g, &r, 3, hands, NULL);
    uint64_t p = easy_cards(&g, 0, &a);
    assert_false(p & ENGINE_SUIT_MASK(ENGINE_SPADES));
}

static void test_ai_easy_pass_voids_short_suit(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    const char *hands[4] = {"2D 9D 2S 3S 4S 5S 6S 2C 3C 4C 5C 6C 7C", NULL,
                            NULL, NULL};
    sc_rules(&r, "standard", 4);
    sc_start(&g, &r, 3, hands, NULL);
    uint64_t p = easy_cards(&g, 0, &a);
    assert_true((p & sc_set("2D 9D")) == sc_set("2D 9D"));
}

static void test_ai_easy_pass_keeps_bonus_card(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    const char *hands[4] = {"TD QD 2S 3S 4S AH KH 2C 3C 4C 5C 6C 7C", NULL,
                            NULL, NULL};
    sc_rules(&r, "omnibus", 4);
    sc_start(&g, &r, 3, hands, NULL);
    uint64_t p = easy_cards(&g, 0, &a);
    assert_false(p & sc_set("TD"));
    assert_true((p & sc_set("AH KH")) == sc_set("AH KH"));
}

static void test_ai_easy_pass_both_copies_of_queen(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    const char *hands[6] = {
        "QS QS 2S 2C 3C 4C 5C 6C 7C 8C 2C 3C 4C 5C 6C 7C 8C",
        NULL,
        NULL,
        NULL,
        NULL,
        NULL};
    sc_rules(&r, "cancellation pass_count=3", 6);
    sc_start(&g, &r, 5, hands, NULL);
    easy_cards(&g, 0, &a);
    int queens = 0;
    for (int i = 0; i < a.ncards; i++)
        queens += a.cards[i] == ENGINE_QS;
    assert_int_equal(queens, 2);
}

static void test_ai_easy_pass_scatter_orders_cards(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    const char *hands[4] = {"QS 2S 2C 3C 4C 5C 6C 7C 8C 2D 3D 4D 5D", NULL,
                            NULL, NULL};
    sc_rules(&r, "standard pass_cycle=scatter", 4);
    sc_start(&g, &r, 3, hands, NULL);
    easy_cards(&g, 0, &a);
    /* the most dangerous card first: it goes to the left neighbour */
    assert_int_equal(a.ncards, 3);
    assert_int_equal(a.cards[0], ENGINE_QS);
}

/* Three players, a kitty of one card (the AH) for the first trick's winner
 * (seat 1, with the AC), who discards one card into its own tricks. */
static void start_discard(struct engine_game *g, struct engine_rules *r,
                          const char *text)
{
    const char *hands[3] = {
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D 3D 4D 5D 6D",
        "AC TD 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2H 3H", NULL};
    sc_rules(r, text, 3);
    sc_start(g, r, 2, hands, "AH");
    sc_plays(g, "2C AC 7D");
    assert_int_equal(engine_phase(g), ENGINE_PHASE_DISCARD);
    assert_int_equal(engine_turn(g), 1);
}

static void test_ai_easy_discard_takes_bonus_card(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    start_discard(&g, &r, "omnibus odd_cards=kitty_exchange pass_count=0");
    uint64_t d = easy_cards(&g, 1, &a);
    assert_int_equal(a.kind, ENGINE_ACT_DISCARD);
    assert_string_equal(sc_fmt(d), "TD");
}

static void test_ai_easy_discard_keeps_points_out_of_own_tricks(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    start_discard(&g, &r, "standard odd_cards=kitty_exchange pass_count=0");
    uint64_t d = easy_cards(&g, 1, &a);
    /* not the QS nor a heart: they would score here; the lone TD makes a
     * void */
    assert_false(d & r.penalty);
    assert_string_equal(sc_fmt(d), "TD");
}

/* ---- Every card over the led one --------------------------------------- */

/* Seat 0 leads 2S and seat 1 follows 3S; seat 2 holds only spades over
 * them, and the QS is out with seat 3, who plays after it. */
static void start_over(struct engine_game *g, struct engine_rules *r,
                       const char *seat2)
{
    const char *hands[4] = {"2S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
                            "3S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", seat2,
                            NULL};
    sc_rules(r, "black-lady", 4);
    sc_start(g, r, 3, hands, NULL);
    sc_plays(g, "2S 3S");
}

static void test_ai_easy_over_plays_below_queen_while_out(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    /* the AS would take the QS dropped under it; the 5S cannot */
    start_over(&g, &r, "5S KS AS 2D 3D 4D 5D 6D 7D 8D 9D TD JD");
    expect_play(&g, "5S");
}

static void test_ai_easy_over_plays_king_not_ace_while_queen_out(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    /* nothing below the QS: the KS, which the AS may still overtake */
    start_over(&g, &r, "KS AS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD");
    expect_play(&g, "KS");
}

/* ---- The moon ---------------------------------------------------------- */

/* Seat 0 holds twelve clubs and the TH (rules `text`, 4 players); the others
 * are void in clubs. Two club tricks give it the QS, 2H and 4H (15 of 26
 * points, and nobody else has any): a moon threat. */
static void start_threat(struct engine_game *g, struct engine_rules *r,
                         const char *text)
{
    const char *hands[4] = {"AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C TH",
                            "QS 4H 2S 3S 4S 5S 6S 7S 8S 9S TS JS 2D",
                            "2H 3H KH 4D 5D 6D 7D 8D 9D TD JD QD KD", NULL};
    sc_rules(r, text, 4);
    sc_start(g, r, 3, hands, NULL);
    sc_plays(g, "AC QS 2H 2C KC 4H KD 3D");
    assert_int_equal(g->hand_points[0], 15);
    assert_int_equal(engine_turn(g), 0);
}

static void test_ai_easy_moon_threat_void_keeps_stopper(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    start_threat(&g, &r, "black-lady");
    /* the shooter wins the club trick: the KH stays home to win a heart
     * trick later; a diamond goes instead */
    sc_plays(&g, "QC 2S");
    expect_play(&g, "QD");
}

static void test_ai_easy_moon_threat_last_takes_heart_trick(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    start_threat(&g, &r, "black-lady");
    /* the shooter leads the TH: seat 3 wins it cheaply (JH, not the AH)
     * rather than ducking with the 9H */
    sc_plays(&g, "TH 2S 3H");
    expect_play(&g, "JH");
    assert_int_equal(engine_turn(&g), 3);
    assert_int_equal(g.hand_points[3], 3);
}

static void test_ai_easy_moon_threat_keeps_bonus_card(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    /* two club tricks give seat 0 the QS and three hearts; it leads the
     * AD and a heart falls on it: seat 2 keeps its stoppers low, but not
     * by handing the shooter the TD (-10) */
    const char *hands[4] = {"AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C AD",
                            "QS 2H 4H 5H 2S 3S 4S 5S 6S 7S 8S 9S TS",
                            "TD QD 3H 6H 7H 8H 9H JH QH KH JS KS AS", NULL};
    sc_rules(&r, "omnibus pass_count=0 first_lead=left_of_dealer", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "AC QS 3H 2C KC 2H 6H 2D AD 4H");
    expect_play(&g, "QD");
}

static void test_ai_easy_moon_off_no_threat(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    start_threat(&g, &r, "black-lady moon=off");
    sc_plays(&g, "QC 2S");
    /* no moon to stop: the KH goes on the trick as usual */
    expect_play(&g, "KH");
}

static void test_ai_easy_shoots_holding_every_point_left(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct engine_action a;
    struct engine_prng rng;
    /* two club tricks give seat 0 the QS and three hearts; it holds the
     * other ten hearts, which nobody can beat, and the 2D */
    const char *hands[4] = {"AC KC 2D 5H 6H 7H 8H 9H TH JH QH KH AH",
                            "QS 4H 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS",
                            "2H 3H 3D 4D 5D 6D 7D 8D 9D TD JD QD KD", NULL};
    sc_rules(&r, "black-lady", 4);
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "AC QS 2H 2C KC 4H 3H 3C");
    assert_int_equal(engine_turn(&g), 0);
    /* leading the 2D would lose the lead and the hearts after it */
    expect_play(&g, "AH");
    engine_prng_seed(&rng, 1);
    while (engine_phase(&g) == ENGINE_PHASE_PLAY) {
        assert_int_equal(ai_act_for(AI_EASY, &g, engine_turn(&g), &rng, &a), 0);
        assert_int_equal(engine_act(&g, &a, NULL, NULL), ENGINE_OK);
    }
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
    assert_int_equal(engine_turn(&g), 0);
}

/* ---- The view contract ------------------------------------------------ */

/* The seat's view of g1 and of g2 are the same, byte for byte (the play
 * history compared by content). */
static void assert_same_view(const struct engine_game *g1,
                             const struct engine_game *g2, int seat)
{
    struct engine_view v1, v2, c1, c2;
    engine_view_make(g1, seat, &v1);
    engine_view_make(g2, seat, &v2);
    /* engine_view_make zeroes the whole struct first, padding included */
    memcpy(&c1, &v1, sizeof c1);
    memcpy(&c2, &v2, sizeof c2);
    c1.plays = c2.plays = NULL;
    c1.play_seat = c2.play_seat = NULL;
    assert_memory_equal(&c1, &c2, sizeof c1);
    assert_memory_equal(v1.plays, v2.plays, (size_t)v1.nplays);
    assert_memory_equal(v1.play_seat, v2.play_seat, (size_t)v1.nplays);
}

static void assert_same_decision(const struct engine_game *g1,
                                 const struct engine_game *g2, int seat)
{
    struct engine_prng r1, r2;
    struct engine_action a1, a2;
    engine_prng_seed(&r1, 77);
    engine_prng_seed(&r2, 77);
    assert_int_equal(ai_act_for(AI_EASY, g1, seat, &r1, &a1), 0);
    assert_int_equal(ai_act_for(AI_EASY, g2, seat, &r2, &a2), 0);
    assert_memory_equal(&a1, &a2, sizeof a1);
}

/* The pack in dealing order for hands (each ascending) and g's rest. */
static int deal_order(const struct engine_game *g,
                      const struct engine_cards *hands, uint8_t *order)
{
    int n = g->n, hs = g->rules->hand_size;
    int len = 0;
    uint64_t left[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < n; s++)
        left[s] = hands[s].one;
    for (int k = 0; k < n * hs; k++) {
        int s = (g->dealer + 1 + k) % n;
        int c = __builtin_ctzll(left[s]);
        left[s] &= left[s] - 1;
        order[len++] = (uint8_t)c;
    }
    int rest_len;
    const uint8_t *rest = engine_rest(g, &rest_len);
    memcpy(order + len, rest, (size_t)rest_len);
    return len + rest_len;
}

/* Redeals the other seats' cards of each suit among them (not the cards
 * they played, not penalty cards outside hearts, whose place can change
 * what may be led): every play stays legal and the seat's view the same. */
static void shuffle_hidden(const struct engine_game *g,
                           const struct engine_cards *dealt,
                           struct engine_prng *rng, struct engine_cards *alt)
{
    const struct engine_rules *r = g->rules;
    int n = g->n;
    uint64_t fixed = r->penalty & ~ENGINE_SUIT_MASK(ENGINE_HEARTS);
    for (int s = 0; s < n; s++)
        alt[s] = dealt[s];
    for (int suit = 0; suit < 4; suit++) {
        uint64_t sm = ENGINE_SUIT_MASK(suit) & ~fixed;
        uint8_t pool[ENGINE_MAX_CARDS] = {0};
        int np = 0;
        for (int s = 1; s < n; s++)
            for (uint64_t m = g->hand[s].one & sm; m; m &= m - 1)
                pool[np++] = (uint8_t)__builtin_ctzll(m);
        for (int i = np - 1; i > 0; i--) {
            int j = (int)engine_prng_below(rng, (uint32_t)i + 1);
            uint8_t t = pool[i];
            pool[i] = pool[j];
            pool[j] = t;
        }
        int pos = 0;
        for (int s = 1; s < n; s++) {
            uint64_t held = g->hand[s].one & sm;
            alt[s].one &= ~held;
            for (int k = __builtin_popcountll(held); k > 0; k--)
                alt[s].one |= ENGINE_BIT(pool[pos++]);
        }
    }
}

/* Plays randomly to a point where seat 0 is to play, rebuilds the game
 * with the other seats' hidden cards redealt, and compares. Returns
 * whether the hidden hands differed. */
static bool contract_case(const struct engine_rules *r, uint64_t seed)
{
    struct engine_game g1, g2;
    struct engine_prng rng;
    struct engine_action a;
    engine_prng_seed(&rng, seed);
    engine_game_init(&g1, r, seed, (int)(seed % (uint64_t)r->players));
    assert_int_equal(engine_deal(&g1, NULL), 0);
    assert_int_equal(engine_phase(&g1), ENGINE_PHASE_PLAY);
    struct engine_cards dealt[ENGINE_MAX_PLAYERS];
    memcpy(dealt, g1.hand, sizeof dealt);
    /* before the last trick, where seat 0 still has a turn to come */
    int stop = (int)engine_prng_below(
        &rng, (uint32_t)((r->hand_size - 1) * r->players));
    while (g1.nplays < stop || engine_turn(&g1) != 0) {
        int t = engine_turn(&g1);
        assert_int_equal(ai_act_for(AI_RANDOM, &g1, t, &rng, &a), 0);
        assert_int_equal(engine_act(&g1, &a, NULL, NULL), ENGINE_OK);
        assert_int_equal(engine_phase(&g1), ENGINE_PHASE_PLAY);
    }

    struct engine_cards alt[ENGINE_MAX_PLAYERS];
    shuffle_hidden(&g1, dealt, &rng, alt);
    uint8_t order[ENGINE_MAX_CARDS];
    int len = deal_order(&g1, alt, order);
    struct engine_error e;
    engine_game_init(&g2, r, seed + 1, g1.dealer);
    if (engine_deal_given(&g2, g1.dealer, order, len, NULL, &e))
        fail_msg("redeal refused: %s", sc_error(&e));
    for (int i = 0; i < g1.nplays; i++) {
        if (engine_turn(&g2) != g1.play_seat[i])
            fail_msg("%s seed %llu play %d", engine_preset_name(r->preset),
                     (unsigned long long)seed, i);
        assert_int_equal(engine_play(&g2, g1.plays[i], NULL, NULL), ENGINE_OK);
    }
    assert_same_view(&g1, &g2, 0);
    assert_same_decision(&g1, &g2, 0);
    bool differ = false;
    for (int s = 1; s < g1.n; s++)
        differ |= g1.hand[s].one != g2.hand[s].one;
    return differ;
}

static void test_ai_easy_decision_depends_on_view_only(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int players;
    } cases[] = {
        {"standard pass_count=0", 4},
        {"omnibus pass_count=0", 4},
        {"joker", 4},
        {"black-maria pass_count=0", 3},
        {"spot", 5},
        {"party pass_count=0", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct engine_rules r;
        sc_rules(&r, cases[i].text, cases[i].players);
        int differ = 0;
        for (uint64_t seed = 1; seed <= 60; seed++)
            differ += contract_case(&r, seed * 131 + i);
        /* the test compares games that really differ */
        assert_true(differ >= 40);
    }
}

static void test_ai_easy_pass_depends_on_view_only(void **state)
{
    (void)state;
    struct engine_rules r;
    sc_rules(&r, "omnibus", 4);
    for (uint64_t seed = 1; seed <= 50; seed++) {
        struct engine_game g1, g2;
        struct engine_prng rng;
        engine_prng_seed(&rng, seed);
        engine_game_init(&g1, &r, seed, 0);
        assert_int_equal(engine_deal(&g1, NULL), 0);
        struct engine_cards alt[ENGINE_MAX_PLAYERS];
        /* seat 0 keeps its hand; the other 39 cards are redealt freely
         * (nothing is played yet, so any redeal keeps the view) */
        uint8_t pool[ENGINE_MAX_CARDS] = {0};
        int np = 0;
        for (int s = 1; s < 4; s++)
            for (uint64_t m = g1.hand[s].one; m; m &= m - 1)
                pool[np++] = (uint8_t)__builtin_ctzll(m);
        for (int i = np - 1; i > 0; i--) {
            int j = (int)engine_prng_below(&rng, (uint32_t)i + 1);
            uint8_t t = pool[i];
            pool[i] = pool[j];
            pool[j] = t;
        }
        alt[0] = g1.hand[0];
        for (int s = 1; s < 4; s++) {
            alt[s].one = alt[s].two = 0;
            for (int k = 0; k < 13; k++)
                alt[s].one |= ENGINE_BIT(pool[(s - 1) * 13 + k]);
        }
        uint8_t order[ENGINE_MAX_CARDS];
        int len = deal_order(&g1, alt, order);
        struct engine_error e;
        engine_game_init(&g2, &r, seed + 1, 0);
        if (engine_deal_given(&g2, g1.dealer, order, len, NULL, &e))
            fail_msg("redeal refused: %s", sc_error(&e));
        assert_int_equal(engine_phase(&g2), ENGINE_PHASE_PASS);
        assert_true(g1.hand[1].one != g2.hand[1].one);
        assert_same_view(&g1, &g2, 0);
        assert_same_decision(&g1, &g2, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ai_easy_void_dumps_queen),
        cmocka_unit_test(test_ai_easy_void_dumps_high_heart_without_queen),
        cmocka_unit_test(test_ai_easy_void_dumps_ace_of_spades_while_queen_out),
        cmocka_unit_test(test_ai_easy_void_keeps_ace_of_spades_after_queen),
        cmocka_unit_test(test_ai_easy_follow_ducks_under_winning_card),
        cmocka_unit_test(test_ai_easy_follow_ducks_queen_under_king),
        cmocka_unit_test(test_ai_easy_follow_cannot_duck_wins_highest),
        cmocka_unit_test(test_ai_easy_follow_cannot_duck_spares_queen),
        cmocka_unit_test(test_ai_easy_last_wins_clean_trick_with_highest),
        cmocka_unit_test(test_ai_easy_last_ducks_trick_with_points),
        cmocka_unit_test(test_ai_easy_follow_takes_bonus_with_sure_winner),
        cmocka_unit_test(test_ai_easy_last_takes_bonus_trick),
        cmocka_unit_test(test_ai_easy_follow_ducks_when_bonus_trick_unsafe),
        cmocka_unit_test(test_ai_easy_lead_smokes_queen_with_low_spade),
        cmocka_unit_test(test_ai_easy_lead_avoids_spades_holding_ace),
        cmocka_unit_test(test_ai_easy_lead_never_queen_while_others),
        cmocka_unit_test(test_ai_easy_void_joker_kept_when_it_would_win),
        cmocka_unit_test(test_ai_easy_void_dumps_joker_under_high_heart),
        cmocka_unit_test(test_ai_easy_cancellation_twin_cannot_win),
        cmocka_unit_test(test_ai_easy_pass_unguarded_queen),
        cmocka_unit_test(test_ai_easy_pass_keeps_guarded_queen),
        cmocka_unit_test(test_ai_easy_pass_never_low_spades),
        cmocka_unit_test(test_ai_easy_pass_voids_short_suit),
        cmocka_unit_test(test_ai_easy_pass_keeps_bonus_card),
        cmocka_unit_test(test_ai_easy_pass_both_copies_of_queen),
        cmocka_unit_test(test_ai_easy_pass_scatter_orders_cards),
        cmocka_unit_test(test_ai_easy_discard_takes_bonus_card),
        cmocka_unit_test(test_ai_easy_discard_keeps_points_out_of_own_tricks),
        cmocka_unit_test(test_ai_easy_over_plays_below_queen_while_out),
        cmocka_unit_test(test_ai_easy_over_plays_king_not_ace_while_queen_out),
        cmocka_unit_test(test_ai_easy_moon_threat_void_keeps_stopper),
        cmocka_unit_test(test_ai_easy_moon_threat_last_takes_heart_trick),
        cmocka_unit_test(test_ai_easy_moon_threat_keeps_bonus_card),
        cmocka_unit_test(test_ai_easy_moon_off_no_threat),
        cmocka_unit_test(test_ai_easy_shoots_holding_every_point_left),
        cmocka_unit_test(test_ai_easy_decision_depends_on_view_only),
        cmocka_unit_test(test_ai_easy_pass_depends_on_view_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
