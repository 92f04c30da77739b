/*
 * Tests of engine/score.c through whole hands: a few deals whose outcome
 * the play forces (written trick by trick, leader first), scored under
 * every scoring and end-of-game option. Each row of a table would fail if
 * its option were ignored. Multi-hand situations set the totals before the
 * last hand (the struct is public).
 */
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#define NO_MOON (-1)

/* A deal with the plays that force its outcome. */
struct deal {
    int dealer;
    const char *hands[ENGINE_MAX_PLAYERS];
    const char *rest;
    const char *tricks; /* plays in order; then the lowest legal cards */
};

/*
 * "split": four players, dealer 3, seat 0 leads 2C. Seat 0 takes 6H KH 7H
 * 8H QH 9H TH JH, JD 4D 5D 6D, KS; seat 1 takes QS AS and QC; seat 2 takes
 * TD; seat 3 takes 2H AH 3H 4H 5H. Legal under every play option used
 * below (no points on trick 1, hearts broken by a discard).
 */
static const struct deal split = {
    3,
    {"2C 3D QS 2H 3H KH QH JD KS 7D 7S 8S 9S",
     "QC 2D AS 5C 4H 7H 9H 4D 4S 8C 9C 8D TS",
     "4C AD 2S 6C 5H 8H TH 5D 5S TC JC 9D JS",
     "3C TD 3S 7C AH 6H JH 6D 6S KC AC QD KD"},
    NULL,
    "2C QC 4C 3C " /* seat 1 */
    "2D AD TD 3D " /* seat 2 takes TD */
    "2S 3S QS AS " /* seat 1 takes QS AS */
    "5C 6C 7C 2H " /* seat 3: seat 0 breaks hearts */
    "AH 3H 4H 5H " /* seat 3 */
    "6H KH 7H 8H " /* seat 0 */
    "QH 9H TH JH " /* seat 0 */
    "JD 4D 5D 6D " /* seat 0 */
    "KS 4S 5S 6S " /* seat 0 */
    "7S TS JS KD " /* seat 2 */
    "TC KC 8S 8C " /* seat 3 */
    "QD 7D 8D 9D " /* seat 3 */
    "AC 9S 9C JC", /* seat 3 */
};

/* The same with the joker for the 2H: seat 0 discards 3H on trick 4 and
 * must follow the AH lead with the joker (AH beats it). */
static const struct deal split_joker = {
    3,
    {"2C 3D QS JK 3H KH QH JD KS 7D 7S 8S 9S",
     "QC 2D AS 5C 4H 7H 9H 4D 4S 8C 9C 8D TS",
     "4C AD 2S 6C 5H 8H TH 5D 5S TC JC 9D JS",
     "3C TD 3S 7C AH 6H JH 6D 6S KC AC QD KD"},
    NULL,
    "2C QC 4C 3C 2D AD TD 3D 2S 3S QS AS "
    "5C 6C 7C 3H " /* seat 3 */
    "AH JK 4H 5H " /* seat 3: the AH beats the joker */
    "6H KH 7H 8H QH 9H TH JH JD 4D 5D 6D KS 4S 5S 6S 7S TS JS KD "
    "TC KC 8S 8C QD 7D 8D 9D AC 9S 9C JC",
};

/*
 * "moon": seat 0 holds 2C and every spade but 2S. Seat 1 wins trick 1 with
 * AC, leads 2S to seat 0's AS, and seat 0 takes every other trick: all
 * hearts, the QS, TD and JD, twelve tricks of thirteen (a moon, no sun).
 */
static const struct deal moon = {
    3,
    {"2C 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
     "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2S",
     "2H 3H 4H 5H 6H 7H 8H 2D 3D 4D 5D 6D 7D",
     "9H TH JH QH KH AH 8D 9D TD JD QD KD AD"},
    NULL,
    "2C AC 2D 8D 2S 3D 9D AS",
};

/* The same, but seat 3 gives the TD to seat 1 on trick 1. */
static const struct deal moon_td_away = {
    3,
    {"2C 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
     "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2S",
     "2H 3H 4H 5H 6H 7H 8H 2D 3D 4D 5D 6D 7D",
     "9H TH JH QH KH AH 8D 9D TD JD QD KD AD"},
    NULL,
    "2C AC 2D TD 2S 3D 9D AS",
};

/* Seat 3 holds the AS and gives it to seat 1 on trick 1; seat 0 takes all
 * hearts, QS and KS: a moon only where the AS is worth nothing. */
static const struct deal moon_as_away = {
    3,
    {"2C 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AD",
     "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2S",
     "2H 3H 4H 5H 6H 7H 8H 2D 3D 4D 5D 6D 7D",
     "9H TH JH QH KH AH 8D 9D TD JD QD KD AS"},
    NULL,
    "2C AC 2D AS 2S 3D 8D KS",
};

/* Seat 0 takes every trick (the sun): its AC wins the 2C lead and it leads
 * spades to the end. */
static const struct deal sun = {
    3,
    {"AC 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
     "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2S",
     "2H 3H 4H 5H 6H 7H 8H 2D 3D 4D 5D 6D 7D",
     "9H TH JH QH KH AH 8D 9D TD JD QD KD AD"},
    NULL,
    "",
};

/* Seat 2 (seat 0's partner) takes the 2H on trick 1, seat 0 everything
 * else from trick 2: their team has all the penalty cards, neither alone. */
static const struct deal team_moon = {
    3,
    {"2C 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
     "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
     "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2S",
     "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"},
    NULL,
    "2C 2D AC 2H 2S 3H AS 3D",
};

/* Hearts may be led (hearts_lead=any): seat 1 takes the QS on trick 1 and
 * leads the 2H to seat 0, who takes all thirteen hearts. */
static const struct deal hearts_only = {
    3,
    {"2C 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
     "2H 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
     "QS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
     "AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS"},
    NULL,
    "2C AC QS AD 2H 2D 2S AH",
};

/* Deals a deal under the rules text, sets the totals, plays. */
static void run(struct engine_game *g, struct engine_rules *r, const char *text,
                const struct deal *d, const int *before)
{
    int n = 0;
    while (n < ENGINE_MAX_PLAYERS && d->hands[n])
        n++;
    sc_rules(r, text, n);
    sc_start(g, r, d->dealer, d->hands, d->rest);
    if (before)
        for (int s = 0; s < n; s++)
            g->totals[s] = before[s];
    sc_plays(g, d->tricks);
    sc_play_out(g);
}

static void expect_winners(const struct engine_game *g, const char *seats)
{
    char got[64] = "";
    size_t pos = 0;
    for (int i = 0; i < g->nwinners; i++)
        pos += (size_t)snprintf(got + pos, sizeof got - pos, "%s%d",
                                i ? " " : "", g->winners[i]);
    if (strcmp(got, seats) != 0)
        fail_msg("winners: want [%s] got [%s]", seats, got);
}

/* ---- Card values ------------------------------------------------------ */

static void test_score_hand_split_deal_takes(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    run(&g, &r, "standard pass_count=0", &split, NULL);
    assert_int_equal(g.taken[0].one, sc_set("6H KH 7H 8H QH 9H TH JH JD 4D "
                                            "5D 6D KS 4S 5S 6S"));
    assert_int_equal(g.taken[1].one, sc_set("2C QC 4C 3C 2S 3S QS AS"));
    assert_int_equal(g.taken[2].one, sc_set("2D AD TD 3D 7S TS JS KD"));
    assert_int_equal(g.taken[3].one,
                     sc_set("5C 6C 7C 2H AH 3H 4H 5H TC KC 8S 8C QD 7D 8D "
                            "9D AC 9S 9C JC"));
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
    assert_int_equal(g.moon_applied, ENGINE_MOON_OFF);
}

