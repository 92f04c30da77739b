/*
 * Tests of engine/game.c, table by table: the deal for every table size and
 * odd-cards rule, the pass in every direction (blind and scatter included),
 * the first lead, the legal plays and refusals under every play option,
 * trick resolution (ordinary, joker, cancellation), the stock variants and
 * what each preset changes in the play. Each row would fail if the option
 * it is about were ignored.
 */
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int bits64(uint64_t x)
{
    return __builtin_popcountll(x);
}

static int card_of(const char *text)
{
    int c;
    if (engine_card_parse(text, strlen(text), &c))
        fail_msg("test bug: '%s' is no card", text);
    return c;
}

static struct engine_action pass_action(int seat, const char *cards)
{
    struct engine_action a = {.kind = ENGINE_ACT_PASS, .seat = (uint8_t)seat};
    a.ncards = (uint8_t)sc_card_list(cards, a.cards, ENGINE_MAX_ACT_CARDS);
    return a;
}

/* The cards of a pass or receipt as a set. */
static uint64_t set_of(const uint8_t *cards, int n)
{
    uint64_t m = 0;
    for (int i = 0; i < n; i++)
        m |= ENGINE_BIT(cards[i]);
    return m;
}

/* Plays out the hand, answering a moon choice. */
static void finish_hand(struct engine_game *g)
{
    sc_play_out(g);
    if (engine_phase(g) == ENGINE_PHASE_MOON)
        sc_moon(g, ENGINE_MOON_SUBTRACT);
}

/* Plays out the hand and deals the next. */
static void next_hand(struct engine_game *g)
{
    finish_hand(g);
    assert_int_equal(engine_phase(g), ENGINE_PHASE_DEAL);
    assert_int_equal(engine_deal(g, NULL), 0);
}

/* Every seat passes its lowest cards; sent[s] gets them. */
static void pass_lowest(struct engine_game *g, uint8_t sent[][ENGINE_MAX_PASS])
{
    for (int s = 0; s < g->n; s++) {
        int k = engine_pass_count(g, s, NULL);
        struct engine_action a = {
            .kind = ENGINE_ACT_PASS, .seat = (uint8_t)s, .ncards = (uint8_t)k};
        uint64_t h = engine_hand(g, s).one;
        for (int i = 0; i < k; i++) {
            a.cards[i] = (uint8_t)__builtin_ctzll(h);
            h &= h - 1;
            if (sent)
                sent[s][i] = a.cards[i];
        }
        if (engine_act(g, &a, NULL, NULL))
            fail_msg("seat %d: pass of its lowest cards refused", s);
    }
}

/* ---- Deals used by several tables (4 players unless named) ------------- */

/* Seat 0 holds the 2C; seat 1 is void in clubs with the QS and hearts;
 * seat 2 holds the top clubs and one heart; seat 3 the top hearts. */
static const char *const d1[4] = {
    "2C 3C 4C 5C 6C 2D 3D 4D 5D 2S 3S 4S 2H",
    "6D 7D 8D 9D TD JD QS 3H 4H 5H 6H 7H 8H",
    "7C 8C 9C TC JC QC KC AC 5S 6S 7S 8S 9H",
    "QD KD AD 9S TS JS KS AS TH JH QH KH AH",
};

/* Seat 0 holds AS KS JS; seat 1 the QS with two small spades. */
static const char *const d2[4] = {
    "AS KS JS 2C 3C 4C 5C 6C 7C 8C 9C TC JC",
    "QS 2S 3S 2D 3D 4D 5D 6D 7D 8D 9D TD 2H",
    "4S 5S 6S 7S QC KC AC JD QD KD AD 3H 4H",
    "8S 9S TS 5H 6H 7H 8H 9H TH JH QH KH AH",
};

/* Seat 3 holds only penalty cards: the QS and twelve hearts. */
static const char *const d3[4] = {
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS 2H",
    "QS 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
};

/* d3 with the joker for the 2H (joker rules). */
static const char *const d3j[4] = {
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS JK",
    "QS 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
};

/* One suit per seat. */
static const char *const d5[4] = {
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
};

/* Joker rules: seat 1 holds the joker and low hearts, seat 3 TH up. */
static const char *const dj[4] = {
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "JK 3H 4H 5H 2D 3D 4D 5D 6D 7D 8D 9D TD",
    "6H 7H 8H 9H JD QD KD AD 2S 3S 4S 5S 6S",
    "TH JH QH KH AH 7S 8S 9S TS JS QS KS AS",
};

/* Three players, 17 cards each and one card left over (kitty rules). */
static const char *const k3[3] = {
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D",
    "6D 7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH TS JS QS KS AS",
};

/* Three players without the 2D (the remove rule). */
static const char *const r3[3] = {
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 3D 4D 5D 6D",
    "7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS",
    "JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
};

/* ---- The deal ----------------------------------------------------------- */

static void test_deal_given_hands_reach_their_seats(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "black-lady", 4);
    const char *hands[4] = {"2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", NULL,
                            NULL, NULL};
    sc_start(&g, &r, 3, hands, NULL);
    assert_int_equal(engine_hand(&g, 0).one,
                     sc_set("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"));
    assert_int_equal(engine_hand(&g, 1).one,
                     sc_set("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"));
    /* black-lady: no passing, the player left of the dealer leads */
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
    assert_int_equal(engine_turn(&g), 0);
}

/* A pack that is not exactly the rules' pack is refused, and the game is
 * left as it was. */
static void test_deal_given_refuses_a_wrong_pack(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard", 3); /* 51 cards: no 2D */
    engine_game_init(&g, &r, 1, 0);
    uint8_t pack[ENGINE_MAX_CARDS];
    memcpy(pack, r.deck, (size_t)r.deck_len);
    static const struct {
        int at;   /* where the pack is changed, or -1 */
        int card; /* the card put there */
        int len;  /* its length, 0: the rules' */
        int dealer;
        enum engine_error_code code;
        int n1;    /* the number it names */
        int named; /* the card it names */
    } rows[] = {
        {-1, 0, 50, 0, ENGINE_ERR_DEAL_LENGTH, 51, 0},
        {0, ENGINE_CARD(ENGINE_DIAMONDS, 0), 0, 0, ENGINE_ERR_DEAL_NOT_IN_PACK,
         0, ENGINE_CARD(ENGINE_DIAMONDS, 0)},
        {0, ENGINE_JOKER, 0, 0, ENGINE_ERR_DEAL_NOT_IN_PACK, 0, ENGINE_JOKER},
        {0, 13, 0, 0, ENGINE_ERR_DEAL_NOT_IN_PACK, 0, 13},
        {1, ENGINE_2C, 0, 0, ENGINE_ERR_DEAL_TWICE, 0, ENGINE_2C},
        {-1, 0, 0, 3, ENGINE_ERR_DEAL_DEALER, 3, 0},
        {-1, 0, 0, -1, ENGINE_ERR_DEAL_DEALER, -1, 0},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        uint8_t bad[ENGINE_MAX_CARDS];
        memcpy(bad, pack, sizeof bad);
        if (rows[i].at >= 0)
            bad[rows[i].at] = (uint8_t)rows[i].card;
        int len = rows[i].len ? rows[i].len : r.deck_len;
        struct engine_game before = g;
        struct engine_error e;
        assert_int_equal(
            engine_deal_given(&g, rows[i].dealer, bad, len, NULL, &e), -1);
        if (e.code != rows[i].code)
            fail_msg("row %zu: error %d (%s), not %d", i, (int)e.code,
                     sc_error(&e), (int)rows[i].code);
        assert_int_equal(e.n1, rows[i].n1);
        assert_int_equal(e.card, rows[i].named);
        if (e.code == ENGINE_ERR_DEAL_LENGTH)
            assert_int_equal(e.n2, 50);
        assert_memory_equal(&before, &g, sizeof g);
    }
    /* the right pack is taken; then neither deal works until the hand
     * is over */
    struct engine_error e;
    assert_int_equal(engine_deal_given(&g, 2, pack, r.deck_len, NULL, &e), 0);
    assert_int_equal(g.dealer, 2);
    assert_int_equal(engine_deal(&g, NULL), -1);
    assert_int_equal(engine_deal_given(&g, 2, pack, r.deck_len, NULL, &e), -1);
    assert_int_equal(e.code, ENGINE_ERR_DEAL_PHASE);
    /* pack[k] goes to seat (dealer + 1 + k) % n */
    assert_true(engine_hand(&g, 0).one & ENGINE_BIT(pack[0]));
    assert_true(engine_hand(&g, 1).one & ENGINE_BIT(pack[1]));
    assert_true(engine_hand(&g, 2).one & ENGINE_BIT(pack[2]));
    assert_true(engine_hand(&g, 0).one & ENGINE_BIT(pack[3]));
}

/*
 * players, decks, remove_table, odd_cards, joker and the stock variants:
 * the hand size, the rest, and exactly which cards are in the pack.
 */
static void test_deal_hand_sizes_and_pack(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int players;
        int decks;
        int hand;
        int rest;
        const char *absent; /* real cards not in the pack */
        const char *extra;  /* the joker, if in */
    } rows[] = {
        /* remove_table=momentpoint (003, 000) */
        {"standard", 3, 1, 17, 0, "2D", ""},
        {"standard", 4, 1, 13, 0, "", ""},
        {"standard", 5, 1, 10, 0, "2C 2D", ""},
        {"standard", 6, 1, 8, 0, "2C 2D 2S 3D", ""},
        {"standard", 7, 1, 7, 0, "2C 2D 2S", ""},
        /* remove_table=bigd (002) */
        {"standard remove_table=bigd", 3, 1, 17, 0, "2D", ""},
        {"standard remove_table=bigd", 5, 1, 10, 0, "2D 2S", ""},
        {"standard remove_table=bigd", 6, 1, 8, 0, "2C 2D 2S 3D", ""},
        {"standard remove_table=bigd", 7, 1, 7, 0, "2C 2D 2S", ""},
        /* remove_table=modern (004) */
        {"standard remove_table=modern", 3, 1, 17, 0, "2C", ""},
        {"standard remove_table=modern", 5, 1, 10, 0, "2C 2D", ""},
        {"standard remove_table=modern", 6, 1, 8, 0, "2C 3C 2D 3D", ""},
        {"modern", 4, 1, 13, 0, "", ""},
        /* odd_cards other than remove: deal evenly, the rest apart */
        {"standard odd_cards=kitty", 3, 1, 17, 1, "", ""},
        {"standard odd_cards=kitty_first_point", 5, 1, 10, 2, "", ""},
        {"standard odd_cards=kitty_exchange", 6, 1, 8, 4, "", ""},
        {"standard odd_cards=faceup_leftover", 7, 1, 7, 3, "", ""},
        {"standard odd_cards=kitty", 4, 1, 13, 0, "", ""},
        /* widow (002 Heartsette): 2S out for 3 and 4 players */
        {"heartsette", 3, 1, 16, 3, "2S", ""},
        {"heartsette", 4, 1, 12, 3, "2S", ""},
        {"heartsette", 5, 1, 10, 2, "", ""},
        {"heartsette", 6, 1, 8, 4, "", ""},
        /* joker: the JK replaces the 2H */
        {"joker", 4, 1, 13, 0, "2H", "JK"},
        {"joker", 3, 1, 17, 0, "2H 2D", "JK"},
        /* two decks: 6 to 10 players */
        {"cancellation", 6, 2, 17, 2, "", ""},
        {"cancellation", 7, 2, 14, 6, "", ""},
        {"cancellation", 8, 2, 13, 0, "", ""},
        {"cancellation", 9, 2, 11, 5, "", ""},
        {"cancellation", 10, 2, 10, 4, "", ""},
        {"cancellation odd_cards=remove", 8, 2, 13, 0, "", ""},
        /* stocks deal from the full pack */
        {"domino", 3, 1, 6, 34, "", ""},
        {"domino", 4, 1, 6, 28, "", ""},
        {"domino", 7, 1, 6, 10, "", ""},
        {"two-handed", 2, 1, 13, 26, "", ""},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        sc_rules(&r, rows[i].rules, rows[i].players);
        engine_game_init(&g, &r, 5 + i, 0);
        assert_int_equal(engine_deal(&g, NULL), 0);
        int count[64] = {0};
        for (int s = 0; s < rows[i].players; s++) {
            struct engine_cards h = engine_hand(&g, s);
            if (engine_cards_count(&h) != rows[i].hand)
                fail_msg("%s for %d: seat %d holds %d cards, want %d",
                         rows[i].rules, rows[i].players, s,
                         engine_cards_count(&h), rows[i].hand);
            for (int c = 0; c < 64; c++)
                count[c] += (int)(h.one >> c & 1) + (int)(h.two >> c & 1);
        }
        int len;
        const uint8_t *rest = engine_rest(&g, &len);
        if (len != rows[i].rest)
            fail_msg("%s for %d: rest of %d, want %d", rows[i].rules,
                     rows[i].players, len, rows[i].rest);
        for (int k = 0; k < len; k++)
            count[rest[k]]++;
        uint64_t pack = (ENGINE_ALL_CARDS & ~ENGINE_BIT(ENGINE_JOKER) &
                         ~sc_set(rows[i].absent)) |
                        sc_set(rows[i].extra);
        for (int c = 0; c < 64; c++) {
            int want = (pack >> c & 1) ? rows[i].decks : 0;
            if (count[c] != want)
                fail_msg("%s for %d: %s dealt %d times, want %d", rows[i].rules,
                         rows[i].players, engine_card_name(c), count[c], want);
        }
    }
}

