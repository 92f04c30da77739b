/*
 * Tests of engine/view.c: a seat's view holds its own hand and the public
 * history, never another seat's cards: not their hands, not the face-down
 * kitty, widow or discard in someone else's tricks, not the cards passed
 * to it before it has passed, not what it passed on blind. Legal plays
 * only at the seat's own turn; face-up leftovers for everyone.
 */
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const d1[4] = {
    "2C 3C 4C 5C 6C 2D 3D 4D 5D 2S 3S 4S 2H",
    "6D 7D 8D 9D TD JD QS 3H 4H 5H 6H 7H 8H",
    "7C 8C 9C TC JC QC KC AC 5S 6S 7S 8S 9H",
    "QD KD AD 9S TS JS KS AS TH JH QH KH AH",
};

static const char *const k3[3] = {
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D",
    "6D 7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH TS JS QS KS AS",
};

static const char *const widow3[3] = {
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D",
    "5D 6D 7D 8D 9D TD JD QD KD AD 3S 4S 5S 6S 7S 8S",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH 9S TS JS QS KS AS",
};

static uint64_t set_of(const uint8_t *cards, int n)
{
    uint64_t m = 0;
    for (int i = 0; i < n; i++)
        m |= ENGINE_BIT(cards[i]);
    return m;
}

/* Every card of other seats' hands that the view shows anywhere private. */
static void assert_no_other_hand(const struct engine_game *g,
                                 const struct engine_view *v)
{
    uint64_t mine = v->hand.one;
    for (int t = 0; t < g->n; t++) {
        if (t == v->seat)
            continue;
        uint64_t theirs = engine_hand(g, t).one & ~mine;
        if (theirs & (v->hand.one | v->legal | v->rest_seen))
            fail_msg("seat %d sees seat %d's [%s]", v->seat, t,
                     sc_fmt(theirs & (v->hand.one | v->legal)));
    }
}

static void test_view_make_own_hand_and_legal_at_own_turn(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard pass_count=0", 4);
    sc_start(&g, &r, 3, d1, NULL);
    sc_plays(&g, "2C 6D");
    for (int s = 0; s < 4; s++) {
        struct engine_view v;
        engine_view_make(&g, s, &v);
        assert_int_equal(v.seat, s);
        assert_int_equal(v.n, 4);
        assert_int_equal(v.phase, ENGINE_PHASE_PLAY);
        assert_int_equal(v.dealer, 3);
        assert_int_equal(v.hand.one, engine_hand(&g, s).one);
        assert_no_other_hand(&g, &v);
        /* the legal cards at its own turn only */
        if (s == engine_turn(&g)) {
            assert_int_equal(v.legal, sc_set("7C 8C 9C TC JC QC KC AC"));
            assert_int_equal(v.legal, engine_legal_plays(&g));
        } else {
            assert_int_equal(v.legal, 0);
        }
        /* the public part */
        assert_int_equal(v.trick_len, 2);
        assert_int_equal(v.trick[0], ENGINE_2C);
        assert_int_equal(v.trick_seat[1], 1);
        assert_int_equal(v.leader, 0);
        assert_int_equal(v.played.one, sc_set("2C 6D"));
        assert_int_equal(v.nplays, 2);
        assert_int_equal(v.void_suits[1], 1u << ENGINE_CLUBS);
        for (int t = 0; t < 4; t++)
            assert_int_equal(v.cards_left[t], t < 2 ? 12 : 13);
        assert_int_equal(v.faceup, 0);
        assert_int_equal(v.rest_seen, 0);
        assert_int_equal(v.npassed, 0);
        assert_int_equal(v.nreceived, 0);
    }
}

/*
 * The rest in a taker's tricks: face down (kitty, kitty_first_point,
 * widow), only the taker sees it, and its points are not shown to the
 * others; face up (faceup_leftover, 001), everyone does, from the deal
 * on.
 */