/* Every card-value option on the split deal. */
static void test_score_hand_card_values(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int points[4];
    } rows[] = {
        /* hearts 1, QS 13 */
        {"standard", {8, 13, 0, 5}},
        {"party", {8, 13, 0, 5}},
        {"black-lady", {8, 13, 0, 5}},
        /* qs_points: 0 in basic, any value */
        {"basic", {8, 0, 0, 5}},
        {"standard qs_points=0", {8, 0, 0, 5}},
        {"standard qs_points=20", {8, 20, 0, 5}},
        {"basic qs_points=13", {8, 13, 0, 5}},
        /* heart_points=spot, ace_spot_value 14 and 1 */
        {"spot", {76, 0, 0, 28}},
        {"spot ace_spot_value=14", {76, 0, 0, 28}},
        {"spot ace_spot_value=1", {76, 0, 0, 15}},
        {"standard heart_points=spot", {76, 13, 0, 28}},
        /* card_points: Greek QH 50 replaces the spot 12; Black Maria */
        {"greek target=1000", {114, 13, 0, 28}},
        {"standard card_points=QH:50", {57, 13, 0, 5}},
        {"black-maria", {18, 20, 0, 5}},
        {"black-maria card_points=AS:5", {18, 18, 0, 5}},
        {"black-maria card_points=KS:0,AS:0", {8, 13, 0, 5}},
        {"standard card_points=QS:5", {8, 5, 0, 5}},
        /* bonus card: TD or JD, bonus_points */
        {"omnibus", {8, 13, -10, 5}},
        {"tens", {8, 13, -10, 5}},
        {"omnibus bonus_card=JD", {-2, 13, 0, 5}},
        {"modern", {-2, 13, 0, 5}},
        {"omnibus bonus_points=-4", {8, 13, -4, 5}},
        {"standard bonus_card=none", {8, 13, 0, 5}},
        /* match_pairs: JH-JD and 6H-6D for seat 0, QS-QC for seat 1 */
        {"standard match_pairs=on", {6, 0, 0, 5}},
        {"omnibus match_pairs=on", {6, 0, -10, 5}},
        /* the bonus diamond pairs with its heart and scores nothing */
        {"omnibus bonus_card=JD match_pairs=on", {6, 0, 0, 5}},
        {"spot match_pairs=on", {76 - 11 - 6, 0, 0, 28}},
        /* no moon in this deal: every moon mode scores the cards */
        {"standard moon=subtract", {8, 13, 0, 5}},
        {"standard moon=add_others", {8, 13, 0, 5}},
        {"standard moon=add_unless_loses", {8, 13, 0, 5}},
        {"standard moon=off", {8, 13, 0, 5}},
        {"standard sun=on", {8, 13, 0, 5}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s pass_count=0", rows[i].rules);
        struct engine_rules r;
        struct engine_game g;
        print_message("%s\n", text);
        run(&g, &r, text, &split, NULL);
        sc_points(&g, rows[i].points);
        sc_totals(&g, rows[i].points);
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
        assert_int_equal(g.moon_applied, ENGINE_MOON_OFF);
    }
}

static void test_score_hand_joker_counts_five(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    run(&g, &r, "joker", &split_joker, NULL);
    assert_true(g.taken[3].one & ENGINE_BIT(ENGINE_JOKER));
    sc_points(&g, (int[]){8, 0, 0, 9});
    run(&g, &r, "joker card_points=JK:3", &split_joker, NULL);
    sc_points(&g, (int[]){8, 0, 0, 7});
    run(&g, &r, "joker qs_points=13", &split_joker, NULL);
    sc_points(&g, (int[]){8, 13, 0, 9});
}

/* ---- The moon --------------------------------------------------------- */

static void test_score_hand_moon_modes(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        const struct deal *deal;
        int answer; /* for a pending choice, else NO_MOON */
        int points[4];
        int applied; /* moon_applied */
    } rows[] = {
        {"standard moon=subtract",
         &moon,
         NO_MOON,
         {-26, 0, 0, 0},
         ENGINE_MOON_SUBTRACT},
        {"standard moon=add_others",
         &moon,
         NO_MOON,
         {0, 26, 26, 26},
         ENGINE_MOON_ADD_OTHERS},
        {"standard moon=off", &moon, NO_MOON, {26, 0, 0, 0}, ENGINE_MOON_OFF},
        {"standard",
         &moon,
         ENGINE_MOON_SUBTRACT,
         {-26, 0, 0, 0},
         ENGINE_MOON_SUBTRACT},
        {"standard",
         &moon,
         ENGINE_MOON_ADD_OTHERS,
         {0, 26, 26, 26},
         ENGINE_MOON_ADD_OTHERS},
        {"standard moon=add_unless_loses",
         &moon,
         NO_MOON,
         {0, 26, 26, 26},
         ENGINE_MOON_ADD_OTHERS},
        {"party", &moon, NO_MOON, {-26, 0, 0, 0}, ENGINE_MOON_SUBTRACT},
        /* moon_points */
        {"standard moon=subtract moon_points=30",
         &moon,
         NO_MOON,
         {-30, 0, 0, 0},
         ENGINE_MOON_SUBTRACT},
        {"standard moon_points=40",
         &moon,
         ENGINE_MOON_ADD_OTHERS,
         {0, 40, 40, 40},
         ENGINE_MOON_ADD_OTHERS},
        /* Greek: the shooter 0, the others 150 */
        {"greek target=1000",
         &moon,
         NO_MOON,
         {0, 150, 150, 150},
         ENGINE_MOON_ADD_OTHERS},
        {"greek moon=subtract target=1000",
         &moon,
         NO_MOON,
         {-150, 0, 0, 0},
         ENGINE_MOON_SUBTRACT},
        /* the moon's cards: the QS counts only where it scores */
        {"basic hearts_lead=any moon=subtract",
         &hearts_only,
         NO_MOON,
         {-26, 0, 0, 0},
         ENGINE_MOON_SUBTRACT},
        {"standard hearts_lead=any moon=subtract",
         &hearts_only,
         NO_MOON,
         {13, 13, 0, 0},
         ENGINE_MOON_OFF},
        {"basic hearts_lead=any",
         &hearts_only,
         NO_MOON,
         {13, 0, 0, 0},
         ENGINE_MOON_OFF},
        /* Black Maria with a moon: KS and AS are moon cards too */
        {"black-maria moon=subtract",
         &moon,
         NO_MOON,
         {-26, 0, 0, 0},
         ENGINE_MOON_SUBTRACT},
        {"black-maria moon=subtract",
         &moon_as_away,
         NO_MOON,
         {36, 7, 0, 0},
         ENGINE_MOON_OFF},
        {"standard moon=subtract",
         &moon_as_away,
         NO_MOON,
         {-26, 0, 0, 0},
         ENGINE_MOON_SUBTRACT},
        /* a moon that is not a sun */
        {"standard moon=subtract sun=on",
         &moon,
         NO_MOON,
         {-26, 0, 0, 0},
         ENGINE_MOON_SUBTRACT},
        /* matching pairs never undo a moon */
        {"standard moon=subtract match_pairs=on",
         &moon,
         NO_MOON,
         {-26, 0, 0, 0},
         ENGINE_MOON_SUBTRACT},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s pass_count=0", rows[i].rules);
        print_message("%s\n", text);
        struct engine_rules r;
        struct engine_game g;
        run(&g, &r, text, rows[i].deal, NULL);
        if (rows[i].answer != NO_MOON) {
            assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
            assert_int_equal(engine_turn(&g), 0);
            sc_moon(&g, rows[i].answer);
        }
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
        sc_points(&g, rows[i].points);
        sc_totals(&g, rows[i].points);
        assert_int_equal(g.moon_applied, rows[i].applied);
    }
}