/* Table sizes and decks the catalogue does not allow. */
static void test_rules_finish_refuses_table_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int players;
        enum engine_error_code code;
    } rows[] = {
        {"standard remove_table=modern", 7, ENGINE_ERR_MODERN_SEVEN},
        {"modern", 7, ENGINE_ERR_PRESET_PLAYERS},
        {"standard", 8, ENGINE_ERR_PRESET_PLAYERS},
        {"standard", 2, ENGINE_ERR_PRESET_PLAYERS},
        {"two-handed stock=off", 2, ENGINE_ERR_TWO_PLAYERS_STOCK},
        {"standard decks=2", 5, ENGINE_ERR_TWO_DECKS_PLAYERS},
        {"black-lady decks=2", 7, ENGINE_ERR_TWO_DECKS_DIVIDE},
        {"cancellation", 5, ENGINE_ERR_PRESET_PLAYERS},
        {"heartsette", 7, ENGINE_ERR_PRESET_PLAYERS},
        {"standard odd_cards=widow", 7, ENGINE_ERR_WIDOW_PLAYERS},
        {"two-handed", 3, ENGINE_ERR_PRESET_PLAYERS},
        {"cancellation joker=on", 8, ENGINE_ERR_JOKER_TWO_DECKS},
        {"domino odd_cards=kitty", 5, ENGINE_ERR_STOCK_KITTY},
        {"domino decks=2", 6, ENGINE_ERR_STOCK_TWO_DECKS},
    };
    for (size_t i = 0; i < COUNT(rows); i++)
        sc_rules_refused(rows[i].rules, rows[i].players, rows[i].code);
}

/* ---- The odd cards ------------------------------------------------------ */

/*
 * kitty, kitty_first_point and faceup_leftover (000, 001): who takes the
 * rest. Three players, dealer 2, the AH left over; seat 0 wins the first
 * trick (the only club), seat 1 the second (6D over 2D, KH thrown on it).
 */
static void test_odd_cards_rest_goes_to_its_taker(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        const char *plays;
        int taker; /* ENGINE_NO_SEAT: not taken yet */
        const char *taken[3];
        int points0; /* seat 0's public points so far */
    } rows[] = {
        /* the winner of the first trick takes the kitty */
        {"standard pass_count=0 odd_cards=kitty",
         "2C 9S TS",
         0,
         {"2C 9S TS AH", "", ""},
         0},
        {"standard pass_count=0 odd_cards=kitty",
         "2C 9S TS 2D 6D KH",
         0,
         {"2C 9S TS AH", "2D 6D KH", ""},
         0},
        /* the first player to take a penalty card takes it */
        {"standard pass_count=0 odd_cards=kitty_first_point",
         "2C 9S TS",
         ENGINE_NO_SEAT,
         {"2C 9S TS", "", ""},
         0},
        {"standard pass_count=0 odd_cards=kitty_first_point",
         "2C 9S TS 2D 6D KH",
         1,
         {"2C 9S TS", "2D 6D KH AH", ""},
         0},
        /* face up: as the kitty, and its points are public */
        {"standard pass_count=0 odd_cards=faceup_leftover",
         "2C 9S TS",
         0,
         {"2C 9S TS AH", "", ""},
         1},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        struct sc_events ev;
        sc_rules(&r, rows[i].rules, 3);
        engine_game_init(&g, &r, 1, 2);
        sc_deal(&g, 2, k3, "AH");
        int len;
        const uint8_t *rest = engine_rest(&g, &len);
        assert_int_equal(len, 1);
        assert_int_equal(rest[0], card_of("AH"));
        sc_plays_to(&g, rows[i].plays, sc_sink(&ev));
        for (int s = 0; s < 3; s++)
            sc_taken(&g, s, rows[i].taken[s]);
        const struct engine_event *e = sc_find(&ev, ENGINE_EV_REST_TAKEN, 0);
        if (rows[i].taker == ENGINE_NO_SEAT) {
            assert_null(e);
            assert_int_equal(g.rest_taker, ENGINE_NO_CARD);
        } else {
            assert_non_null(e);
            assert_int_equal(e->seat, rows[i].taker);
            assert_int_equal(e->cards, sc_set("AH"));
            assert_int_equal(g.rest_taker, rows[i].taker);
            assert_int_equal(sc_count(&ev, ENGINE_EV_REST_TAKEN), 1);
        }
        assert_int_equal(g.hand_points[0], rows[i].points0);
    }
}

/* kitty_first_point: a kitty no one earns is dead. Only the AH scores, and
 * it lies in the kitty. */
static void test_odd_cards_kitty_first_point_never_earned_is_dead(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r,
             "basic odd_cards=kitty_first_point card_points=2H:0,3H:0,4H:0,"
             "5H:0,6H:0,7H:0,8H:0,9H:0,TH:0,JH:0,QH:0,KH:0",
             3);
    assert_int_equal(r.penalty, sc_set("AH"));
    engine_game_init(&g, &r, 1, 2);
    sc_deal(&g, 2, k3, "AH");
    sc_play_out(&g);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
    assert_int_equal(g.rest_taker, ENGINE_NO_CARD);
    for (int s = 0; s < 3; s++)
        assert_false(g.taken[s].one & sc_set("AH"));
    static const int zero[3] = {0, 0, 0};
    sc_points(&g, zero);
}

/* kitty_exchange (000): the first trick's winner takes the kitty into
 * the hand, discards as many face down into the tricks, then leads. */
static void test_odd_cards_kitty_exchange_discard(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    sc_rules(&r, "standard pass_count=0 odd_cards=kitty_exchange", 3);
    engine_game_init(&g, &r, 1, 2);
    sc_deal(&g, 2, k3, "AH");
    sc_plays_to(&g, "2C 9S TS", sc_sink(&ev));
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DISCARD);
    assert_int_equal(engine_turn(&g), 0);
    assert_int_equal(engine_discard_count(&g), 1);
    assert_int_equal(engine_legal_plays(&g), 0);
    sc_hand(&g, 0, "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D AH");
    sc_taken(&g, 0, "2C 9S TS");
    assert_int_equal(sc_find(&ev, ENGINE_EV_REST_TAKEN, 0)->seat, 0);

    /* refusals: a play, the wrong count, a card not held, another seat */
    sc_refuse(&g, "AH", ENGINE_REFUSE_WRONG_PHASE);
    struct engine_action a = {.kind = ENGINE_ACT_DISCARD, .seat = 0};
    a.ncards = (uint8_t)sc_card_list("AH KC", a.cards, ENGINE_MAX_ACT_CARDS);
    struct engine_refusal_detail d =
        sc_act_refused(&g, &a, ENGINE_REFUSE_PASS_COUNT);
    assert_int_equal(d.count, 1);
    a.ncards = (uint8_t)sc_card_list("KS", a.cards, ENGINE_MAX_ACT_CARDS);
    d = sc_act_refused(&g, &a, ENGINE_REFUSE_NOT_IN_HAND);
    assert_int_equal(d.card, ENGINE_KS);
    a.seat = 1;
    a.ncards = (uint8_t)sc_card_list("AD", a.cards, ENGINE_MAX_ACT_CARDS);
    d = sc_act_refused(&g, &a, ENGINE_REFUSE_NOT_YOUR_TURN);
    assert_int_equal(d.seat, 0);

    /* the kitty card may stay in the hand: discard the KC instead */
    sc_discard(&g, "KC");
    sc_taken(&g, 0, "2C 9S TS KC");
    sc_hand(&g, 0, "3C 4C 5C 6C 7C 8C 9C TC JC QC AC 2D 3D 4D 5D AH");
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
    assert_int_equal(engine_turn(&g), 0);
    /* hearts are not broken: the AH from the kitty may not be led */
    sc_refuse(&g, "AH", ENGINE_REFUSE_HEARTS_NOT_BROKEN);
    sc_legal(&g, "3C 4C 5C 6C 7C 8C 9C TC JC QC AC 2D 3D 4D 5D");
    finish_hand(&g);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
    /* the discard counts in seat 0's tricks: 52 cards taken in all */
    int total = 0;
    for (int s = 0; s < 3; s++)
        total += engine_cards_count(&g.taken[s]);
    assert_int_equal(total, 52);
}

/* widow (002 Heartsette): 2S out, a widow of 3 for the first trick's
 * winner, who scores its penalty cards. */
static void test_odd_cards_widow_goes_to_first_trick_winner(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "heartsette", 3);
    const char *hands[3] = {
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D",
        "5D 6D 7D 8D 9D TD JD QD KD AD 3S 4S 5S 6S 7S 8S",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH 9S TS JS QS KS AS",
    };
    engine_game_init(&g, &r, 1, 2);
    sc_deal(&g, 2, hands, "QH KH AH");
    /* basic: no pass, the player left of the dealer leads */
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
    assert_int_equal(engine_turn(&g), 0);
    sc_plays(&g, "2C 3S 9S");
    sc_taken(&g, 0, "2C 3S 9S QH KH AH");
    assert_int_equal(g.rest_taker, 0);
    sc_play_out(&g);
    /* every heart scores, the widow's three included (basic: 1 each) */
    int sum = 0;
    for (int s = 0; s < 3; s++)
        sum += g.points[s];
    assert_int_equal(sum, 13);
    assert_true(g.points[0] >= 3);
}

/* ---- The lead to the first trick ---------------------------------------- */

#define CLUBS13 "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"