static void test_view_make_hides_face_down_rest(void **state)
{
    (void)state;
    const struct {
        const char *rules;
        const char *const *hands;
        const char *rest;
        const char *plays;
        int taker;
        const char *trick_cards; /* what the taker won in tricks */
        int trick_points;
        bool faceup;
    } rows[] = {
        {"standard pass_count=0 odd_cards=kitty", k3, "AH", "2C 9S TS", 0,
         "2C 9S TS", 0, false},
        {"standard pass_count=0 odd_cards=kitty_first_point", k3, "AH",
         "2C 9S TS 2D 6D KH", 1, "2D 6D KH", 1, false},
        {"heartsette", widow3, "QH KH AH", "2C 3S 9S", 0, "2C 3S 9S", 0, false},
        {"standard pass_count=0 odd_cards=faceup_leftover", k3, "AH",
         "2C 9S TS", 0, "2C 9S TS", 0, true},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        sc_rules(&r, rows[i].rules, 3);
        engine_game_init(&g, &r, 1, 2);
        sc_deal(&g, 2, rows[i].hands, rows[i].rest);
        uint64_t rest = sc_set(rows[i].rest);
        /* before the first trick: face-up cards are seen by all */
        for (int s = 0; s < 3; s++) {
            struct engine_view v;
            engine_view_make(&g, s, &v);
            assert_int_equal(v.faceup, rows[i].faceup ? rest : 0);
            assert_int_equal(v.rest_seen, 0);
        }
        sc_plays(&g, rows[i].plays);
        int w = rows[i].taker;
        assert_int_equal(g.rest_taker, w);
        uint64_t won = sc_set(rows[i].trick_cards);
        for (int s = 0; s < 3; s++) {
            struct engine_view v;
            engine_view_make(&g, s, &v);
            bool sees = s == w || rows[i].faceup;
            uint64_t want = won | (sees ? rest : 0);
            if (v.taken[w].one != want)
                fail_msg("row %zu: seat %d sees seat %d took [%s], want "
                         "[%s]",
                         i, s, w, sc_fmt(v.taken[w].one), sc_fmt(want));
            assert_int_equal(v.rest_seen, s == w ? rest : 0);
            assert_int_equal(v.faceup, rows[i].faceup ? rest : 0);
            /* the points shown: the tricks', and the rest's only face up */
            int pts = rows[i].trick_points;
            for (int c = 0; c < 64 && rows[i].faceup; c++)
                if (rest >> c & 1)
                    pts += engine_card_points(&r, c);
            if (s != w || rows[i].faceup)
                assert_int_equal(v.hand_points[w], pts);
            assert_no_other_hand(&g, &v);
        }
    }
}

/* kitty_exchange: the taker's discard is face down in its tricks. */
static void test_view_make_hides_kitty_exchange_discard(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard pass_count=0 odd_cards=kitty_exchange", 3);
    engine_game_init(&g, &r, 1, 2);
    sc_deal(&g, 2, k3, "AH");
    sc_plays(&g, "2C 9S TS");
    for (int s = 0; s < 3; s++) {
        struct engine_view v;
        engine_view_make(&g, s, &v);
        assert_int_equal(v.phase, ENGINE_PHASE_DISCARD);
        /* only the taker is asked, and only it holds the kitty */
        assert_int_equal(v.discard_count, s == 0 ? 1 : 0);
        assert_int_equal(v.rest_seen, s == 0 ? sc_set("AH") : 0);
        assert_int_equal((v.hand.one & sc_set("AH")) != 0, s == 0);
        assert_int_equal(v.legal, 0);
        assert_no_other_hand(&g, &v);
    }
    sc_discard(&g, "KC");
    for (int s = 0; s < 3; s++) {
        struct engine_view v;
        engine_view_make(&g, s, &v);
        uint64_t want = sc_set("2C 9S TS") | (s == 0 ? sc_set("KC") : 0);
        if (v.taken[0].one != want)
            fail_msg("seat %d sees seat 0 took [%s], want [%s]", s,
                     sc_fmt(v.taken[0].one), sc_fmt(want));
        assert_int_equal(v.cards_left[0], 16);
    }
}

/* Passing: a seat sees its own choice, and what it receives only after
 * everyone has chosen. */