/* The bonus card in a moon hand: moon_keeps_bonus on (000, 003: -36) and
 * off (002 Omnibus: exactly -26, the card counts for nobody when the
 * shooter holds it, for its taker otherwise). */
static void test_score_hand_moon_with_the_bonus_card(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        const struct deal *deal;
        int answer;
        int points[4];
    } rows[] = {
        {"omnibus moon=subtract", &moon, NO_MOON, {-36, 0, 0, 0}},
        {"omnibus moon=add_others", &moon, NO_MOON, {-10, 26, 26, 26}},
        {"omnibus", &moon, ENGINE_MOON_SUBTRACT, {-36, 0, 0, 0}},
        /* 000: "10 points are deducted from the score of the player who
         * took the Jack of Diamonds (who may be the same player as the
         * shooter)" */
        {"omnibus bonus_card=JD",
         &moon,
         ENGINE_MOON_ADD_OTHERS,
         {-10, 26, 26, 26}},
        {"modern", &moon, NO_MOON, {-36, 0, 0, 0}},
        {"omnibus moon=subtract moon_keeps_bonus=off",
         &moon,
         NO_MOON,
         {-26, 0, 0, 0}},
        {"omnibus moon=add_others moon_keeps_bonus=off",
         &moon,
         NO_MOON,
         {0, 26, 26, 26}},
        {"omnibus moon_keeps_bonus=off",
         &moon,
         ENGINE_MOON_SUBTRACT,
         {-26, 0, 0, 0}},
        {"omnibus moon=off", &moon, NO_MOON, {16, 0, 0, 0}},
        /* another player took the bonus card: it counts for them */
        {"omnibus moon=subtract", &moon_td_away, NO_MOON, {-26, -10, 0, 0}},
        {"omnibus moon=subtract moon_keeps_bonus=off",
         &moon_td_away,
         NO_MOON,
         {-26, -10, 0, 0}},
        {"omnibus moon=add_others", &moon_td_away, NO_MOON, {0, 16, 26, 26}},
        {"omnibus moon=add_others moon_keeps_bonus=off",
         &moon_td_away,
         NO_MOON,
         {0, 16, 26, 26}},
        /* a bonus card worth plus points is never a moon card: the shooter
         * who took it keeps it (or not, moon_keeps_bonus=off) ... */
        {"omnibus bonus_points=5 moon=subtract",
         &moon,
         NO_MOON,
         {-21, 0, 0, 0}},
        {"omnibus bonus_points=5 moon=subtract moon_keeps_bonus=off",
         &moon,
         NO_MOON,
         {-26, 0, 0, 0}},
        {"omnibus bonus_points=5 moon=add_others",
         &moon,
         NO_MOON,
         {5, 26, 26, 26}},
        /* ... and a moon is not missed when another seat took it */
        {"omnibus bonus_points=5 moon=subtract",
         &moon_td_away,
         NO_MOON,
         {-26, 5, 0, 0}},
        {"omnibus bonus_points=5 moon=add_others",
         &moon_td_away,
         NO_MOON,
         {0, 31, 26, 26}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s pass_count=0", rows[i].rules);
        print_message("%s\n", text);
        struct engine_rules r;
        struct engine_game g;
        run(&g, &r, text, rows[i].deal, NULL);
        if (rows[i].answer != NO_MOON)
            sc_moon(&g, rows[i].answer);
        sc_points(&g, rows[i].points);
    }
}

/* A negative card that is not the bonus card follows the moon mode in a
 * moon hand, for the shooter and for the others alike (variants.md). */
static void test_score_hand_moon_negative_cards(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        const struct deal *deal;
        int points[4];
    } rows[] = {
        /* seat 1 took the TD worth -3: under subtract it scores 0 */
        {"standard card_points=TD:-3 moon=subtract",
         &moon_td_away,
         {-26, 0, 0, 0}},
        {"standard card_points=TD:-3 moon=add_others",
         &moon_td_away,
         {0, 26, 26, 26}},
        /* the shooter took the JD worth -3, or the QS worth -5: exactly
         * minus moon_points, whatever moon_keeps_bonus says */
        {"standard card_points=JD:-3 moon=subtract", &moon, {-26, 0, 0, 0}},
        {"standard card_points=JD:-3 moon=subtract moon_keeps_bonus=off",
         &moon,
         {-26, 0, 0, 0}},
        {"standard qs_points=-5 moon=subtract", &moon, {-26, 0, 0, 0}},
        {"standard qs_points=-5 moon=add_others", &moon, {0, 26, 26, 26}},
        /* with the bonus card beside it, only the bonus card counts */
        {"omnibus card_points=JD:-3 moon=subtract", &moon, {-36, 0, 0, 0}},
        {"omnibus card_points=JD:-3 moon=subtract",
         &moon_td_away,
         {-26, -10, 0, 0}},
        /* no moon: the values count as they are */
        {"standard card_points=TD:-3 moon=off", &moon_td_away, {26, -3, 0, 0}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s pass_count=0", rows[i].rules);
        print_message("%s\n", text);
        struct engine_rules r;
        struct engine_game g;
        run(&g, &r, text, rows[i].deal, NULL);
        sc_points(&g, rows[i].points);
    }
}