static void test_first_lead_who_and_what(void **state)
{
    (void)state;
    /* automatic: rows point into the shared deals */
    const struct {
        const char *rules;
        int players;
        int dealer;
        const char *hands[ENGINE_MAX_PLAYERS];
        const char *rest;
        int leader;
        const char *legal;
    } rows[] = {
        /* two_clubs: the 2C holder, not the player left of the dealer */
        {"standard pass_count=0",
         4,
         0,
         {d1[0], d1[1], d1[2], d1[3]},
         NULL,
         0,
         "2C"},
        /* the 3C lead of 004: modern takes the 2C out for 3 players */
        {"modern pass_count=0",
         3,
         0,
         {"4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D 6D 7D",
          "8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
          "3C 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS KS AS"},
         NULL,
         2,
         "3C"},
        /* momentpoint takes the 2C out for 5 players */
        {"standard pass_count=0",
         5,
         0,
         {"4C 5C 6C 7C 8C 9C TC JC QC KC", "AC 3D 4D 5D 6D 7D 8D 9D TD JD",
          "QD KD AD 2S 3S 4S 5S 6S 7S 8S", "3C 9S TS JS QS KS AS 2H 3H 4H",
          "5H 6H 7H 8H 9H TH JH QH KH AH"},
         NULL,
         3,
         "3C"},
        /* the 2C in a kitty (000): the 3C holder leads it */
        {"standard pass_count=0 odd_cards=kitty",
         3,
         0,
         {"4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D 6D 7D",
          "8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
          "3C 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS KS AS"},
         "2C",
         2,
         "3C"},
        /* 2C and 3C in the kitty: the 4C */
        {"standard pass_count=0 odd_cards=kitty",
         6,
         0,
         {"5C 6C 7C 8C 9C TC JC QC", "KC AC 4D 5D 6D 7D 8D 9D",
          "TD JD QD KD AD 2S 3S 4S", "4C 5S 6S 7S 8S 9S TS JS",
          "QS KS AS 2H 3H 4H 5H 6H", "7H 8H 9H TH JH QH KH AH"},
         "2C 3C 2D 3D",
         3,
         "4C"},
        /* first_left_with_clubs (001): the 2C face up; the first seat left
         * of the dealer with a club leads its lowest, though seat 0 holds
         * the 3C */
        {"tens pass_count=0",
         3,
         0,
         {"3C 4C 5C 6C 7C 8C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
          "9C TC JC QC KC AC KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS",
          "JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"},
         "2C",
         1,
         "9C"},
        /* the same deal under holder_of_lowest: the 3C */
        {"standard pass_count=0 odd_cards=faceup_leftover",
         3,
         0,
         {"3C 4C 5C 6C 7C 8C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
          "9C TC JC QC KC AC KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS",
          "JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"},
         "2C",
         0,
         "3C"},
        /* first_left_with_clubs skips a seat without clubs (seat 2) */
        {"tens pass_count=0",
         3,
         1,
         {"9C TC JC QC KC AC KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS",
          "3C 4C 5C 6C 7C 8C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
          "JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"},
         "2C",
         0,
         "9C"},
        /* left_of_dealer (002, 003): any card but a heart */
        {"black-lady",
         4,
         1,
         {d1[0], d1[1], d1[2], d1[3]},
         NULL,
         2,
         "7C 8C 9C TC JC QC KC AC 5S 6S 7S 8S"},
        {"black-lady",
         4,
         2,
         {d1[0], d1[1], d1[2], d1[3]},
         NULL,
         3,
         "QD KD AD 9S TS JS KS AS"},
        /* ... unless the leader holds only hearts */
        {"black-lady",
         4,
         2,
         {d5[0], d5[1], d5[2], d5[3]},
         NULL,
         3,
         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"},
        /* hearts_lead=any: a heart too */
        {"party pass_count=0",
         4,
         1,
         {d1[0], d1[1], d1[2], d1[3]},
         NULL,
         2,
         "7C 8C 9C TC JC QC KC AC 5S 6S 7S 8S 9H"},
        /* two decks, two 2C: the first holder clockwise from the dealer's
         * left */
        {"cancellation first_lead=two_clubs",
         8,
         3,
         {NULL, NULL, CLUBS13, NULL, NULL, NULL, CLUBS13, NULL},
         NULL,
         6,
         "2C"},
        {"cancellation first_lead=two_clubs",
         8,
         7,
         {NULL, NULL, CLUBS13, NULL, NULL, NULL, CLUBS13, NULL},
         NULL,
         2,
         "2C"},
        /* domino: no club in any hand, the player left of the dealer leads
         * any card */
        {"domino first_lead=two_clubs",
         4,
         0,
         {"2D 3D 4D 5D 6D 7D", "8D 9D TD JD QD KD", "2H 3H 4H 5H 6H 7H",
          "2S 3S 4S 5S 6S 7S"},
         NULL,
         1,
         "8D 9D TD JD QD KD"},
        /* domino: the 2C in the stock, the lowest club held leads */
        {"domino first_lead=two_clubs",
         4,
         0,
         {"2D 3D 4D 5D 6D 7D", "8D 9D TD JD QD KD", "5C 2H 3H 4H 5H 6H",
          "9C 2S 3S 4S 5S 6S"},
         NULL,
         2,
         "5C"},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        sc_rules(&r, rows[i].rules, rows[i].players);
        engine_game_init(&g, &r, 1, rows[i].dealer);
        sc_deal(&g, rows[i].dealer, rows[i].hands, rows[i].rest);
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
        if (engine_turn(&g) != rows[i].leader)
            fail_msg("row %zu (%s): seat %d leads, want %d", i, rows[i].rules,
                     engine_turn(&g), rows[i].leader);
        sc_legal(&g, rows[i].legal);
    }
}

/* The forced first lead is refused with the card to lead. */
static void test_first_lead_refusal_names_the_card(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard pass_count=0", 4);
    sc_start(&g, &r, 0, d1, NULL);
    struct engine_refusal_detail d =
        sc_refuse_detail(&g, "3C", ENGINE_REFUSE_MUST_LEAD_CARD);
    assert_int_equal(d.card, ENGINE_2C);

    sc_rules(&r, "modern pass_count=0", 3);
    const char *hands[3] = {
        "4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D 6D 7D",
        "8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
        "3C 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS KS AS"};
    sc_start(&g, &r, 0, hands, NULL);
    d = sc_refuse_detail(&g, "QS", ENGINE_REFUSE_MUST_LEAD_CARD);
    assert_int_equal(d.card, card_of("3C"));
    /* the 2C is not in this pack at all */
    d = sc_refuse_detail(&g, "2C", ENGINE_REFUSE_BAD_CARD);
    assert_int_equal(d.card, ENGINE_2C);
}

/* ---- Passing ------------------------------------------------------------ */

/* pass_count 0..4: how many, and that another number is refused. */
static void test_pass_count_each_value(void **state)
{
    (void)state;
    static const char *const rules[] = {
        "standard pass_count=0", "standard pass_count=1",
        "standard pass_count=2", "standard pass_count=3",
        "standard pass_count=4"};
    for (int k = 0; k <= 4; k++) {
        struct engine_rules r;
        struct engine_game g;
        sc_rules(&r, rules[k], 4);
        sc_start(&g, &r, 3, d1, NULL);
        if (k == 0) {
            /* nothing to pass: the play starts at once */
            assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
            assert_int_equal(g.pass_dir, ENGINE_PASS_HOLD);
            assert_int_equal(engine_pass_count(&g, 0, NULL), 0);
            continue;
        }
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_PASS);
        assert_int_equal(g.pass_dir, ENGINE_PASS_LEFT);
        for (int s = 0; s < 4; s++)
            assert_int_equal(engine_pass_count(&g, s, NULL), k);
        /* one fewer and one more are refused with the count */
        static const char *const more[] = {
            "", "2C", "2C 3C", "2C 3C 4C", "2C 3C 4C 5C", "2C 3C 4C 5C 6C"};
        struct engine_action a = pass_action(0, more[k - 1]);
        struct engine_refusal_detail d =
            sc_act_refused(&g, &a, ENGINE_REFUSE_PASS_COUNT);
        assert_int_equal(d.count, k);
        a = pass_action(0, more[k + 1]);
        d = sc_act_refused(&g, &a, ENGINE_REFUSE_PASS_COUNT);
        assert_int_equal(d.count, k);
        uint8_t sent[ENGINE_MAX_PLAYERS][ENGINE_MAX_PASS];
        pass_lowest(&g, sent);
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
        for (int s = 0; s < 4; s++) {
            uint8_t got[ENGINE_MAX_ACT_CARDS];
            assert_int_equal(engine_received_cards(&g, (s + 1) % 4, got), k);
            assert_int_equal(set_of(got, k), set_of(sent[s], k));
            struct engine_cards h = engine_hand(&g, s);
            assert_int_equal(engine_cards_count(&h), 13);
        }
    }
}

/*
 * Every direction: the seat each one passes to, checked on the cards that
 * arrive. across with an odd number of players is two to the left (003).
 */
static void test_pass_each_direction(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int players;
        int hands_before; /* hands played out before the one checked */
        int dir;
        int target[7];
    } rows[] = {
        {"standard target=1000", 4, 0, ENGINE_PASS_LEFT, {1, 2, 3, 0}},
        {"standard target=1000", 4, 1, ENGINE_PASS_RIGHT, {3, 0, 1, 2}},
        {"standard target=1000", 4, 2, ENGINE_PASS_ACROSS, {2, 3, 0, 1}},
        {"standard pass_cycle=across",
         6,
         0,
         ENGINE_PASS_ACROSS,
         {3, 4, 5, 0, 1, 2}},
        {"standard pass_cycle=across",
         7,
         0,
         ENGINE_PASS_ACROSS,
         {2, 3, 4, 5, 6, 0, 1}},
        {"standard pass_cycle=across",
         5,
         0,
         ENGINE_PASS_ACROSS,
         {2, 3, 4, 0, 1}},
        {"standard pass_cycle=across", 3, 0, ENGINE_PASS_ACROSS, {2, 0, 1}},
        {"standard pass_cycle=right", 3, 0, ENGINE_PASS_RIGHT, {2, 0, 1}},
        {"standard pass_cycle=left",
         7,
         0,
         ENGINE_PASS_LEFT,
         {1, 2, 3, 4, 5, 6, 0}},
        {"standard pass_cycle=left2", 5, 0, ENGINE_PASS_LEFT2, {2, 3, 4, 0, 1}},
        {"standard pass_cycle=right2",
         5,
         0,
         ENGINE_PASS_RIGHT2,
         {3, 4, 0, 1, 2}},
        {"standard pass_cycle=left,right,left2,right2,hold target=1000",
         5,
         2,
         ENGINE_PASS_LEFT2,
         {2, 3, 4, 0, 1}},
        {"standard pass_cycle=left,right,left2,right2,hold target=1000",
         5,
         3,
         ENGINE_PASS_RIGHT2,
         {3, 4, 0, 1, 2}},
        /* 001: right first */
        {"tens", 4, 0, ENGINE_PASS_RIGHT, {3, 0, 1, 2}},
        /* Greek and Black Maria: always right */
        {"greek target=1000", 4, 1, ENGINE_PASS_RIGHT, {3, 0, 1, 2}},
        {"black-maria", 5, 0, ENGINE_PASS_RIGHT, {4, 0, 1, 2, 3}},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        int n = rows[i].players;
        sc_rules(&r, rows[i].rules, n);
        engine_game_init(&g, &r, 3 + i, 0);
        assert_int_equal(engine_deal(&g, NULL), 0);
        for (int h = 0; h < rows[i].hands_before; h++)
            next_hand(&g);
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_PASS);
        if (g.pass_dir != rows[i].dir)
            fail_msg("row %zu: direction %d, want %d", i, g.pass_dir,
                     rows[i].dir);
        for (int s = 0; s < n; s++)
            assert_int_equal(engine_pass_target(&g, s, rows[i].dir),
                             rows[i].target[s]);
        struct engine_cards before[ENGINE_MAX_PLAYERS];
        for (int s = 0; s < n; s++)
            before[s] = engine_hand(&g, s);
        uint8_t sent[ENGINE_MAX_PLAYERS][ENGINE_MAX_PASS];
        pass_lowest(&g, sent);
        int k = r.pass_count;
        for (int s = 0; s < n; s++) {
            int t = rows[i].target[s];
            uint8_t got[ENGINE_MAX_ACT_CARDS];
            assert_int_equal(engine_received_cards(&g, t, got), k);
            if (set_of(got, k) != set_of(sent[s], k))
                fail_msg("row %zu: seat %d received [%s], want seat %d's "
                         "[%s]",
                         i, t, sc_fmt(set_of(got, k)), s,
                         sc_fmt(set_of(sent[s], k)));
            /* the hand: what it had, less what it sent, plus that */
            uint64_t want =
                (before[t].one & ~set_of(sent[t], k)) | set_of(sent[s], k);
            assert_int_equal(engine_hand(&g, t).one, want);
        }
    }
}