static void test_view_make_pass_private_until_exchange(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard", 4);
    sc_start(&g, &r, 0, d1, NULL);
    sc_pass(&g, 0, "2C 3C 4C");
    struct engine_view v;
    engine_view_make(&g, 0, &v);
    assert_int_equal(v.npassed, 3);
    assert_int_equal(set_of(v.passed, 3), sc_set("2C 3C 4C"));
    assert_int_equal(v.pass_count, 0);
    assert_int_equal(v.nreceived, 0);
    engine_view_make(&g, 1, &v);
    assert_int_equal(v.phase, ENGINE_PHASE_PASS);
    assert_int_equal(v.pass_count, 3);
    assert_int_equal(v.pass_dir, ENGINE_PASS_LEFT);
    assert_int_equal(v.pass_target, 2);
    assert_false(v.blind_allowed);
    assert_int_equal(v.npassed, 0);
    assert_int_equal(v.nreceived, 0);
    assert_int_equal(v.hand.one, sc_set(d1[1]));
    assert_int_equal(v.legal, 0);
    sc_pass(&g, 1, "6D 7D 8D");
    sc_pass(&g, 2, "7C 8C 9C");
    engine_view_make(&g, 1, &v);
    assert_int_equal(v.nreceived, 0);
    assert_false(v.hand.one & sc_set("2C 3C 4C"));
    sc_pass(&g, 3, "QD KD AD");
    engine_view_make(&g, 1, &v);
    assert_int_equal(v.nreceived, 3);
    assert_int_equal(set_of(v.received, 3), sc_set("2C 3C 4C"));
    assert_int_equal(v.npassed, 3);
    assert_int_equal(set_of(v.passed, 3), sc_set("6D 7D 8D"));
    assert_int_equal(v.hand.one, (sc_set(d1[1]) & ~sc_set("6D 7D 8D")) |
                                     sc_set("2C 3C 4C"));
}

/* pass_blind: the cards a blind seat passes on are passed unseen, so its
 * view does not show them. */
static void test_view_make_blind_seat_sees_nothing_passed_on(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard pass_blind=on", 4);
    sc_start(&g, &r, 0, d1, NULL);
    struct engine_view v;
    engine_view_make(&g, 1, &v);
    assert_true(v.blind_allowed);
    sc_pass(&g, 0, "2C 3C 4C");
    sc_pass_blind(&g, 1);
    sc_pass(&g, 2, "7C 8C 9C");
    sc_pass(&g, 3, "QD KD AD");
    /* seat 0's cards went through seat 1 to seat 2 */
    uint8_t cards[ENGINE_MAX_ACT_CARDS];
    assert_int_equal(engine_passed_cards(&g, 1, cards), 3);
    engine_view_make(&g, 1, &v);
    assert_int_equal(v.npassed, 0);
    assert_int_equal(v.nreceived, 0);
    assert_int_equal(v.hand.one, sc_set(d1[1]));
    engine_view_make(&g, 2, &v);
    assert_int_equal(v.nreceived, 3);
    assert_int_equal(set_of(v.received, 3), sc_set("2C 3C 4C"));
}

/* Domino: the stock's size is public, drawn cards are the drawer's. */
static void test_view_make_domino_stock(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "domino", 4);
    const char *hands[4] = {"2C 3C 4C 5C 6C 2H", "2D 3D 4D 5D 6D 7D",
                            "7C 2S 3S 4S 5S 6S", "8C 9C TC 7S 8S 9S"};
    engine_game_init(&g, &r, 1, 3);
    sc_deal(&g, 3, hands,
            "3H 8D JC QC KC AC 9D TD JD QD KD AD 4H 5H 6H 7H 8H 9H TH JH "
            "QH KH AH TS JS QS KS AS");
    struct engine_view v;
    engine_view_make(&g, 2, &v);
    assert_int_equal(v.stock_left, 28);
    sc_play(&g, "2C");
    for (int s = 0; s < 4; s++) {
        engine_view_make(&g, s, &v);
        assert_int_equal(v.stock_left, 25);
        assert_int_equal(v.cards_left[1], 9);
        assert_int_equal((v.hand.one & sc_set("3H 8D JC")) != 0, s == 1);
        assert_int_equal(v.legal, s == 1 ? sc_set("JC") : 0);
        assert_no_other_hand(&g, &v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_make_own_hand_and_legal_at_own_turn),
        cmocka_unit_test(test_view_make_hides_face_down_rest),
        cmocka_unit_test(test_view_make_hides_kitty_exchange_discard),
        cmocka_unit_test(test_view_make_pass_private_until_exchange),
        cmocka_unit_test(test_view_make_blind_seat_sees_nothing_passed_on),
        cmocka_unit_test(test_view_make_domino_stock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