static void test_score_hand_moon_choice_is_pending(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    sc_rules(&r, "standard pass_count=0", 4);
    sc_start(&g, &r, moon.dealer, moon.hands, NULL);
    sc_plays(&g, moon.tricks);
    /* play out with events */
    const struct engine_sink *sink = sc_sink(&ev);
    while (engine_phase(&g) == ENGINE_PHASE_PLAY) {
        uint64_t l = engine_legal_plays(&g);
        assert_int_equal(engine_play(&g, __builtin_ctzll(l), sink, NULL),
                         ENGINE_OK);
    }
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
    assert_int_equal(engine_turn(&g), 0);
    assert_int_equal(engine_legal_plays(&g), 0);
    assert_int_equal(sc_count(&ev, ENGINE_EV_MOON_PENDING), 1);
    assert_int_equal(sc_count(&ev, ENGINE_EV_HAND_SCORED), 0);
    assert_true(engine_may_act(&g, 0));
    assert_false(engine_may_act(&g, 1));

    /* only the shooter answers, only add or subtract, nothing else now */
    struct engine_game before = g;
    struct engine_action a = {
        .kind = ENGINE_ACT_MOON, .seat = 1, .moon = ENGINE_MOON_SUBTRACT};
    assert_int_equal(engine_act(&g, &a, NULL, NULL), ENGINE_REFUSE_NOT_SHOOTER);
    a.seat = 0;
    a.moon = ENGINE_MOON_ADD_UNLESS_LOSES;
    assert_int_equal(engine_act(&g, &a, NULL, NULL),
                     ENGINE_REFUSE_BAD_MOON_CHOICE);
    a.moon = ENGINE_MOON_OFF;
    assert_int_equal(engine_act(&g, &a, NULL, NULL),
                     ENGINE_REFUSE_BAD_MOON_CHOICE);
    assert_int_equal(engine_play(&g, ENGINE_2C, NULL, NULL),
                     ENGINE_REFUSE_WRONG_PHASE);
    assert_memory_equal(&g, &before, sizeof g);

    a.moon = ENGINE_MOON_ADD_OTHERS;
    assert_int_equal(engine_act(&g, &a, sink, NULL), ENGINE_OK);
    sc_points(&g, (int[]){0, 26, 26, 26});
    assert_int_equal(sc_count(&ev, ENGINE_EV_MOON), 1);
    assert_int_equal(sc_count(&ev, ENGINE_EV_HAND_SCORED), 1);
    for (int i = 0; i < ev.n; i++) {
        if (ev.ev[i].kind == ENGINE_EV_MOON) {
            assert_int_equal(ev.ev[i].seat, 0);
            assert_int_equal(ev.ev[i].value, ENGINE_MOON_ADD_OTHERS);
            assert_int_equal(ev.ev[i].card, 0);
        }
    }
    /* the moon is answered once */
    assert_int_equal(engine_act(&g, &a, NULL, NULL), ENGINE_REFUSE_WRONG_PHASE);
}

/*
 * engine_moon_default, the decided rule: the option that wins beats the
 * one that plays on, which beats the one that loses; then the smaller gap
 * to the best other total; then subtract.
 */
static void test_moon_default_decided_rule(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        const struct deal *deal;
        int before[4];
        int want;
    } rows[] = {
        /* both play on, equal gaps: subtract */
        {"standard", &moon, {0, 0, 0, 0}, ENGINE_MOON_SUBTRACT},
        /* adding ends the game with seat 1 winning: subtract plays on */
        {"standard", &moon, {90, 50, 80, 70}, ENGINE_MOON_SUBTRACT},
        /* adding ends the game with the shooter winning */
        {"standard", &moon, {50, 80, 90, 60}, ENGINE_MOON_ADD_OTHERS},
        {"standard", &moon, {10, 95, 20, 20}, ENGINE_MOON_ADD_OTHERS},
        /* a shared win is a win */
        {"standard tie=share", &moon, {76, 50, 80, 70}, ENGINE_MOON_ADD_OTHERS},
        /* the sun doubles what adding gives: 52 ends it, 26 would not */
        {"standard sun=on", &sun, {50, 60, 60, 60}, ENGINE_MOON_ADD_OTHERS},
        {"standard sun=on moon_points=10",
         &sun,
         {50, 60, 60, 60},
         ENGINE_MOON_SUBTRACT},
        /* a reset the addition causes: seat 1 at 74+26 drops to 0, so
         * adding plays on with a worse gap than subtracting */
        {"standard exact_target_reset=zero",
         &moon,
         {10, 74, 60, 60},
         ENGINE_MOON_SUBTRACT},
        /* with a hand limit both modes end the game, and both lose here
         * by the same gap: subtract */
        {"standard hands=1", &moon, {40, 10, 50, 50}, ENGINE_MOON_SUBTRACT},
        /* partners under individual_score: the shooter's side is its
         * team */
        {"partners partners=individual_score",
         &moon,
         {60, 80, 50, 30},
         ENGINE_MOON_ADD_OTHERS},
        {"standard", &moon, {60, 80, 50, 30}, ENGINE_MOON_SUBTRACT},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s pass_count=0", rows[i].rules);
        print_message("%s\n", text);
        struct engine_rules r;
        struct engine_game g;
        run(&g, &r, text, rows[i].deal, rows[i].before);
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
        if (engine_moon_default(&g) != rows[i].want)
            fail_msg("%s: default %d, want %d", text, engine_moon_default(&g),
                     rows[i].want);
        /* the default does not answer: the choice still waits */
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
        sc_moon(&g, engine_moon_default(&g));
        /* outside the MOON phase it is subtract */
        assert_int_equal(engine_moon_default(&g), ENGINE_MOON_SUBTRACT);
    }
}

/* add_unless_loses (000): the others +26 unless that ends the game with
 * someone other than the shooter winning; then the shooter -26. */
static void test_score_hand_moon_add_unless_loses(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int before[4];
        int points[4];
        int totals[4];
        int phase;
        const char *winners;
    } rows[] = {
        {"standard",
         {0, 0, 0, 0},
         {0, 26, 26, 26},
         {0, 26, 26, 26},
         ENGINE_PHASE_DEAL,
         ""},
        /* adding would make seat 1 win at 76 */
        {"standard",
         {90, 50, 80, 70},
         {-26, 0, 0, 0},
         {64, 50, 80, 70},
         ENGINE_PHASE_DEAL,
         ""},
        /* adding ends it with the shooter winning */
        {"standard",
         {50, 80, 90, 60},
         {0, 26, 26, 26},
         {50, 106, 116, 86},
         ENGINE_PHASE_GAME_OVER,
         "0"},
        /* a win shared with another seat counts as someone else
         * winning: the shooter subtracts */
        {"standard tie=share",
         {76, 50, 80, 70},
         {-26, 0, 0, 0},
         {50, 50, 80, 70},
         ENGINE_PHASE_DEAL,
         ""},
        /* a tie played on is not a loss either */
        {"standard",
         {76, 50, 80, 70},
         {0, 26, 26, 26},
         {76, 76, 106, 96},
         ENGINE_PHASE_DEAL,
         ""},
        /* with partners the shooter's team counts: 60+76 beats 106+56 */
        {"partners partners=individual_score",
         {60, 80, 50, 30},
         {0, 26, 26, 26},
         {60, 106, 76, 56},
         ENGINE_PHASE_GAME_OVER,
         "0 2"},
        {"standard",
         {60, 80, 50, 30},
         {-26, 0, 0, 0},
         {34, 80, 50, 30},
         ENGINE_PHASE_DEAL,
         ""},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s moon=add_unless_loses pass_count=0",
                 rows[i].rules);
        print_message("%s\n", text);
        struct engine_rules r;
        struct engine_game g;
        run(&g, &r, text, &moon, rows[i].before);
        assert_int_equal(engine_phase(&g), rows[i].phase);
        sc_points(&g, rows[i].points);
        sc_totals(&g, rows[i].totals);
        expect_winners(&g, rows[i].winners);
    }
}