/* The cycle advances hand by hand (with hold hands, which skip the
 * pass), and the deal moves to the left. */
static void test_pass_cycle_advances_each_hand(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int players;
        int hands;
        int dirs[10];
    } rows[] = {
        {"standard target=1000",
         4,
         9,
         {ENGINE_PASS_LEFT, ENGINE_PASS_RIGHT, ENGINE_PASS_ACROSS,
          ENGINE_PASS_HOLD, ENGINE_PASS_LEFT, ENGINE_PASS_RIGHT,
          ENGINE_PASS_ACROSS, ENGINE_PASS_HOLD, ENGINE_PASS_LEFT}},
        {"standard pass_cycle=left,right,left2,hold,left,right,right2,hold "
         "target=1000",
         5,
         9,
         {ENGINE_PASS_LEFT, ENGINE_PASS_RIGHT, ENGINE_PASS_LEFT2,
          ENGINE_PASS_HOLD, ENGINE_PASS_LEFT, ENGINE_PASS_RIGHT,
          ENGINE_PASS_RIGHT2, ENGINE_PASS_HOLD, ENGINE_PASS_LEFT}},
        {"standard pass_cycle=left,right,across,scatter,hold target=1000",
         4,
         6,
         {ENGINE_PASS_LEFT, ENGINE_PASS_RIGHT, ENGINE_PASS_ACROSS,
          ENGINE_PASS_SCATTER, ENGINE_PASS_HOLD, ENGINE_PASS_LEFT}},
        {"standard pass_cycle=left,right target=1000",
         3,
         4,
         {ENGINE_PASS_LEFT, ENGINE_PASS_RIGHT, ENGINE_PASS_LEFT,
          ENGINE_PASS_RIGHT}},
        {"tens target=1000",
         3,
         4,
         {ENGINE_PASS_RIGHT, ENGINE_PASS_LEFT, ENGINE_PASS_HOLD,
          ENGINE_PASS_RIGHT}},
        {"passing target=1000",
         4,
         5,
         {ENGINE_PASS_LEFT, ENGINE_PASS_RIGHT, ENGINE_PASS_ACROSS,
          ENGINE_PASS_HOLD, ENGINE_PASS_LEFT}},
        {"greek target=1000",
         4,
         3,
         {ENGINE_PASS_RIGHT, ENGINE_PASS_RIGHT, ENGINE_PASS_RIGHT}},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        int n = rows[i].players;
        sc_rules(&r, rows[i].rules, n);
        engine_game_init(&g, &r, 9 + i, 0);
        assert_int_equal(engine_deal(&g, NULL), 0);
        for (int h = 0; h < rows[i].hands; h++) {
            if (h > 0)
                next_hand(&g);
            assert_int_equal(g.dealer, h % n);
            if (g.pass_dir != rows[i].dirs[h])
                fail_msg("%s: hand %d passes %d, want %d", rows[i].rules, h + 1,
                         g.pass_dir, rows[i].dirs[h]);
            assert_int_equal(engine_phase(&g),
                             rows[i].dirs[h] == ENGINE_PASS_HOLD
                                 ? ENGINE_PHASE_PLAY
                                 : ENGINE_PHASE_PASS);
        }
    }
}

/* scatter (000): one card to each other player, in the order of the
 * action: the first to the left neighbour, then clockwise. */
static void test_pass_scatter_order(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int players;
        const char *pass[4];
        const char *received[4];
    } rows[] = {
        {"standard pass_cycle=scatter",
         4,
         {"2C 3C 4C", "6D 7D 8D", "7C 8C 9C", "QD KD AD"},
         {"8D 8C QD", "2C 9C KD", "3C 6D AD", "4C 7D 7C"}},
        /* 3 players, 4 cards: two to each, the first two to the left */
        {"standard pass_cycle=scatter pass_count=4",
         3,
         {"2C 3C 4C 5C", "7D 8D 9D TD", "2H 3H 4H 5H"},
         {"9D TD 2H 3H", "2C 3C 4H 5H", "4C 5C 7D 8D"}},
        /* the order of the action decides, not the order of the cards */
        {"standard pass_cycle=scatter pass_count=4",
         3,
         {"5C 4C 3C 2C", "TD 9D 8D 7D", "5H 4H 3H 2H"},
         {"8D 7D 5H 4H", "5C 4C 3H 2H", "3C 2C TD 9D"}},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        int n = rows[i].players;
        sc_rules(&r, rows[i].rules, n);
        sc_start(&g, &r, 0, n == 4 ? d1 : r3, NULL);
        assert_int_equal(g.pass_dir, ENGINE_PASS_SCATTER);
        struct engine_cards before[4];
        for (int s = 0; s < n; s++)
            before[s] = engine_hand(&g, s);
        for (int s = 0; s < n; s++)
            sc_pass(&g, s, rows[i].pass[s]);
        for (int s = 0; s < n; s++) {
            uint8_t got[ENGINE_MAX_ACT_CARDS];
            int k = engine_received_cards(&g, s, got);
            assert_int_equal(k, r.pass_count);
            if (set_of(got, k) != sc_set(rows[i].received[s]))
                fail_msg("row %zu: seat %d received [%s], want [%s]", i, s,
                         sc_fmt(set_of(got, k)), rows[i].received[s]);
            assert_int_equal(engine_hand(&g, s).one,
                             (before[s].one & ~sc_set(rows[i].pass[s])) |
                                 sc_set(rows[i].received[s]));
        }
    }
}

/*
 * pass_blind (000, decided): a blind seat passes on, unseen, what reaches
 * it; cards travel on through blind seats and may come home; a chain of
 * blind seats moves nothing. Four players, d1, seats that do not pass
 * blind pass X0..X3.
 */
#define X0 "2C 3C 4C"
#define X1 "6D 7D 8D"
#define X2 "7C 8C 9C"
#define X3 "QD KD AD"

static void test_pass_blind_cards_travel_on(void **state)
{
    (void)state;
    static const char *const own[4] = {X0, X1, X2, X3};
    static const struct {
        const char *rules;
        bool blind[4];
        const char *received[4];
        const char *passed[4]; /* engine_passed_cards */
    } rows[] = {
        /* left: seat 1 passes seat 0's cards on to seat 2 */
        {"standard pass_blind=on",
         {false, true, false, false},
         {X3, "", X0, X2},
         {X0, X0, X2, X3}},
        /* through two blind seats */
        {"standard pass_blind=on",
         {false, true, true, false},
         {X3, "", "", X0},
         {X0, X0, X0, X3}},
        /* around the table and home again */
        {"standard pass_blind=on",
         {false, true, true, true},
         {X0, "", "", ""},
         {X0, X0, X0, X0}},
        /* everyone blind: nothing moves */
        {"standard pass_blind=on",
         {true, true, true, true},
         {"", "", "", ""},
         {"", "", "", ""}},
        /* across: seat 2 sends seat 0's cards back to it */
        {"standard pass_blind=on pass_cycle=across",
         {false, false, true, false},
         {X0, X3, "", X1},
         {X0, X1, X0, X3}},
        /* across: the chain of seats 0 and 2 is all blind */
        {"standard pass_blind=on pass_cycle=across",
         {true, false, true, false},
         {"", X3, "", X1},
         {"", X1, "", X3}},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        sc_rules(&r, rows[i].rules, 4);
        sc_start(&g, &r, 0, d1, NULL);
        for (int s = 0; s < 4; s++) {
            bool blind;
            assert_int_equal(engine_pass_count(&g, s, &blind), 3);
            assert_true(blind);
            if (rows[i].blind[s])
                sc_pass_blind(&g, s);
            else
                sc_pass(&g, s, own[s]);
        }
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
        for (int s = 0; s < 4; s++) {
            uint8_t cards[ENGINE_MAX_ACT_CARDS];
            int k = engine_received_cards(&g, s, cards);
            uint64_t want = sc_set(rows[i].received[s]);
            if (set_of(cards, k) != want || k != (want ? 3 : 0))
                fail_msg("row %zu: seat %d received [%s], want [%s]", i, s,
                         sc_fmt(set_of(cards, k)), rows[i].received[s]);
            k = engine_passed_cards(&g, s, cards);
            want = sc_set(rows[i].passed[s]);
            if (set_of(cards, k) != want || k != (want ? 3 : 0))
                fail_msg("row %zu: seat %d passed [%s], want [%s]", i, s,
                         sc_fmt(set_of(cards, k)), rows[i].passed[s]);
            uint64_t hand = sc_set(d1[s]);
            if (!rows[i].blind[s])
                hand &= ~sc_set(own[s]);
            hand |= sc_set(rows[i].received[s]);
            assert_int_equal(engine_hand(&g, s).one, hand);
        }
    }
}

/* Blind passing only where the rules allow it, and never with scatter. */
static void test_pass_blind_allowed(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        bool allowed;
    } rows[] = {
        {"standard", false},
        {"standard pass_blind=on", true},
        {"standard pass_blind=on pass_cycle=scatter", false},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        sc_rules(&r, rows[i].rules, 4);
        sc_start(&g, &r, 0, d1, NULL);
        bool blind = !rows[i].allowed;
        assert_int_equal(engine_pass_count(&g, 0, &blind), 3);
        assert_int_equal(blind, rows[i].allowed);
        struct engine_action a = {.kind = ENGINE_ACT_PASS_BLIND, .seat = 0};
        if (rows[i].allowed)
            assert_int_equal(engine_act(&g, &a, NULL, NULL), ENGINE_OK);
        else
            sc_act_refused(&g, &a, ENGINE_REFUSE_BLIND_NOT_ALLOWED);
    }
}

/* Refused passes, with their detail; none changes the game. */
static void test_pass_refusals(void **state)
{
    (void)state;
    static const struct {
        int seat;
        int kind;
        const char *cards;
        enum engine_refusal why;
        int count;        /* detail.count, for PASS_COUNT */
        const char *card; /* detail.card, or NULL */
    } rows[] = {
        {0, ENGINE_ACT_PASS, "2C 3C", ENGINE_REFUSE_PASS_COUNT, 3, NULL},
        {0, ENGINE_ACT_PASS, "2C 3C 4C 5C", ENGINE_REFUSE_PASS_COUNT, 3, NULL},
        {0, ENGINE_ACT_PASS, "", ENGINE_REFUSE_PASS_COUNT, 3, NULL},
        {0, ENGINE_ACT_PASS, "2C 3C AH", ENGINE_REFUSE_NOT_IN_HAND, 0, "AH"},
        {0, ENGINE_ACT_PASS, "2C 2C 3C", ENGINE_REFUSE_DUPLICATE_CARD, 0, "2C"},
        {0, ENGINE_ACT_PASS, "2C 3C JK", ENGINE_REFUSE_BAD_CARD, 0, "JK"},
        {3, ENGINE_ACT_PASS, "9S TS JS", ENGINE_REFUSE_ALREADY_PASSED, 0, NULL},
        {3, ENGINE_ACT_PASS_BLIND, "", ENGINE_REFUSE_ALREADY_PASSED, 0, NULL},
        {0, ENGINE_ACT_PASS_BLIND, "", ENGINE_REFUSE_BLIND_NOT_ALLOWED, 0,
         NULL},
        {0, ENGINE_ACT_PLAY, "2C", ENGINE_REFUSE_WRONG_PHASE, 0, NULL},
        {0, ENGINE_ACT_DISCARD, "2C", ENGINE_REFUSE_WRONG_PHASE, 0, NULL},
        {0, ENGINE_ACT_MOON, "", ENGINE_REFUSE_WRONG_PHASE, 0, NULL},
        {4, ENGINE_ACT_PASS, "2C 3C 4C", ENGINE_REFUSE_BAD_ACTION, 0, NULL},
    };
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard", 4);
    sc_start(&g, &r, 0, d1, NULL);
    sc_pass(&g, 3, "QD KD AD");
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_action a = pass_action(rows[i].seat, rows[i].cards);
        a.kind = (uint8_t)rows[i].kind;
        struct engine_refusal_detail d = sc_act_refused(&g, &a, rows[i].why);
        if (rows[i].why == ENGINE_REFUSE_PASS_COUNT)
            assert_int_equal(d.count, rows[i].count);
        if (rows[i].card)
            assert_int_equal(d.card, card_of(rows[i].card));
    }
    /* a card not in this pack (3 players: no 2D) is a bad card */
    sc_rules(&r, "standard", 3);
    sc_start(&g, &r, 0, r3, NULL);
    struct engine_action a = pass_action(0, "3D 4D 2D");
    struct engine_refusal_detail d =
        sc_act_refused(&g, &a, ENGINE_REFUSE_BAD_CARD);
    assert_int_equal(d.card, card_of("2D"));
    /* and no card number at all */
    a.cards[2] = 13;
    d = sc_act_refused(&g, &a, ENGINE_REFUSE_BAD_CARD);
    assert_int_equal(d.card, 13);
}

/* Two decks: a card held twice may be passed twice, a card held once
 * not; the copies arrive as copies. */
static void test_pass_two_decks_copies(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "cancellation pass_count=3", 8);
    const char *hands[8] = {"2C 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
                            NULL,
                            NULL,
                            NULL,
                            NULL,
                            NULL,
                            NULL,
                            NULL};
    sc_start(&g, &r, 7, hands, NULL);
    assert_int_equal(g.pass_dir, ENGINE_PASS_LEFT);
    /* seat 1 was filled with the other copies: one 3C, two AC */
    sc_hand(&g, 1, "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC AC");
    sc_pass_refused(&g, 1, "3C 3C AC", ENGINE_REFUSE_DUPLICATE_CARD);
    sc_pass_refused(&g, 0, "2C 2C 2C", ENGINE_REFUSE_DUPLICATE_CARD);
    sc_pass(&g, 0, "2C 2C 3C");
    sc_pass(&g, 1, "AC AC 3C");
    for (int s = 2; s < 8; s++) {
        struct engine_cards h = engine_hand(&g, s);
        struct engine_action a = {
            .kind = ENGINE_ACT_PASS, .seat = (uint8_t)s, .ncards = 3};
        for (int i = 0; i < 3; i++) {
            int c = __builtin_ctzll(h.one);
            a.cards[i] = (uint8_t)c;
            if (h.two & ENGINE_BIT(c))
                h.two &= ~ENGINE_BIT(c);
            else
                h.one &= ~ENGINE_BIT(c);
        }
        assert_int_equal(engine_act(&g, &a, NULL, NULL), ENGINE_OK);
    }
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
    sc_hand(&g, 1, "2C 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC");
    sc_hand(&g, 2, "3C AC AC 3D 4D 4D 5D 5D 6D 6D 7D 7D 8D");
}

/* All choose before anyone sees what they receive (000, 001, 003, 004):
 * nothing moves, and no one is told of cards, until the last choice. */
static void test_pass_nothing_received_before_all_chose(void **state)
{
    (void)state;
    static const char *const own[4] = {X0, X1, X2, X3};
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    const struct engine_sink *sink = sc_sink(&ev);
    sc_rules(&r, "standard", 4);
    sc_start(&g, &r, 0, d1, NULL);
    for (int s = 0; s < 4; s++) {
        for (int t = 0; t < 4; t++) {
            uint8_t cards[ENGINE_MAX_ACT_CARDS];
            assert_int_equal(engine_received_cards(&g, t, cards), 0);
            assert_int_equal(engine_hand(&g, t).one, sc_set(d1[t]));
            assert_int_equal(engine_may_act(&g, t), t >= s);
        }
        assert_int_equal(sc_count(&ev, ENGINE_EV_PASSED), 0);
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_PASS);
        struct engine_action a = pass_action(s, own[s]);
        assert_int_equal(engine_act(&g, &a, sink, NULL), ENGINE_OK);
        /* the choice is public, the cards are not */
        const struct engine_event *e = sc_find(&ev, ENGINE_EV_PASS_CHOSEN, s);
        assert_non_null(e);
        assert_int_equal(e->seat, s);
        assert_int_equal(e->cards, 0);
    }
    assert_int_equal(sc_count(&ev, ENGINE_EV_PASSED), 1);
    assert_int_equal(sc_count(&ev, ENGINE_EV_PASS_CHOSEN), 4);
    /* the exchange comes after the four choices */
    assert_int_equal(ev.ev[4].kind, ENGINE_EV_PASSED);
    for (int s = 0; s < 4; s++) {
        uint8_t cards[ENGINE_MAX_ACT_CARDS];
        assert_int_equal(engine_received_cards(&g, (s + 1) % 4, cards), 3);
        assert_int_equal(set_of(cards, 3), sc_set(own[s]));
    }
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
}

/* ---- Legal plays -------------------------------------------------------- */

static void test_legal_two_clubs_leads_then_follow_suit(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard pass_count=0", 4);
    const char *hands[4] = {"3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D",
                            "2C 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD", NULL,
                            NULL};
    sc_start(&g, &r, 0, hands, NULL);
    assert_int_equal(engine_turn(&g), 1);
    sc_legal(&g, "2C");
    sc_refuse(&g, "AD", ENGINE_REFUSE_MUST_LEAD_CARD);
    sc_play(&g, "2C");
    /* seats 2 and 3 hold no club (all hearts, all spades): any card */
    sc_plays(&g, "2H");
    sc_legal(&g, "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS");
    sc_play(&g, "2S");
    /* seat 0 must follow clubs */
    sc_refuse(&g, "2D", ENGINE_REFUSE_MUST_FOLLOW);
    sc_legal(&g, "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC");
    sc_play(&g, "AC");
    assert_int_equal(engine_turn(&g), 0);
    assert_int_equal(g.hand_points[0], 1);
}

/*
 * Each play option, one row per case: the rules, a 4-player deal and its
 * dealer, the plays before, then the legal set of the seat to play and a
 * card refused with its reason. Without the option, the legal set or the
 * refusal would differ.
 */
struct legal_case {
    const char *rules;
    const char *const *hands;
    int dealer;
    const char *plays;
    const char *legal;
    const char *refused; /* or NULL */
    enum engine_refusal why;
};

static void run_legal_cases(const struct legal_case *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct engine_rules r;
        struct engine_game g;
        sc_rules(&r, rows[i].rules, 4);
        sc_start(&g, &r, rows[i].dealer, rows[i].hands, NULL);
        sc_plays(&g, rows[i].plays);
        uint64_t want = sc_set(rows[i].legal);
        uint64_t got = engine_legal_plays(&g);
        if (want != got)
            fail_msg("row %zu (%s, after '%s'): legal [%s], want [%s]", i,
                     rows[i].rules, rows[i].plays, sc_fmt(got), sc_fmt(want));
        if (rows[i].refused)
            sc_refuse(&g, rows[i].refused, rows[i].why);
        /* every legal card is taken */
        for (int c = 0; c < 64; c++) {
            if (!(want >> c & 1))
                continue;
            struct engine_game copy = g;
            if (engine_play(&copy, c, NULL, NULL))
                fail_msg("row %zu: legal %s refused", i, engine_card_name(c));
        }
    }
}

static void test_legal_follow_and_hearts_lead(void **state)
{
    (void)state;
    const struct legal_case rows[] = {
        /* void in the suit led: any card */
        {"standard pass_count=0", d1, 3, "2C",
         "6D 7D 8D 9D TD JD QS 3H 4H 5H 6H 7H 8H", NULL, ENGINE_OK},
        /* follow suit if able */
        {"standard pass_count=0", d1, 3, "2C 6D", "7C 8C 9C TC JC QC KC AC",
         "5S", ENGINE_REFUSE_MUST_FOLLOW},
        {"standard pass_count=0", d1, 3, "2C 6D 7C",
         "QD KD AD 9S TS JS KS AS TH JH QH KH AH", NULL, ENGINE_OK},
        /* hearts_lead=broken: not until a heart was thrown */
        {"standard pass_count=0", d1, 3, "2C 6D AC 9S",
         "7C 8C 9C TC JC QC KC 5S 6S 7S 8S", "9H",
         ENGINE_REFUSE_HEARTS_NOT_BROKEN},
        {"standard pass_count=0", d1, 3, "2C 3H AC 9S",
         "7C 8C 9C TC JC QC KC 5S 6S 7S 8S 9H", NULL, ENGINE_OK},
        /* queen_breaks_hearts (000, 004) */
        {"standard pass_count=0 queen_breaks_hearts=on", d1, 3, "2C QS AC 9S",
         "7C 8C 9C TC JC QC KC 5S 6S 7S 8S 9H", NULL, ENGINE_OK},
        {"standard pass_count=0", d1, 3, "2C QS AC 9S",
         "7C 8C 9C TC JC QC KC 5S 6S 7S 8S", "9H",
         ENGINE_REFUSE_HEARTS_NOT_BROKEN},
        /* modern: the queen breaks hearts (on trick 2: it may not go on
         * trick 1); seat 1 wins with it and may lead a heart */
        {"modern pass_count=0", d1, 3, "2C 6D AC 9S 5S TS 2S QS",
         "7D 8D 9D TD JD 3H 4H 5H 6H 7H 8H", NULL, ENGINE_OK},
        {"standard pass_count=0", d1, 3, "2C 6D AC 9S 5S TS 2S QS",
         "7D 8D 9D TD JD", "3H", ENGINE_REFUSE_HEARTS_NOT_BROKEN},
        /* left_of_dealer: no heart lead unless only hearts */
        {"black-lady", d1, 2, "", "QD KD AD 9S TS JS KS AS", "AH",
         ENGINE_REFUSE_HEARTS_NOT_BROKEN},
        {"black-lady", d5, 2, "", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
         NULL, ENGINE_OK},
        /* hearts_lead=any (party, original rule of 000) */
        {"party pass_count=0", d1, 2, "",
         "QD KD AD 9S TS JS KS AS TH JH QH KH AH", NULL, ENGINE_OK},
        {"black-lady hearts_lead=any", d1, 3, "2C 6D AC 9S",
         "7C 8C 9C TC JC QC KC 5S 6S 7S 8S 9H", NULL, ENGINE_OK},
        /* lead_hearts_over_queen: only hearts and the QS, not broken */
        {"black-lady", d3, 2, "", "QS 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
         NULL, ENGINE_OK},
        {"black-lady lead_hearts_over_queen=off", d3, 2, "", "QS", "AH",
         ENGINE_REFUSE_MUST_LEAD_QUEEN},
    };
    run_legal_cases(rows, COUNT(rows));
}