/* The sun: every trick, scored like the moon with twice moon_points. */
static void test_score_hand_sun(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int answer;
        int points[4];
    } rows[] = {
        {"standard sun=on moon=subtract", NO_MOON, {-52, 0, 0, 0}},
        {"standard sun=on moon=add_others", NO_MOON, {0, 52, 52, 52}},
        {"standard sun=on", ENGINE_MOON_SUBTRACT, {-52, 0, 0, 0}},
        {"standard sun=on", ENGINE_MOON_ADD_OTHERS, {0, 52, 52, 52}},
        {"standard sun=on moon=subtract moon_points=30",
         NO_MOON,
         {-60, 0, 0, 0}},
        /* without the sun, taking every trick is a moon */
        {"standard moon=subtract", NO_MOON, {-26, 0, 0, 0}},
        {"standard sun=off", ENGINE_MOON_SUBTRACT, {-26, 0, 0, 0}},
        /* the sun keeps the bonus card like the moon */
        {"omnibus sun=on moon=subtract", NO_MOON, {-62, 0, 0, 0}},
        {"omnibus sun=on moon=subtract moon_keeps_bonus=off",
         NO_MOON,
         {-52, 0, 0, 0}},
        /* matching every pair away undoes neither */
        {"standard sun=on moon=subtract match_pairs=on",
         NO_MOON,
         {-52, 0, 0, 0}},
        {"standard moon=subtract match_pairs=on", NO_MOON, {-26, 0, 0, 0}},
        {"standard moon=off match_pairs=on", NO_MOON, {0, 0, 0, 0}},
        {"standard moon=off", NO_MOON, {26, 0, 0, 0}},
        {"spot moon=subtract sun=on first_lead=two_clubs",
         NO_MOON,
         {-52, 0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s pass_count=0", rows[i].rules);
        print_message("%s\n", text);
        struct engine_rules r;
        struct engine_game g;
        struct sc_events ev;
        sc_rules(&r, text, 4);
        sc_start(&g, &r, sun.dealer, sun.hands, NULL);
        const struct engine_sink *sink = sc_sink(&ev);
        while (engine_phase(&g) == ENGINE_PHASE_PLAY) {
            uint64_t l = engine_legal_plays(&g);
            assert_int_equal(engine_play(&g, __builtin_ctzll(l), sink, NULL),
                             ENGINE_OK);
        }
        assert_int_equal(g.tricks[0], 13);
        if (rows[i].answer != NO_MOON) {
            assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
            assert_int_equal(g.moon_sun, r.sun);
            for (int k = 0; k < ev.n; k++)
                if (ev.ev[k].kind == ENGINE_EV_MOON_PENDING)
                    assert_int_equal(ev.ev[k].value, r.sun);
            struct engine_action a = {.kind = ENGINE_ACT_MOON,
                                      .seat = 0,
                                      .moon = (uint8_t)rows[i].answer};
            assert_int_equal(engine_act(&g, &a, sink, NULL), ENGINE_OK);
        }
        sc_points(&g, rows[i].points);
        int moons = 0;
        for (int k = 0; k < ev.n; k++) {
            if (ev.ev[k].kind == ENGINE_EV_MOON) {
                moons++;
                assert_int_equal(ev.ev[k].card, r.sun ? 1 : 0);
            }
        }
        assert_int_equal(moons, r.moon != ENGINE_MOON_OFF);
    }
}

/* ---- Partnerships ----------------------------------------------------- */

static void test_score_hand_partners(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        const struct deal *deal;
        int answer;
        int before[4];
        int points[4];
        int totals[4];
        int phase;
        const char *winners;
    } rows[] = {
        /* team_score: partners pool their tricks, both carry the score */
        {"partners",
         &split,
         NO_MOON,
         {0},
         {8, 18, 8, 18},
         {8, 18, 8, 18},
         ENGINE_PHASE_DEAL,
         ""},
        {"partners",
         &split,
         NO_MOON,
         {92, 40, 92, 40},
         {8, 18, 8, 18},
         {100, 58, 100, 58},
         ENGINE_PHASE_GAME_OVER,
         "1 3"},
        /* individual_score: each alone; at the end partners add up: 000's
         * example, 105 + 34 beats 78 + 69 */
        {"partners partners=individual_score",
         &split,
         NO_MOON,
         {97, 65, 34, 64},
         {8, 13, 0, 5},
         {105, 78, 34, 69},
         ENGINE_PHASE_GAME_OVER,
         "0 2"},
        {"partners partners=individual_score",
         &split,
         NO_MOON,
         {0},
         {8, 13, 0, 5},
         {8, 13, 0, 5},
         ENGINE_PHASE_DEAL,
         ""},
        {"standard",
         &split,
         NO_MOON,
         {97, 65, 34, 64},
         {8, 13, 0, 5},
         {105, 78, 34, 69},
         ENGINE_PHASE_GAME_OVER,
         "2"},
        /* a team that takes all the penalty cards shoots as a team; the
         * partner who won more tricks (seat 0) answers */
        {"partners",
         &team_moon,
         ENGINE_MOON_SUBTRACT,
         {0},
         {-26, 0, -26, 0},
         {-26, 0, -26, 0},
         ENGINE_PHASE_DEAL,
         ""},
        {"partners",
         &team_moon,
         ENGINE_MOON_ADD_OTHERS,
         {0},
         {0, 26, 0, 26},
         {0, 26, 0, 26},
         ENGINE_PHASE_DEAL,
         ""},
        {"partners moon=subtract",
         &team_moon,
         NO_MOON,
         {0},
         {-26, 0, -26, 0},
         {-26, 0, -26, 0},
         ENGINE_PHASE_DEAL,
         ""},
        /* alone, neither shot */
        {"partners partners=individual_score moon=subtract",
         &team_moon,
         NO_MOON,
         {0},
         {25, 0, 1, 0},
         {25, 0, 1, 0},
         ENGINE_PHASE_DEAL,
         ""},
        {"standard moon=subtract",
         &team_moon,
         NO_MOON,
         {0},
         {25, 0, 1, 0},
         {25, 0, 1, 0},
         ENGINE_PHASE_DEAL,
         ""},
        /* a shooter alone under individual_score */
        {"partners partners=individual_score moon=subtract",
         &moon,
         NO_MOON,
         {0},
         {-26, 0, 0, 0},
         {-26, 0, 0, 0},
         ENGINE_PHASE_DEAL,
         ""},
        /* a team's moon ending the game: the team wins */
        {"partners moon=add_others",
         &team_moon,
         NO_MOON,
         {60, 80, 60, 80},
         {0, 26, 0, 26},
         {60, 106, 60, 106},
         ENGINE_PHASE_GAME_OVER,
         "0 2"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s pass_count=0", rows[i].rules);
        print_message("%s\n", text);
        struct engine_rules r;
        struct engine_game g;
        run(&g, &r, text, rows[i].deal, rows[i].before);
        if (rows[i].answer != NO_MOON) {
            assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
            assert_int_equal(engine_turn(&g), 0);
            sc_moon(&g, rows[i].answer);
        }
        assert_int_equal(engine_phase(&g), rows[i].phase);
        sc_points(&g, rows[i].points);
        sc_totals(&g, rows[i].totals);
        expect_winners(&g, rows[i].winners);
    }
}

/* ---- The end of the game ---------------------------------------------- */

static void test_score_hand_end_of_game(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int before[4];
        int totals[4];
        int phase;
        const char *winners;
    } rows[] = {
        /* target: reached at or over */
        {"standard", {91, 0, 0, 0}, {99, 13, 0, 5}, ENGINE_PHASE_DEAL, ""},
        {"standard",
         {92, 0, 0, 0},
         {100, 13, 0, 5},
         ENGINE_PHASE_GAME_OVER,
         "2"},
        {"standard target=50",
         {42, 0, 0, 0},
         {50, 13, 0, 5},
         ENGINE_PHASE_GAME_OVER,
         "2"},
        {"standard target=51",
         {42, 0, 0, 0},
         {50, 13, 0, 5},
         ENGINE_PHASE_DEAL,
         ""},
        {"standard target=13",
         {0, 0, 0, 0},
         {8, 13, 0, 5},
         ENGINE_PHASE_GAME_OVER,
         "2"},
        /* hands: the agreed number of deals */
        {"standard hands=1",
         {0, 0, 0, 0},
         {8, 13, 0, 5},
         ENGINE_PHASE_GAME_OVER,
         "2"},
        {"standard hands=2",
         {0, 0, 0, 0},
         {8, 13, 0, 5},
         ENGINE_PHASE_DEAL,
         ""},
        {"standard hands=1",
         {0, 0, 10, 0},
         {8, 13, 10, 5},
         ENGINE_PHASE_GAME_OVER,
         "3"},
        /* tie: share ends it with every lowest total winning */
        {"standard tie=share",
         {92, 0, 5, 0},
         {100, 13, 5, 5},
         ENGINE_PHASE_GAME_OVER,
         "2 3"},
        {"standard tie=play_on",
         {92, 0, 5, 0},
         {100, 13, 5, 5},
         ENGINE_PHASE_DEAL,
         ""},
        {"standard hands=1 tie=share",
         {0, 0, 5, 0},
         {8, 13, 5, 5},
         ENGINE_PHASE_GAME_OVER,
         "2 3"},
        {"standard hands=1",
         {0, 0, 5, 0},
         {8, 13, 5, 5},
         ENGINE_PHASE_DEAL,
         ""},
        /* exact_target_reset: the total drops, the end test uses it */
        {"standard",
         {92, 50, 40, 0},
         {100, 63, 40, 5},
         ENGINE_PHASE_GAME_OVER,
         "3"},
        {"standard exact_target_reset=half",
         {92, 50, 40, 0},
         {50, 63, 40, 5},
         ENGINE_PHASE_DEAL,
         ""},
        {"standard exact_target_reset=zero",
         {92, 50, 40, 0},
         {0, 63, 40, 5},
         ENGINE_PHASE_DEAL,
         ""},
        /* half rounds down */
        {"standard exact_target_reset=half target=99",
         {91, 50, 40, 0},
         {49, 63, 40, 5},
         ENGINE_PHASE_DEAL,
         ""},
        /* over the target is no reset */
        {"standard exact_target_reset=half",
         {93, 50, 40, 0},
         {101, 63, 40, 5},
         ENGINE_PHASE_GAME_OVER,
         "3"},
        {"standard exact_target_reset=zero",
         {92, 87, 40, 0},
         {0, 0, 40, 5},
         ENGINE_PHASE_DEAL,
         ""},
        /* seat 0 resets to 0 as seat 1 ends the game: seat 0 wins */
        {"standard exact_target_reset=zero",
         {92, 90, 40, 0},
         {0, 103, 40, 5},
         ENGINE_PHASE_GAME_OVER,
         "0"},
        {"standard exact_target_reset=half",
         {92, 90, 40, 60},
         {50, 103, 40, 65},
         ENGINE_PHASE_GAME_OVER,
         "2"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s pass_count=0", rows[i].rules);
        print_message("%s\n", text);
        struct engine_rules r;
        struct engine_game g;
        struct sc_events ev;
        sc_rules(&r, text, 4);
        sc_start(&g, &r, split.dealer, split.hands, NULL);
        for (int s = 0; s < 4; s++)
            g.totals[s] = rows[i].before[s];
        sc_plays(&g, split.tricks);
        /* the hand's points stay as scored, whatever the reset did */
        sc_points(&g, (int[]){8, 13, 0, 5});
        sc_totals(&g, rows[i].totals);
        assert_int_equal(engine_phase(&g), rows[i].phase);
        expect_winners(&g, rows[i].winners);
        if (rows[i].phase == ENGINE_PHASE_GAME_OVER) {
            assert_int_equal(engine_deal(&g, sc_sink(&ev)), -1);
            assert_int_equal(ev.n, 0);
        }
    }
}

/* Every game ends: after 1,000 hands, whatever the totals, the lowest
 * total wins and a tie is shared, even under tie=play_on. The split deal
 * scores {8, 13, 0, 5}. */
static void test_score_hand_game_ends_after_1000_hands(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int hand_no;
        int before[4];
        int phase;
        const char *winners;
    } rows[] = {
        {"standard", 999, {0, 0, 0, 0}, ENGINE_PHASE_DEAL, ""},
        {"standard", 1000, {0, 0, 0, 0}, ENGINE_PHASE_GAME_OVER, "2"},
        {"standard", 1000, {0, 0, 8, 0}, ENGINE_PHASE_GAME_OVER, "3"},
        {"standard", 1000, {0, 0, 5, 0}, ENGINE_PHASE_GAME_OVER, "2 3"},
        {"standard tie=share",
         1000,
         {0, 0, 5, 0},
         ENGINE_PHASE_GAME_OVER,
         "2 3"},
        {"partners", 1000, {0, 0, 0, 0}, ENGINE_PHASE_GAME_OVER, "0 2"},
        {"standard hands=1000", 999, {0, 0, 0, 0}, ENGINE_PHASE_DEAL, ""},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s pass_count=0", rows[i].rules);
        print_message("%s hand %d\n", text, rows[i].hand_no);
        struct engine_rules r;
        struct engine_game g;
        sc_rules(&r, text, 4);
        sc_start(&g, &r, split.dealer, split.hands, NULL);
        g.hand_no = rows[i].hand_no;
        for (int s = 0; s < 4; s++)
            g.totals[s] = rows[i].before[s];
        sc_plays(&g, split.tricks);
        assert_int_equal(engine_phase(&g), rows[i].phase);
        expect_winners(&g, rows[i].winners);
    }
}