static void test_legal_first_trick_points(void **state)
{
    (void)state;
    const struct legal_case rows[] = {
        /* allowed: a void seat throws anything on trick 1 */
        {"standard pass_count=0", d1, 3, "2C",
         "6D 7D 8D 9D TD JD QS 3H 4H 5H 6H 7H 8H", NULL, ENGINE_OK},
        /* forbidden: no heart and no QS */
        {"standard pass_count=0 first_trick_points=forbidden", d1, 3, "2C",
         "6D 7D 8D 9D TD JD", "QS", ENGINE_REFUSE_FIRST_TRICK_POINTS},
        {"standard pass_count=0 first_trick_points=forbidden", d1, 3, "2C",
         "6D 7D 8D 9D TD JD", "3H", ENGINE_REFUSE_FIRST_TRICK_POINTS},
        /* modern sets it */
        {"modern pass_count=0", d1, 3, "2C", "6D 7D 8D 9D TD JD", "QS",
         ENGINE_REFUSE_FIRST_TRICK_POINTS},
        /* the QS only when it scores: qs_points=0 lets it through */
        {"standard pass_count=0 first_trick_points=forbidden qs_points=0", d1,
         3, "2C", "6D 7D 8D 9D TD JD QS", "3H",
         ENGINE_REFUSE_FIRST_TRICK_POINTS},
        {"basic first_trick_points=forbidden", d1, 3, "2C",
         "6D 7D 8D 9D TD JD QS", NULL, ENGINE_OK},
        /* Black Maria: KS and AS score, so neither */
        {"black-maria pass_count=0 first_trick_points=forbidden", d3, 3,
         "2C 2D", "2S 3S 4S 5S 6S 7S 8S 9S TS JS", "AS",
         ENGINE_REFUSE_FIRST_TRICK_POINTS},
        {"black-lady first_trick_points=forbidden", d3, 3, "2C 2D",
         "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS", "2H",
         ENGINE_REFUSE_FIRST_TRICK_POINTS},
        /* nor the lead to trick 1 (left_of_dealer) */
        {"black-maria pass_count=0 first_trick_points=forbidden", d1, 2, "",
         "QD KD AD 9S TS JS", "KS", ENGINE_REFUSE_FIRST_TRICK_POINTS},
        {"black-maria pass_count=0", d1, 2, "", "QD KD AD 9S TS JS KS AS", NULL,
         ENGINE_OK},
        /* a bonus card worth more than 0 carries penalty points: not on
         * trick 1; worth less, it may go there */
        {"omnibus pass_count=0 first_trick_points=forbidden bonus_points=5", d1,
         3, "2C", "6D 7D 8D 9D JD", "TD", ENGINE_REFUSE_FIRST_TRICK_POINTS},
        {"omnibus pass_count=0 first_trick_points=forbidden", d1, 3, "2C",
         "6D 7D 8D 9D TD JD", "QS", ENGINE_REFUSE_FIRST_TRICK_POINTS},
        /* the joker scores 5: not on trick 1 */
        {"joker first_trick_points=forbidden", d3j, 3, "2C 2D",
         "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS", "JK",
         ENGINE_REFUSE_FIRST_TRICK_POINTS},
        {"joker", d3j, 3, "2C 2D", "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS JK",
         NULL, ENGINE_OK},
        /* a hand of only penalty cards may play any of them (decided) */
        {"black-lady first_trick_points=forbidden", d3, 3, "2C 2D 2S",
         "QS 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", NULL, ENGINE_OK},
        /* ... and only hearts and the QS may lead any of them */
        {"black-lady first_trick_points=forbidden", d3, 2, "",
         "QS 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", NULL, ENGINE_OK},
        /* trick 2 is free again */
        {"standard pass_count=0 first_trick_points=forbidden", d1, 3,
         "2C 6D AC 9S 7C", "QD KD AD TS JS KS AS TH JH QH KH AH", NULL,
         ENGINE_OK},
    };
    run_legal_cases(rows, COUNT(rows));
}

static void test_legal_dump_queen(void **state)
{
    (void)state;
    const struct legal_case rows[] = {
        /* a spade trick already holding the AS or KS */
        {"black-lady dump_queen=on", d2, 3, "AS", "QS", "2S",
         ENGINE_REFUSE_MUST_DUMP_QUEEN},
        {"black-lady dump_queen=on", d2, 3, "KS", "QS", "3S",
         ENGINE_REFUSE_MUST_DUMP_QUEEN},
        {"black-lady", d2, 3, "AS", "QS 2S 3S", NULL, ENGINE_OK},
        /* the QS could still win: not forced */
        {"black-lady dump_queen=on", d2, 3, "JS", "QS 2S 3S", NULL, ENGINE_OK},
        /* void in the suit led */
        {"black-lady dump_queen=on", d2, 3, "2C", "QS", "2D",
         ENGINE_REFUSE_MUST_DUMP_QUEEN},
        {"black-lady", d2, 3, "2C", "QS 2S 3S 2D 3D 4D 5D 6D 7D 8D 9D TD 2H",
         NULL, ENGINE_OK},
        {"standard pass_count=0 dump_queen=on", d1, 3, "2C", "QS", "6D",
         ENGINE_REFUSE_MUST_DUMP_QUEEN},
        /* never forced to lead it */
        {"black-lady dump_queen=on", d2, 0, "",
         "QS 2S 3S 2D 3D 4D 5D 6D 7D 8D 9D TD", NULL, ENGINE_OK},
        /* trick 1 with first_trick_points=forbidden is no opportunity */
        {"black-lady dump_queen=on first_trick_points=forbidden", d2, 3, "2C",
         "2S 3S 2D 3D 4D 5D 6D 7D 8D 9D TD", "QS",
         ENGINE_REFUSE_FIRST_TRICK_POINTS},
        /* ... unless the hand is only penalty cards: then it is */
        {"black-lady dump_queen=on first_trick_points=forbidden", d3, 3,
         "2C 2D 2S", "QS", "AH", ENGINE_REFUSE_MUST_DUMP_QUEEN},
        /* without first_trick_points, trick 1 is the first chance */
        {"black-lady dump_queen=on", d3, 3, "2C 2D 2S", "QS", "4H",
         ENGINE_REFUSE_MUST_DUMP_QUEEN},
    };
    run_legal_cases(rows, COUNT(rows));
}

/* The joker counts as a heart for following and for the hearts lead. */
static void test_legal_joker_is_a_heart(void **state)
{
    (void)state;
    const struct legal_case rows[] = {
        /* leading the joker is leading a heart */
        {"joker", dj, 0, "", "2D 3D 4D 5D 6D 7D 8D 9D TD", "JK",
         ENGINE_REFUSE_HEARTS_NOT_BROKEN},
        /* a trick led by the joker is a heart trick */
        {"joker hearts_lead=any", dj, 0, "JK", "6H 7H 8H 9H", "JD",
         ENGINE_REFUSE_MUST_FOLLOW},
        /* the joker follows a heart lead */
        {"joker hearts_lead=any", dj, 2, "TH 2C", "JK 3H 4H 5H", "2D",
         ENGINE_REFUSE_MUST_FOLLOW},
        /* the joker breaks hearts: seat 1 won with it and leads a heart */
        {"joker", dj, 3, "2C JK JD 7S", "3H 4H 5H 2D 3D 4D 5D 6D 7D 8D 9D TD",
         NULL, ENGINE_OK},
    };
    run_legal_cases(rows, COUNT(rows));
}

/* The refusals that are not about the rules of play. */
static void test_play_refusals_leave_game_unchanged(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard pass_count=0", 4);
    engine_game_init(&g, &r, 1, 3);
    /* before the deal */
    sc_refuse(&g, "2C", ENGINE_REFUSE_WRONG_PHASE);
    sc_deal(&g, 3, d1, NULL);

    /* not your turn: the detail names whose it is */
    struct engine_action a = {.kind = ENGINE_ACT_PLAY,
                              .seat = 2,
                              .ncards = 1,
                              .cards = {card_of("7C")}};
    struct engine_refusal_detail d =
        sc_act_refused(&g, &a, ENGINE_REFUSE_NOT_YOUR_TURN);
    assert_int_equal(d.seat, 0);
    /* not in hand, not in this pack, no card */
    d = sc_refuse_detail(&g, "AH", ENGINE_REFUSE_NOT_IN_HAND);
    assert_int_equal(d.card, card_of("AH"));
    d = sc_refuse_detail(&g, "JK", ENGINE_REFUSE_BAD_CARD);
    assert_int_equal(d.card, ENGINE_JOKER);
    static const uint8_t nocards[] = {13, 29, 46, 63, 64, 200, ENGINE_NO_CARD};
    for (size_t i = 0; i < COUNT(nocards); i++) {
        a.seat = 0;
        a.cards[0] = nocards[i];
        d = sc_act_refused(&g, &a, ENGINE_REFUSE_BAD_CARD);
        assert_int_equal(d.card, nocards[i]);
    }
    /* a seat that is no seat */
    a.seat = 4;
    sc_act_refused(&g, &a, ENGINE_REFUSE_BAD_ACTION);
    /* other actions in the play */
    struct engine_action p = pass_action(0, "2C 3C 4C");
    sc_act_refused(&g, &p, ENGINE_REFUSE_WRONG_PHASE);
    p.kind = ENGINE_ACT_PASS_BLIND;
    sc_act_refused(&g, &p, ENGINE_REFUSE_WRONG_PHASE);
    p.kind = ENGINE_ACT_DISCARD;
    sc_act_refused(&g, &p, ENGINE_REFUSE_WRONG_PHASE);
    p.kind = ENGINE_ACT_MOON;
    sc_act_refused(&g, &p, ENGINE_REFUSE_WRONG_PHASE);
    /* must follow: the detail names the suit led */
    sc_plays(&g, "2C 6D");
    d = sc_refuse_detail(&g, "5S", ENGINE_REFUSE_MUST_FOLLOW);
    assert_int_equal(d.suit, ENGINE_CLUBS);
    sc_plays(&g, "AC 9S");
    /* seat 2 won and leads a spade: seat 3 must follow */
    sc_play(&g, "5S");
    d = sc_refuse_detail(&g, "AH", ENGINE_REFUSE_MUST_FOLLOW);
    assert_int_equal(d.suit, ENGINE_SPADES);
    /* after the hand, no play until the next deal */
    finish_hand(&g);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
    sc_refuse(&g, "2C", ENGINE_REFUSE_WRONG_PHASE);

    /* 3 players: the 2D is out of the pack */
    sc_rules(&r, "standard pass_count=0", 3);
    sc_start(&g, &r, 2, r3, NULL);
    sc_refuse(&g, "2D", ENGINE_REFUSE_BAD_CARD);
    /* joker: the 2H is out of the pack */
    sc_rules(&r, "joker", 4);
    sc_start(&g, &r, 3, dj, NULL);
    sc_refuse(&g, "2H", ENGINE_REFUSE_BAD_CARD);
}

/* ---- Trick resolution --------------------------------------------------- */

/* The highest card of the suit led wins; the joker (002) wins any trick
 * unless the JH, QH, KH or AH is on it, then the highest heart does. */
static void test_trick_winner(void **state)
{
    (void)state;
    const struct {
        const char *rules;
        const char *const *hands;
        int dealer;
        const char *plays;
        int winner;
        int points;
    } rows[] = {
        /* ordinary: the suit led, whatever else falls */
        {"standard pass_count=0", d1, 3, "2C 6D 7C AH", 2, 1},
        {"standard pass_count=0", d1, 3, "2C QS AC 9S", 2, 13},
        {"black-lady", d5, 3, "AC 2D 2S 2H", 0, 1},
        /* joker: trump over clubs */
        {"joker", dj, 3, "2C JK 6H 7S", 1, 6},
        /* a heart above it wins */
        {"joker", dj, 3, "2C JK JD JH", 3, 6},
        {"joker", dj, 3, "2C JK JD AH", 3, 6},
        /* a heart below it does not */
        {"joker", dj, 3, "2C JK 6H TH", 1, 7},
        /* hearts are no trumps */
        {"joker", dj, 3, "2C 3H 6H TH", 0, 3},
        /* led: it ranks between the JH and the TH */
        {"joker hearts_lead=any", dj, 0, "JK 6H TH 2C", 1, 7},
        {"joker hearts_lead=any", dj, 0, "JK 6H QH 2C", 3, 7},
        {"joker hearts_lead=any", dj, 0, "3H 9H TH 2C", 3, 3},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        struct sc_events ev;
        sc_rules(&r, rows[i].rules, 4);
        sc_start(&g, &r, rows[i].dealer, rows[i].hands, NULL);
        sc_plays_to(&g, rows[i].plays, sc_sink(&ev));
        const struct engine_event *e = sc_find(&ev, ENGINE_EV_TRICK, 0);
        assert_non_null(e);
        if (e->seat != rows[i].winner)
            fail_msg("row %zu (%s): seat %d won, want %d", i, rows[i].plays,
                     e->seat, rows[i].winner);
        assert_int_equal(e->value, rows[i].points);
        assert_int_equal(e->cards, sc_set(rows[i].plays));
        /* the winner takes the cards and leads */
        sc_taken(&g, rows[i].winner, rows[i].plays);
        assert_int_equal(g.hand_points[rows[i].winner], rows[i].points);
        assert_int_equal(engine_turn(&g), rows[i].winner);
    }
}

/* Cancellation (002): identical cards on a trick cancel; the next card of
 * the suit led wins. Eight players, two decks. */
static void test_trick_cancellation_identical_cards_cancel(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "cancellation", 8);
    const char *hands[8] = {CLUBS13,
                            "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC AC 2D",
                            "KC 2D 3D 3D 4D 4D 5D 5D 6D 6D 7D 7D 8D",
                            NULL,
                            NULL,
                            NULL,
                            NULL,
                            NULL};
    sc_start(&g, &r, 7, hands, NULL);
    /* the filled seats: 8D 9D 9D ..., 2H 2H 3H ..., and so on */
    sc_hand(&g, 3, "8D 9D 9D TD TD JD JD QD QD KD KD AD AD");
    assert_int_equal(engine_turn(&g), 0);
    sc_plays(&g, "AC AC KC 8D 2H 8H 2S 8S");
    assert_int_equal(engine_turn(&g), 2);
    sc_taken(&g, 2, "AC AC KC 8D 2H 8H 2S 8S");
    assert_int_equal(g.hand_points[2], 2);
}

/*
 * A trick with no uncancelled card of the suit led cannot be won: it is
 * set aside, its leader leads again, and the next trick's winner takes it;
 * the kitty goes to the first trick that has a winner. Ten players.
 */
static void test_trick_cancellation_set_aside_and_kitty(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    sc_rules(&r, "cancellation", 10);
    const char *hands[10] = {"2C 3C 4C 5C 6C 7C 8C 9C TC JC",
                             "2C 3C 4C 5C 6C 7C 8C 9C TC JC",
                             "AC 2D 2D 3D 3D 4D 4D 5D 5D 6D",
                             "AC 6D 7D 7D 8D 8D 9D 9D TD TD",
                             NULL,
                             NULL,
                             NULL,
                             NULL,
                             NULL,
                             NULL};
    engine_game_init(&g, &r, 1, 9);
    sc_deal(&g, 9, hands, "QC QC KC KC");
    sc_hand(&g, 4, "JD JD QD QD KD KD AD AD 2H 2H");
    sc_hand(&g, 9, "TS TS JS JS QS QS KS KS AS AS");
    assert_int_equal(engine_turn(&g), 0);
    const struct engine_sink *sink = sc_sink(&ev);
    /* 2C 2C and AC AC cancel: no club is left to win */
    sc_plays_to(&g, "2C 2C AC AC JD 3H 8H KH 5S TS", sink);
    const struct engine_event *e = sc_find(&ev, ENGINE_EV_TRICK, 0);
    assert_non_null(e);
    assert_int_equal(e->seat, ENGINE_NO_SEAT);
    assert_int_equal(e->cards2, sc_set("2C AC"));
    assert_int_equal(engine_turn(&g), 0);
    assert_int_equal(g.trick_no, 1);
    for (int s = 0; s < 10; s++)
        sc_taken(&g, s, "");
    assert_int_equal(sc_count(&ev, ENGINE_EV_REST_TAKEN), 0);
    /* the next trick has a winner: it takes the set-aside trick and the
     * kitty */
    sc_plays_to(&g, "3C 4C 2D 6D JD 3H 8H KH 5S TS", sink);
    e = sc_find(&ev, ENGINE_EV_TRICK, 1);
    assert_int_equal(e->seat, 1);
    assert_int_equal(e->value, 6);
    sc_taken(&g, 1,
             "2C 2C AC AC JD 3H 8H KH 5S TS 3C 4C 2D 6D JD 3H 8H KH 5S TS "
             "QC QC KC KC");
    assert_int_equal(g.hand_points[1], 6);
    e = sc_find(&ev, ENGINE_EV_REST_TAKEN, 0);
    assert_non_null(e);
    assert_int_equal(e->seat, 1);
    assert_int_equal(e->cards, sc_set("QC KC"));
    assert_int_equal(e->cards2, sc_set("QC KC"));
    assert_int_equal(engine_turn(&g), 1);
}

/* If the last trick is entirely cancelled its cards are dead (002). Eight
 * players; seats 0 and 1 hold the clubs, the others one suit a pair. */
static void test_trick_cancellation_last_trick_dead(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    sc_rules(&r, "cancellation", 8);
    const char *hands[8] = {
        CLUBS13,
        CLUBS13,
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    };
    sc_start(&g, &r, 7, hands, NULL);
    /* seat 0 plays its clubs from the top, seat 1 one rank lower until
     * its AC wins trick 12; both keep the 2C for the last trick; the
     * others throw their lowest card */
    const char *seq0 = "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C";
    const char *seq1 = "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C AC 2C";
    uint8_t c0[13], c1[13];
    sc_card_list(seq0, c0, 13);
    sc_card_list(seq1, c1, 13);
    int k0 = 0, k1 = 0;
    const struct engine_sink *sink = sc_sink(&ev);
    while (engine_phase(&g) == ENGINE_PHASE_PLAY) {
        int s = engine_turn(&g);
        int c = s == 0   ? c0[k0++]
                : s == 1 ? c1[k1++]
                         : __builtin_ctzll(engine_legal_plays(&g));
        assert_int_equal(engine_play(&g, c, sink, NULL), ENGINE_OK);
    }
    assert_int_equal(sc_count(&ev, ENGINE_EV_TRICK), 13);
    const struct engine_event *e = sc_find(&ev, ENGINE_EV_TRICK, 12);
    assert_int_equal(e->seat, ENGINE_NO_SEAT);
    assert_int_equal(e->cards2, sc_set("2C AD AH AS"));
    /* seat 1 won trick 12 only (the Ks were thrown on it) */
    sc_taken(&g, 1, "3C AC KD KD KH KH KS KS");
    /* the last trick is in no one's tricks: 96 cards taken */
    int total = 0;
    for (int s = 0; s < 8; s++) {
        total += engine_cards_count(&g.taken[s]);
        assert_false((g.taken[s].one | g.taken[s].two) & sc_set("AD AH AS"));
    }
    assert_int_equal(total, 96);
    /* and not scored: the two AH count for no one */
    assert_int_equal(g.hand_points[0], 48);
    assert_int_equal(g.hand_points[1], 2);
    static const int points[8] = {48, 2, 0, 0, 0, 0, 0, 0};
    sc_points(&g, points);
    assert_int_equal(sc_count(&ev, ENGINE_EV_REST_TAKEN), 0);
}

/* ---- The stock variants ------------------------------------------------- */

/* Domino (002): a seat that cannot follow draws from the stock one card
 * at a time until it can; drawn cards stay in the hand. */
static void test_domino_draw_until_able_to_follow(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    sc_rules(&r, "domino", 4);
    const char *hands[4] = {"2C 3C 4C 5C 6C 2H", "2D 3D 4D 5D 6D 7D",
                            "7C 2S 3S 4S 5S 6S", "8C 9C TC 7S 8S 9S"};
    engine_game_init(&g, &r, 1, 3);
    sc_deal(&g, 3, hands,
            "3H 8D JC QC KC AC 9D TD JD QD KD AD 4H 5H 6H 7H 8H 9H TH JH "
            "QH KH AH TS JS QS KS AS");
    assert_int_equal(engine_turn(&g), 0);
    sc_legal(&g, "2C 3C 4C 5C 6C");
    sc_plays_to(&g, "2C", sc_sink(&ev));
    /* seat 1 drew the 3H, the 8D and the JC, in that order */
    assert_int_equal(sc_count(&ev, ENGINE_EV_DRAWN), 3);
    static const char *const drawn[3] = {"3H", "8D", "JC"};
    for (int i = 0; i < 3; i++) {
        const struct engine_event *e = sc_find(&ev, ENGINE_EV_DRAWN, i);
        assert_int_equal(e->seat, 1);
        assert_int_equal(e->card, card_of(drawn[i]));
    }
    sc_hand(&g, 1, "2D 3D 4D 5D 6D 7D 3H 8D JC");
    assert_int_equal(engine_turn(&g), 1);
    sc_legal(&g, "JC");
    sc_plays_to(&g, "JC 7C 8C", sc_sink(&ev));
    /* seats 2 and 3 could follow: no draw */
    assert_int_equal(sc_count(&ev, ENGINE_EV_DRAWN), 0);
    assert_int_equal(engine_turn(&g), 1);
    sc_hand(&g, 1, "2D 3D 4D 5D 6D 7D 3H 8D");
    sc_hand(&g, 2, "2S 3S 4S 5S 6S");
    int len;
    engine_rest(&g, &len);
    assert_int_equal(len - g.rest_pos, 25);
}

/* Domino: when the stock runs out the play is as usual. */
static void test_domino_stock_runs_out(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    sc_rules(&r, "domino", 4);
    /* every club is in a hand: seat 1 draws the whole stock */
    const char *hands[4] = {"2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D",
                            "8C 9C TC JC QC KC", "AC 2S 3S 4S 5S 6S"};
    engine_game_init(&g, &r, 1, 3);
    sc_deal(&g, 3, hands, NULL);
    sc_plays_to(&g, "2C", sc_sink(&ev));
    assert_int_equal(sc_count(&ev, ENGINE_EV_DRAWN), 28);
    struct engine_cards h = engine_hand(&g, 1);
    assert_int_equal(engine_cards_count(&h), 34);
    /* no club came: any card */
    assert_int_equal(engine_legal_plays(&g), h.one);
    sc_play(&g, "AH");
    assert_int_equal(engine_turn(&g), 2);
}

/*
 * Domino: a seat drops out when it has played its last card; if it won
 * that trick the lead passes to the next seat on its left still in; the
 * last seat in takes the penalty cards left in its hand, and the stock
 * left over is dead.
 */
static void test_domino_drop_out_and_last_player(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    const struct engine_sink *sink = sc_sink(&ev);
    sc_rules(&r, "domino", 4);
    const char *hands[4] = {"AC KC QC AD KD QD", "2C 3C 4C 2D 3D 4D",
                            "5C 6C 7C 5D 6D 2H", "8C 9C TC 8D 9D 3H"};
    engine_game_init(&g, &r, 1, 3);
    sc_deal(&g, 3, hands,
            "4H 7D JD JC TD 5H 6H 7H 8H 9H TH JH QH KH AH 2S 3S 4S 5S 6S "
            "7S 8S 9S TS JS QS KS AS");
    sc_plays_to(&g, "AC 2C 5C 8C KC 3C 6C 9C QC 4C 7C TC", sink);
    sc_plays_to(&g, "AD 2D 5D 8D KD 3D 6D 9D", sink);
    assert_int_equal(sc_count(&ev, ENGINE_EV_DRAWN), 0);
    assert_int_equal(sc_count(&ev, ENGINE_EV_OUT), 0);
    /* trick 6: seats 2 and 3 are void in diamonds and draw */
    sc_plays_to(&g, "QD 4D 7D JD", sink);
    assert_int_equal(sc_count(&ev, ENGINE_EV_DRAWN), 3);
    assert_int_equal(sc_find(&ev, ENGINE_EV_DRAWN, 0)->seat, 2);
    assert_int_equal(sc_find(&ev, ENGINE_EV_DRAWN, 1)->card, card_of("7D"));
    assert_int_equal(sc_find(&ev, ENGINE_EV_DRAWN, 2)->seat, 3);
    /* seat 0 won with its last card, seat 1 is out too: seat 2 leads */
    assert_int_equal(sc_count(&ev, ENGINE_EV_OUT), 2);
    assert_int_equal(sc_find(&ev, ENGINE_EV_OUT, 0)->seat, 0);
    assert_int_equal(sc_find(&ev, ENGINE_EV_OUT, 1)->seat, 1);
    sc_taken(&g, 0,
             "AC 2C 5C 8C KC 3C 6C 9C QC 4C 7C TC AD 2D 5D 8D KD 3D 6D 9D "
             "QD 4D 7D JD");
    assert_int_equal(engine_turn(&g), 2);
    assert_int_equal(g.trick_size, 2);
    sc_hand(&g, 2, "2H 4H");
    sc_hand(&g, 3, "3H");
    /* trick 7: seat 3 wins with its last card; seat 2 is the last in and
     * takes the 4H left in its hand */
    sc_legal(&g, "2H 4H");
    sc_plays_to(&g, "2H 3H", sink);
    assert_int_equal(sc_count(&ev, ENGINE_EV_OUT), 3);
    assert_int_equal(sc_find(&ev, ENGINE_EV_OUT, 2)->seat, 3);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
    sc_taken(&g, 2, "4H");
    sc_taken(&g, 3, "2H 3H");
    static const int points[4] = {0, 0, 1, 2};
    sc_points(&g, points);
}