/* tie=play_on: extra hands until there is a clear winner. */
static void test_score_hand_tie_plays_on(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard pass_count=0", 4);
    sc_start(&g, &r, split.dealer, split.hands, NULL);
    int before[4] = {92, 0, 5, 0};
    for (int s = 0; s < 4; s++)
        g.totals[s] = before[s];
    sc_plays(&g, split.tricks);
    sc_totals(&g, (int[]){100, 13, 5, 5});
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
    assert_int_equal(g.nwinners, 0);
    /* the same deal again: 108, 26, 5, 10 and seat 2 wins alone */
    sc_deal(&g, split.dealer, split.hands, NULL);
    assert_int_equal(g.hand_no, 2);
    sc_plays(&g, split.tricks);
    sc_totals(&g, (int[]){108, 26, 5, 10});
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_GAME_OVER);
    expect_winners(&g, "2");

    /* the same with a hand limit: hands=1 reached, still a tie */
    sc_rules(&r, "standard pass_count=0 hands=1", 4);
    sc_start(&g, &r, split.dealer, split.hands, NULL);
    g.totals[2] = 5;
    sc_plays(&g, split.tricks);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
    sc_deal(&g, split.dealer, split.hands, NULL);
    sc_plays(&g, split.tricks);
    sc_totals(&g, (int[]){16, 26, 5, 10});
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_GAME_OVER);
    expect_winners(&g, "2");
}

/* Totals accumulate over hands; moon hands included. */
static void test_score_hand_totals_accumulate(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "omnibus pass_count=0 moon=subtract", 4);
    sc_start(&g, &r, split.dealer, split.hands, NULL);
    sc_plays(&g, split.tricks);
    sc_totals(&g, (int[]){8, 13, -10, 5});
    sc_deal(&g, moon.dealer, moon.hands, NULL);
    sc_plays(&g, moon.tricks);
    sc_play_out(&g);
    sc_points(&g, (int[]){-36, 0, 0, 0});
    sc_totals(&g, (int[]){-28, 13, -10, 5});
    sc_deal(&g, split.dealer, split.hands, NULL);
    sc_plays(&g, split.tricks);
    sc_totals(&g, (int[]){-20, 26, -20, 10});
    assert_int_equal(g.hand_no, 3);
}

/* ---- Other deals: domino, cancellation, widow, kitty ------------------ */

/* Domino: seat 2 draws the whole stock on trick 2 and is the last one in;
 * it scores the hearts in its hand (8) as well as in its tricks. */
static void test_score_hand_domino_last_player_takes_hand(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    sc_rules(&r, "domino", 3);
    const char *hands[3] = {"AS KS JS TS 9S 8S", "2S 3S 4S 5S 6S 7S",
                            "QS 2H 3H 4H 5H 6H"};
    sc_start(&g, &r, 2, hands, NULL);
    assert_int_equal(engine_turn(&g), 0);
    const struct engine_sink *sink = sc_sink(&ev);
    static const char *const plays[] = {"AS", "2S", "QS", "KS", "3S", "2H",
                                        "JS", "4S", "3H", "TS", "5S", "4H",
                                        "9S", "6S", "5H", "8S", "7S", "6H"};
    for (size_t i = 0; i < sizeof plays / sizeof plays[0]; i++) {
        int c;
        assert_int_equal(engine_card_parse(plays[i], 2, &c), 0);
        if (engine_play(&g, c, sink, NULL))
            fail_msg("domino: %s refused", plays[i]);
    }
    assert_int_equal(sc_count(&ev, ENGINE_EV_DRAWN), 34);
    assert_int_equal(sc_count(&ev, ENGINE_EV_OUT), 2);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
    sc_points(&g, (int[]){5, 0, 8});
    assert_int_equal(g.hand[2].one, 0);
}

/* Domino: the stock nobody drew when one player is left is dead. */
static void test_score_hand_domino_dead_stock(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "domino hearts_lead=any", 3);
    const char *hands[3] = {"AH KH QH AS KS QS", "2H 3H 4H 2S 3S 4S",
                            "2C 3C 4C 5C 6C 7C"};
    sc_start(&g, &r, 2, hands,
             "5H 5S 6H 6S 7H 7S 8C 9C TC JC QC KC AC 2D 3D 4D 5D 6D 7D 8D "
             "9D TD JD QD KD AD 8H 9H TH JH 8S 9S TS JS");
    sc_plays(&g, "AH 2H 5H " /* seat 2 draws 5H */
                 "KH 3H 6H " /* draws 5S, 6H */
                 "QH 4H 7H " /* draws 6S, 7H */
                 "AS 2S 5S KS 3S 6S "
                 "QS 4S 7S"); /* draws 7S */
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
    assert_int_equal(g.rest_pos, 6);
    /* 8H 9H TH JH stayed in the stock: 9 of 13 hearts scored */
    sc_points(&g, (int[]){9, 0, 0});
}

/*
 * Domino with the moon and the sun switched on: seat 0 wins every trick
 * (the sun) while seat 2, last in, holds every heart drawn from the stock
 * (a moon by the letter of the rule). Decided: the sun goes to the seat
 * that took every trick, and seat 2's hearts follow the moon mode like
 * every other card (variants.md): 0 under subtract, not 13.
 */
static void test_score_hand_domino_sun_beats_last_players_moon(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int points[3];
    } rows[] = {
        {"domino moon=subtract sun=on", {-52, 0, 0}},
        {"domino moon=add_others sun=on target=1000", {0, 52, 52}},
        /* without the sun, seat 2 holds every penalty card: a moon */
        {"domino moon=subtract", {0, 0, -26}},
        {"domino", {0, 0, 13}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        print_message("%s\n", rows[i].rules);
        struct engine_rules r;
        struct engine_game g;
        sc_rules(&r, rows[i].rules, 3);
        const char *hands[3] = {"AS KS JS TS 9S 8S", "2S 3S 4S 5S 6S 7S",
                                "QS 2C 3C 4C 5C 6C"};
        sc_start(&g, &r, 2, hands, NULL);
        sc_plays(&g, "AS 2S QS KS 3S 2C JS 4S 3C TS 5S 4C 9S 6S 5C 8S 7S 6C");
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
        assert_int_equal(g.tricks[0], 6);
        sc_points(&g, rows[i].points);
    }
}

static const char *const cancel_hands[6] = {
    "AS AS KS KS QS QS JS JS TS TS 9S 9S 8S 8S 7S 7S 2C",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 6S 6S 5S 4S",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 3S 2S 4C 4C",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 5C 5C 6C 6C",
    "2C 7C 7C 8C 8C 9C 9C TC TC JC JC QC QC KC KC AC AC",
};

/*
 * Cancellation, six players, dealer 0: seat 2 wins trick 1 with the AD
 * (and the kitty); on trick 2 the two 2S cancel and seat 0's 7S wins; seat
 * 0 then takes every trick with spades it holds both copies of. The moon
 * is all the penalty cards of both decks (52 in the preset).
 */