/* Two-handed (002): after each trick the winner draws the top card of the
 * stock, then the loser; play goes on until every card is played. */
static void test_two_handed_winner_draws_first(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct sc_events ev;
    sc_rules(&r, "two-handed", 2);
    const char *hands[2] = {"2C 3C 4C 5C 6C 7C 2D 3D 4D 5D 6D 7D AD",
                            "8C 9C TC JC QC KC AC 8D 9D TD JD QD KD"};
    engine_game_init(&g, &r, 1, 1);
    sc_deal(&g, 1, hands, NULL); /* the stock: 2H 3H ... AH 2S ... AS */
    assert_int_equal(engine_turn(&g), 0);
    sc_plays_to(&g, "2C 8C", sc_sink(&ev));
    /* seat 1 won: it draws the 2H, then seat 0 the 3H */
    assert_int_equal(sc_count(&ev, ENGINE_EV_DRAWN), 2);
    const struct engine_event *e = sc_find(&ev, ENGINE_EV_DRAWN, 0);
    assert_int_equal(e->seat, 1);
    assert_int_equal(e->card, ENGINE_2H);
    e = sc_find(&ev, ENGINE_EV_DRAWN, 1);
    assert_int_equal(e->seat, 0);
    assert_int_equal(e->card, card_of("3H"));
    sc_hand(&g, 0, "3C 4C 5C 6C 7C 2D 3D 4D 5D 6D 7D AD 3H");
    sc_hand(&g, 1, "9C TC JC QC KC AC 8D 9D TD JD QD KD 2H");
    assert_int_equal(engine_turn(&g), 1);
    /* seat 0 wins the next with the AD: it draws first */
    sc_plays_to(&g, "8D AD", sc_sink(&ev));
    assert_int_equal(engine_turn(&g), 0);
    e = sc_find(&ev, ENGINE_EV_DRAWN, 0);
    assert_int_equal(e->seat, 0);
    assert_int_equal(e->card, card_of("4H"));
    e = sc_find(&ev, ENGINE_EV_DRAWN, 1);
    assert_int_equal(e->seat, 1);
    assert_int_equal(e->card, card_of("5H"));
    /* until every card is played: 26 tricks */
    sc_play_out(&g);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_DEAL);
    assert_int_equal(g.trick_no, 26);
    assert_int_equal(g.rest_pos, 26);
    assert_int_equal(
        engine_cards_count(&g.taken[0]) + engine_cards_count(&g.taken[1]), 52);
    assert_int_equal(g.tricks[0] + g.tricks[1], 26);
}

/* ---- Presets ------------------------------------------------------------ */

enum lead_rule { LEAD_LOWEST_CLUB, LEAD_LEFT };

/*
 * What each preset changes in the play: the first hand's pass, the deal
 * (hand size, the rest, two decks, the joker) and who leads trick 1. The
 * presets' own rules are tested in the tables above; this table checks
 * that each preset reaches them.
 */
static void test_preset_play_shape(void **state)
{
    (void)state;
    static const struct {
        const char *preset;
        int players;
        int dir; /* the first hand's pass */
        int hand;
        int rest;
        enum lead_rule lead;
        bool joker;
        int decks;
        bool faceup;
    } rows[] = {
        {"standard", 4, ENGINE_PASS_LEFT, 13, 0, LEAD_LOWEST_CLUB, false, 1,
         false},
        {"modern", 3, ENGINE_PASS_LEFT, 17, 0, LEAD_LOWEST_CLUB, false, 1,
         false},
        {"tens", 3, ENGINE_PASS_RIGHT, 17, 1, LEAD_LOWEST_CLUB, false, 1, true},
        {"party", 4, ENGINE_PASS_LEFT, 13, 0, LEAD_LEFT, false, 1, false},
        {"basic", 4, ENGINE_PASS_HOLD, 13, 0, LEAD_LEFT, false, 1, false},
        {"black-lady", 5, ENGINE_PASS_HOLD, 10, 0, LEAD_LEFT, false, 1, false},
        {"passing", 4, ENGINE_PASS_LEFT, 13, 0, LEAD_LEFT, false, 1, false},
        {"spot", 4, ENGINE_PASS_HOLD, 13, 0, LEAD_LEFT, false, 1, false},
        {"greek", 4, ENGINE_PASS_RIGHT, 13, 0, LEAD_LEFT, false, 1, false},
        {"black-maria", 3, ENGINE_PASS_RIGHT, 17, 0, LEAD_LEFT, false, 1,
         false},
        {"omnibus", 4, ENGINE_PASS_LEFT, 13, 0, LEAD_LOWEST_CLUB, false, 1,
         false},
        {"joker", 4, ENGINE_PASS_HOLD, 13, 0, LEAD_LEFT, true, 1, false},
        {"heartsette", 4, ENGINE_PASS_HOLD, 12, 3, LEAD_LEFT, false, 1, false},
        {"cancellation", 10, ENGINE_PASS_HOLD, 10, 4, LEAD_LEFT, false, 2,
         false},
        {"domino", 5, ENGINE_PASS_HOLD, 6, 22, LEAD_LEFT, false, 1, false},
        {"two-handed", 2, ENGINE_PASS_HOLD, 13, 26, LEAD_LEFT, false, 1, false},
        {"partners", 4, ENGINE_PASS_LEFT, 13, 0, LEAD_LOWEST_CLUB, false, 1,
         false},
    };
    assert_int_equal(COUNT(rows), engine_preset_count());
    for (size_t i = 0; i < COUNT(rows); i++) {
        struct engine_rules r;
        struct engine_game g;
        int n = rows[i].players;
        sc_rules(&r, rows[i].preset, n);
        assert_string_equal(engine_preset_name((int)i), rows[i].preset);
        engine_game_init(&g, &r, 77 + i, 0);
        assert_int_equal(engine_deal(&g, NULL), 0);
        if (g.pass_dir != rows[i].dir)
            fail_msg("%s: passes %d, want %d", rows[i].preset, g.pass_dir,
                     rows[i].dir);
        for (int s = 0; s < n; s++) {
            struct engine_cards h = engine_hand(&g, s);
            assert_int_equal(engine_cards_count(&h), rows[i].hand);
        }
        int len;
        engine_rest(&g, &len);
        assert_int_equal(len, rows[i].rest);
        assert_int_equal(r.decks, rows[i].decks);
        assert_int_equal(r.deck_len, rows[i].decks * bits64(r.in_play));
        assert_int_equal((r.in_play >> ENGINE_JOKER) & 1, rows[i].joker);
        assert_int_equal((r.in_play >> ENGINE_2H) & 1, !rows[i].joker);
        struct engine_view v;
        engine_view_make(&g, 1, &v);
        assert_int_equal(v.faceup != 0, rows[i].faceup);
        if (rows[i].dir == ENGINE_PASS_HOLD) {
            assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
        } else {
            assert_int_equal(engine_phase(&g), ENGINE_PHASE_PASS);
            pass_lowest(&g, NULL);
        }
        assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
        int leader = 1; /* left of dealer 0 */
        uint64_t legal = 0;
        if (rows[i].lead == LEAD_LOWEST_CLUB) {
            const uint64_t clubs = ENGINE_SUIT_MASK(ENGINE_CLUBS);
            uint64_t held = 0;
            for (int s = 0; s < n; s++)
                held |= engine_hand(&g, s).one & clubs;
            if (!(held & ENGINE_BIT(ENGINE_2C)) &&
                r.lowest_club_fallback ==
                    ENGINE_FALLBACK_FIRST_LEFT_WITH_CLUBS) {
                /* 001: the first seat from the left with a club */
                while (!(engine_hand(&g, leader).one & clubs))
                    leader = (leader + 1) % n;
                held = engine_hand(&g, leader).one & clubs;
            }
            legal = ENGINE_BIT(__builtin_ctzll(held));
            while (!(engine_hand(&g, leader).one & legal))
                leader = (leader + 1) % n;
        }
        if (engine_turn(&g) != leader)
            fail_msg("%s: seat %d leads, want %d", rows[i].preset,
                     engine_turn(&g), leader);
        if (legal)
            assert_int_equal(engine_legal_plays(&g), legal);
        /* and the hand plays to its end */
        finish_hand(&g);
        if (engine_phase(&g) != ENGINE_PHASE_DEAL &&
            engine_phase(&g) != ENGINE_PHASE_GAME_OVER)
            fail_msg("%s: phase %d after the hand", rows[i].preset,
                     engine_phase(&g));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deal_given_hands_reach_their_seats),
        cmocka_unit_test(test_deal_given_refuses_a_wrong_pack),
        cmocka_unit_test(test_deal_hand_sizes_and_pack),
        cmocka_unit_test(test_rules_finish_refuses_table_sizes),
        cmocka_unit_test(test_odd_cards_rest_goes_to_its_taker),
        cmocka_unit_test(test_odd_cards_kitty_first_point_never_earned_is_dead),
        cmocka_unit_test(test_odd_cards_kitty_exchange_discard),
        cmocka_unit_test(test_odd_cards_widow_goes_to_first_trick_winner),
        cmocka_unit_test(test_first_lead_who_and_what),
        cmocka_unit_test(test_first_lead_refusal_names_the_card),
        cmocka_unit_test(test_pass_count_each_value),
        cmocka_unit_test(test_pass_each_direction),
        cmocka_unit_test(test_pass_cycle_advances_each_hand),
        cmocka_unit_test(test_pass_scatter_order),
        cmocka_unit_test(test_pass_blind_cards_travel_on),
        cmocka_unit_test(test_pass_blind_allowed),
        cmocka_unit_test(test_pass_refusals),
        cmocka_unit_test(test_pass_two_decks_copies),
        cmocka_unit_test(test_pass_nothing_received_before_all_chose),
        cmocka_unit_test(test_legal_two_clubs_leads_then_follow_suit),
        cmocka_unit_test(test_legal_follow_and_hearts_lead),
        cmocka_unit_test(test_legal_first_trick_points),
        cmocka_unit_test(test_legal_dump_queen),
        cmocka_unit_test(test_legal_joker_is_a_heart),
        cmocka_unit_test(test_play_refusals_leave_game_unchanged),
        cmocka_unit_test(test_trick_winner),
        cmocka_unit_test(test_trick_cancellation_identical_cards_cancel),
        cmocka_unit_test(test_trick_cancellation_set_aside_and_kitty),
        cmocka_unit_test(test_trick_cancellation_last_trick_dead),
        cmocka_unit_test(test_domino_draw_until_able_to_follow),
        cmocka_unit_test(test_domino_stock_runs_out),
        cmocka_unit_test(test_domino_drop_out_and_last_player),
        cmocka_unit_test(test_two_handed_winner_draws_first),
        cmocka_unit_test(test_preset_play_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