static void test_score_hand_cancellation_moon(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    static const struct {
        const char *rules;
        const char *trick1;
        int answer;
        int points[6];
    } rows[] = {
        /* seat 3 discards a 2H to seat 2: one copy missing, no moon */
        {"cancellation", "2D AD 2H 5C 7C 2C", NO_MOON, {51, 0, 1, 0, 0, 0}},
        {"cancellation moon=subtract",
         "2D AD 2H 5C 7C 2C",
         NO_MOON,
         {51, 0, 1, 0, 0, 0}},
        /* no heart on trick 1: seat 0 takes both decks' penalty cards */
        {"cancellation",
         "2D AD 4C 5C 7C 2C",
         ENGINE_MOON_SUBTRACT,
         {-52, 0, 0, 0, 0, 0}},
        {"cancellation moon=add_others",
         "2D AD 4C 5C 7C 2C",
         NO_MOON,
         {0, 52, 52, 52, 52, 52}},
        {"cancellation moon=subtract moon_points=26",
         "2D AD 4C 5C 7C 2C",
         NO_MOON,
         {-26, 0, 0, 0, 0, 0}},
        {"cancellation moon=off",
         "2D AD 4C 5C 7C 2C",
         NO_MOON,
         {52, 0, 0, 0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        print_message("%s\n", rows[i].rules);
        sc_rules(&r, rows[i].rules, 6);
        sc_start(&g, &r, 0, cancel_hands, "3C 3C");
        assert_int_equal(engine_turn(&g), 1);
        sc_plays(&g, rows[i].trick1);
        assert_int_equal(g.rest_taker, 2);
        sc_plays(&g, "4S 2S 6C 8C 7S 2S");
        assert_int_equal(g.leader, 0);
        sc_play_out(&g);
        assert_int_equal(g.tricks[0], 16);
        if (rows[i].answer != NO_MOON) {
            assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
            assert_int_equal(engine_turn(&g), 0);
            sc_moon(&g, rows[i].answer);
        }
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
        sc_points(&g, rows[i].points);
    }
}

/*
 * Plays out a hand: a leader plays its lowest legal card not in `keep`, a
 * follower its lowest card of the suit led, or if void its highest legal
 * card not in `keep` (a kept card only when nothing else is legal).
 */
static void play_out_keeping(struct engine_game *g, uint64_t keep,
                             const struct engine_sink *sink)
{
    for (int guard = 0; guard < 200 && engine_phase(g) == ENGINE_PHASE_PLAY;
         guard++) {
        uint64_t l = engine_legal_plays(g);
        uint64_t pick = l & ~keep ? l & ~keep : l;
        int card;
        if (g->trick_len == 0) {
            card = __builtin_ctzll(pick);
        } else {
            uint64_t led = ENGINE_SUIT_MASK(engine_card_suit(g->trick[0])) & l;
            card = led ? __builtin_ctzll(led) : 63 - __builtin_clzll(pick);
        }
        if (engine_play(g, card, sink, NULL))
            fail_msg("play_out_keeping: %s refused", engine_card_name(card));
    }
}

/* Cancellation (002): "If the last trick of the deal is cancelled out,
 * the cards are dead and not scored." Seat 0 keeps one AH and seat 4 the
 * other to the last trick; nobody else holds a heart by then. */
static void test_score_hand_cancellation_dead_last_trick(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    const char *hands[6] = {
        "AS AS KS KS QS QS JS JS TS TS 9S 9S 8S 8S 7S 7S AH",
        "2S 2S 3S 3S 4S 3C 3C 4C 4C 5C 5C 6C 6C 7C 7C 8C 8C",
        "4S 5S 5S 6S 6S 9C 9C TC TC JC JC QC QC KC KC AC AC",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2H 3H 4H 5H",
        "AH 2D 3D 4D 5D 6D 7D 8D 2H 3H 4H 5H 6H 7H 8H 9H TH",
        "9D TD JD QD KD AD 6H 7H 8H 9H TH JH QH KH JH QH KH",
    };
    static const char *const rules[] = {"cancellation",
                                        "cancellation moon=subtract"};
    for (size_t i = 0; i < 2; i++) {
        sc_rules(&r, rules[i], 6);
        sc_start(&g, &r, 5, hands, "2C 2C");
        assert_int_equal(engine_turn(&g), 0);
        play_out_keeping(&g, ENGINE_BIT(ENGINE_CARD(ENGINE_HEARTS, 12)),
                         sc_sink(&ev));
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
        assert_int_equal(g.trick_no, 17);
        assert_int_equal(g.tricks[0], 16);
        /* the last trick went to nobody */
        int last = -1;
        for (int k = 0; k < ev.n; k++)
            if (ev.ev[k].kind == ENGINE_EV_TRICK)
                last = k;
        assert_true(last >= 0);
        assert_int_equal(ev.ev[last].seat, ENGINE_NO_SEAT);
        assert_int_equal(ev.ev[last].cards2,
                         ENGINE_BIT(ENGINE_CARD(ENGINE_HEARTS, 12)));
        /* 24 hearts and two QS: 50, the two AH dead; no moon */
        sc_points(&g, (int[]){50, 0, 0, 0, 0, 0});
        assert_int_equal(g.moon_applied, ENGINE_MOON_OFF);
    }
}

/* Heartsette: the winner of the first trick takes the widow (AH KH QH) and
 * scores its penalty cards. */
static void test_score_hand_widow_goes_to_first_trick(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "heartsette", 4);
    const char *hands[4] = {"2C 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
                            "AC 3S 2D 3D 4D 5D 6D 7D 8D 9D TD JD", NULL, NULL};
    sc_start(&g, &r, 3, hands, "AH KH QH");
    /* seats 2 and 3 were filled ascending: 3C..KC QD, KD AD 2H..JH */
    assert_int_equal(g.hand[3].one, sc_set("KD AD 2H 3H 4H 5H 6H 7H 8H 9H "
                                           "TH JH"));
    sc_plays(&g, "2C AC 3C KD");
    assert_int_equal(g.rest_taker, 1);
    sc_plays(&g, "3S 4C AD 4S");
    sc_play_out(&g);
    sc_points(&g, (int[]){10, 3, 0, 0});
}

/*
 * The kitty of three players (one card, the AH): to the first trick's
 * winner (kitty, faceup_leftover), or to the first to take a penalty card
 * (kitty_first_point). Seat 1 wins trick 1 without points; seat 0 takes a
 * heart on trick 2 and every trick after.
 */
static void test_score_hand_kitty_owner(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int taker;
        int points[3];
    } rows[] = {
        {"standard odd_cards=kitty moon=off", 1, {25, 1, 0}},
        {"standard odd_cards=faceup_leftover moon=off", 1, {25, 1, 0}},
        {"standard odd_cards=kitty_first_point moon=off", 0, {26, 0, 0}},
        /* the AH completes seat 0's moon only when seat 0 gets it */
        {"standard odd_cards=kitty_first_point moon=subtract", 0, {-26, 0, 0}},
        {"standard odd_cards=kitty moon=subtract", 1, {25, 1, 0}},
    };
    const char *hands[3] = {
        "2C JD QD KD AD 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "AC 2S 2D 3D 4D 5D 6D 7D 8D 9D TD 3C 4C 5C 6C 7C 8C",
        "9C TC JC QC KC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s pass_count=0", rows[i].rules);
        print_message("%s\n", text);
        struct engine_rules r;
        struct engine_game g;
        sc_rules(&r, text, 3);
        sc_start(&g, &r, 2, hands, "AH");
        sc_plays(&g, "2C AC 9C");
        sc_plays(&g, "2S 2H 3S");
        assert_int_equal(g.rest_taker, rows[i].taker);
        sc_play_out(&g);
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
        sc_points(&g, rows[i].points);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score_hand_split_deal_takes),
        cmocka_unit_test(test_score_hand_card_values),
        cmocka_unit_test(test_score_hand_joker_counts_five),
        cmocka_unit_test(test_score_hand_moon_modes),
        cmocka_unit_test(test_score_hand_moon_with_the_bonus_card),
        cmocka_unit_test(test_score_hand_moon_negative_cards),
        cmocka_unit_test(test_score_hand_moon_choice_is_pending),
        cmocka_unit_test(test_moon_default_decided_rule),
        cmocka_unit_test(test_score_hand_moon_add_unless_loses),
        cmocka_unit_test(test_score_hand_sun),
        cmocka_unit_test(test_score_hand_partners),
        cmocka_unit_test(test_score_hand_end_of_game),
        cmocka_unit_test(test_score_hand_game_ends_after_1000_hands),
        cmocka_unit_test(test_score_hand_tie_plays_on),
        cmocka_unit_test(test_score_hand_totals_accumulate),
        cmocka_unit_test(test_score_hand_domino_last_player_takes_hand),
        cmocka_unit_test(test_score_hand_domino_dead_stock),
        cmocka_unit_test(test_score_hand_domino_sun_beats_last_players_moon),
        cmocka_unit_test(test_score_hand_cancellation_moon),
        cmocka_unit_test(test_score_hand_cancellation_dead_last_trick),
        cmocka_unit_test(test_score_hand_widow_goes_to_first_trick),
        cmocka_unit_test(test_score_hand_kitty_owner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
