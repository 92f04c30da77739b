/*
 * Tests of engine/rules.c: every preset for every player count it allows
 * (and the refusal outside it), option overrides and card_points merging,
 * the messages that name the nearest valid word, every combination
 * variants.md refuses, reading options back, and the tables derived for a
 * player count (the pack, hand sizes, the point of every card).
 */
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Expected option values ------------------------------------------ */

/* The defaults of variants.md, in the text form engine_rules_get writes. */
static const char *const defaults_text[][2] = {
    {"players", "4"},
    {"decks", "1"},
    {"odd_cards", "remove"},
    {"remove_table", "momentpoint"},
    {"joker", "off"},
    {"pass_count", "3"},
    {"pass_cycle", "left,right,across,hold"},
    {"pass_blind", "off"},
    {"first_lead", "two_clubs"},
    {"lowest_club_fallback", "holder_of_lowest"},
    {"hearts_lead", "broken"},
    {"queen_breaks_hearts", "off"},
    {"lead_hearts_over_queen", "on"},
    {"first_trick_points", "allowed"},
    {"dump_queen", "off"},
    {"heart_points", "one"},
    {"ace_spot_value", "14"},
    {"qs_points", "13"},
    {"card_points", "none"},
    {"bonus_card", "none"},
    {"bonus_points", "-10"},
    {"moon", "choice"},
    {"moon_points", "26"},
    {"moon_keeps_bonus", "on"},
    {"sun", "off"},
    {"exact_target_reset", "off"},
    {"match_pairs", "off"},
    {"target", "100"},
    {"hands", "0"},
    {"tie", "play_on"},
    {"partners", "off"},
    {"stock", "off"},
};

#define NDEFAULTS ((int)(sizeof defaults_text / sizeof defaults_text[0]))

/* What each preset sets, written out from the table of variants.md (with
 * the base presets' settings spelled out), not from rules.c. */
struct preset_row {
    const char *name;
    int min, max;
    const char *sets;
};

static const struct preset_row preset_rows[] = {
    {"standard", 3, 7, ""},
    {"modern", 3, 6,
     "bonus_card=JD remove_table=modern first_trick_points=forbidden "
     "queen_breaks_hearts=on moon=subtract"},
    {"tens", 3, 7,
     "bonus_card=TD moon=subtract pass_cycle=right,left,hold "
     "odd_cards=faceup_leftover lowest_club_fallback=first_left_with_clubs"},
    {"party", 3, 7, "first_lead=left_of_dealer hearts_lead=any moon=subtract"},
    {"basic", 3, 7,
     "qs_points=0 moon=off pass_count=0 first_lead=left_of_dealer target=50"},
    {"black-lady", 3, 7, "pass_count=0 first_lead=left_of_dealer"},
    {"passing", 4, 4, "first_lead=left_of_dealer"},
    {"spot", 3, 7,
     "qs_points=0 moon=off pass_count=0 first_lead=left_of_dealer target=50 "
     "heart_points=spot"},
    {"greek", 3, 7,
     "first_lead=left_of_dealer pass_count=3 pass_cycle=right "
     "heart_points=spot card_points=QH:50 moon=add_others moon_points=150"},
    {"black-maria", 3, 7,
     "qs_points=13 moon=off first_lead=left_of_dealer target=50 "
     "card_points=KS:10,AS:7 pass_count=3 pass_cycle=right"},
    {"omnibus", 3, 7, "bonus_card=TD"},
    {"joker", 3, 7,
     "qs_points=0 moon=off pass_count=0 first_lead=left_of_dealer target=50 "
     "joker=on"},
    {"heartsette", 3, 6,
     "qs_points=0 moon=off pass_count=0 first_lead=left_of_dealer target=50 "
     "odd_cards=widow"},
    {"cancellation", 6, 10,
     "pass_count=0 first_lead=left_of_dealer decks=2 odd_cards=kitty "
     "moon_points=52"},
    {"domino", 3, 7,
     "qs_points=0 moon=off pass_count=0 first_lead=left_of_dealer target=31 "
     "stock=domino"},
    {"two-handed", 2, 2,
     "qs_points=0 moon=off pass_count=0 first_lead=left_of_dealer target=50 "
     "stock=two_handed"},
    {"partners", 4, 4, "partners=team_score"},
};

#define NPRESETS ((int)(sizeof preset_rows / sizeof preset_rows[0]))

/* The value `key` has in a "k=v k=v" list, or NULL. */
static const char *value_in(const char *list, const char *key, char *buf,
                            size_t len)
{
    size_t klen = strlen(key);
    const char *p = list;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *e = strchr(p, ' ');
        if (!e)
            e = p + strlen(p);
        if ((size_t)(e - p) > klen && strncmp(p, key, klen) == 0 &&
            p[klen] == '=') {
            snprintf(buf, len, "%.*s", (int)(e - p - (long)klen - 1),
                     p + klen + 1);
            return buf;
        }
        p = e;
    }
    return NULL;
}

/* Asserts that every option of r reads back as `sets` says, or as the
 * default where it says nothing. */
static void expect_options(const struct engine_rules *r, const char *what,
                           const char *sets)
{
    assert_int_equal(engine_option_count(), NDEFAULTS);
    for (int o = 0; o < NDEFAULTS; o++) {
        const char *key = defaults_text[o][0];
        assert_string_equal(engine_option_name(o), key);
        char want[128], got[256];
        const char *w = value_in(sets, key, want, sizeof want);
        if (!w)
            w = defaults_text[o][1];
        assert_true(engine_rules_get(r, o, got, sizeof got) >= 0);
        if (strcmp(w, got) != 0)
            fail_msg("%s: %s is '%s', want '%s'", what, key, got, w);
    }
}

static void test_rules_parse_every_preset_for_every_player_count(void **state)
{
    (void)state;
    assert_int_equal(engine_preset_count(), NPRESETS);
    for (int i = 0; i < NPRESETS; i++) {
        const struct preset_row *p = &preset_rows[i];
        assert_string_equal(engine_preset_name(i), p->name);
        assert_int_equal(engine_preset_find(p->name), i);
        int min, max;
        engine_preset_players(i, &min, &max);
        assert_int_equal(min, p->min);
        assert_int_equal(max, p->max);
        for (int n = p->min; n <= p->max; n++) {
            struct engine_rules r;
            sc_rules(&r, p->name, n);
            assert_true(r.finished);
            assert_int_equal(r.preset, i);
            assert_int_equal(r.players, n);
            char sets[512], what[64];
            snprintf(sets, sizeof sets, "%s players=%d", p->sets, n);
            snprintf(what, sizeof what, "%s for %d", p->name, n);
            expect_options(&r, what, sets);
        }
    }
}

static void test_rules_parse_preset_default_player_count(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int players;
    } rows[] = {
        {"standard", 4},     {"", 4},
        {"modern", 4},       {"passing", 4},
        {"cancellation", 6}, {"two-handed", 2},
        {"partners", 4},     {"heartsette", 4},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_rules r;
        sc_rules(&r, rows[i].text, 0);
        assert_int_equal(r.players, rows[i].players);
    }
    /* a preset name is case-insensitive */
    struct engine_rules r;
    sc_rules(&r, "Black-Maria", 0);
    assert_int_equal(r.preset, engine_preset_find("black-maria"));
}

static void test_rules_parse_preset_refused_outside_its_range(void **state)
{
    (void)state;
    for (int i = 0; i < NPRESETS; i++) {
        const struct preset_row *p = &preset_rows[i];
        for (int n = p->min - 1; n <= p->max + 1; n += p->max - p->min + 2) {
            struct engine_error e =
                sc_rules_refused(p->name, n, ENGINE_ERR_PRESET_PLAYERS);
            assert_int_equal(e.preset, i);
            assert_int_equal(e.n1, p->min);
            assert_int_equal(e.n2, p->max);
            assert_int_equal(e.n3, n);
        }
    }
    /* the same through the players option */
    struct engine_error e =
        sc_rules_refused("modern players=7", 0, ENGINE_ERR_PRESET_PLAYERS);
    assert_int_equal(e.preset, engine_preset_find("modern"));
    assert_int_equal(e.n2, 6);
    e = sc_rules_refused("heartsette players=7", 0, ENGINE_ERR_PRESET_PLAYERS);
    assert_int_equal(e.n1, 3);
    assert_int_equal(e.n2, 6);
    assert_int_equal(e.n3, 7);
}

/* The struct fields of the presets whose values are not plain defaults,
 * read directly (the option text above goes through engine_rules_get). */
static void test_rules_parse_preset_struct_fields(void **state)
{
    (void)state;
    struct engine_rules r;

    sc_rules(&r, "greek", 4);
    assert_int_equal(r.pass_count, 3);
    assert_int_equal(r.pass_cycle_len, 1);
    assert_int_equal(r.pass_cycle[0], ENGINE_PASS_RIGHT);
    assert_int_equal(r.heart_points, ENGINE_HEARTS_SPOT);
    assert_int_equal(r.points[ENGINE_CARD(ENGINE_HEARTS, 10)], 50);
    assert_int_equal(r.points[ENGINE_QS], 13);
    assert_int_equal(r.moon, ENGINE_MOON_ADD_OTHERS);
    assert_int_equal(r.moon_points, 150);
    assert_int_equal(r.first_lead, ENGINE_LEAD_LEFT_OF_DEALER);

    sc_rules(&r, "cancellation", 8);
    assert_int_equal(r.decks, 2);
    assert_int_equal(r.odd_cards, ENGINE_ODD_KITTY);
    assert_int_equal(r.moon_points, 52);
    assert_int_equal(r.pass_count, 0);
    assert_int_equal(r.qs_points, 13);
    assert_true(r.special & ENGINE_SPECIAL_CANCEL);

    sc_rules(&r, "black-maria", 4);
    assert_int_equal(r.points[ENGINE_KS], 10);
    assert_int_equal(r.points[ENGINE_AS], 7);
    assert_int_equal(r.points[ENGINE_QS], 13);
    assert_int_equal(r.moon, ENGINE_MOON_OFF);
    assert_int_equal(r.pass_cycle_len, 1);
    assert_int_equal(r.pass_cycle[0], ENGINE_PASS_RIGHT);
    assert_int_equal(r.target, 50);

    sc_rules(&r, "modern", 4);
    assert_int_equal(r.bonus_card, ENGINE_BONUS_JD);
    assert_int_equal(r.bonus, ENGINE_JD);
    assert_int_equal(r.points[ENGINE_JD], -10);
    assert_int_equal(r.remove_table, ENGINE_REMOVE_MODERN);
    assert_int_equal(r.first_trick_points, ENGINE_FIRST_FORBIDDEN);
    assert_true(r.queen_breaks_hearts);
    assert_int_equal(r.moon, ENGINE_MOON_SUBTRACT);
    assert_true(r.special & ENGINE_SPECIAL_FIRST_TRICK);

    sc_rules(&r, "tens", 5);
    assert_int_equal(r.bonus, ENGINE_TD);
    assert_int_equal(r.points[ENGINE_TD], -10);
    assert_int_equal(r.odd_cards, ENGINE_ODD_FACEUP_LEFTOVER);
    assert_int_equal(r.lowest_club_fallback,
                     ENGINE_FALLBACK_FIRST_LEFT_WITH_CLUBS);
    assert_int_equal(r.pass_cycle_len, 3);
    assert_int_equal(r.pass_cycle[0], ENGINE_PASS_RIGHT);
    assert_int_equal(r.pass_cycle[1], ENGINE_PASS_LEFT);
    assert_int_equal(r.pass_cycle[2], ENGINE_PASS_HOLD);
    /* 5 players and leftovers: nothing removed, 2 face up */
    assert_int_equal(r.removed, 0);
    assert_int_equal(r.rest_len, 2);
    assert_true(r.special & ENGINE_SPECIAL_KITTY);

    sc_rules(&r, "party", 4);
    assert_int_equal(r.first_lead, ENGINE_LEAD_LEFT_OF_DEALER);
    assert_int_equal(r.hearts_lead, ENGINE_HEARTS_ANY);
    assert_int_equal(r.moon, ENGINE_MOON_SUBTRACT);

    sc_rules(&r, "basic", 4);
    assert_int_equal(r.qs_points, 0);
    assert_int_equal(r.points[ENGINE_QS], 0);
    assert_int_equal(r.moon, ENGINE_MOON_OFF);
    assert_int_equal(r.pass_count, 0);
    assert_int_equal(r.target, 50);

    sc_rules(&r, "spot", 4);
    assert_int_equal(r.heart_points, ENGINE_HEARTS_SPOT);
    assert_int_equal(r.points[ENGINE_CARD(ENGINE_HEARTS, 12)], 14);

    sc_rules(&r, "omnibus", 4);
    assert_int_equal(r.bonus, ENGINE_TD);
    assert_int_equal(r.moon, ENGINE_MOON_CHOICE);
    assert_true(r.moon_keeps_bonus);

    sc_rules(&r, "joker", 4);
    assert_true(r.joker);
    assert_int_equal(r.points[ENGINE_JOKER], 5);
    assert_true(r.special & ENGINE_SPECIAL_JOKER);

    sc_rules(&r, "heartsette", 4);
    assert_int_equal(r.odd_cards, ENGINE_ODD_WIDOW);

    sc_rules(&r, "domino", 5);
    assert_int_equal(r.stock, ENGINE_STOCK_DOMINO);
    assert_int_equal(r.target, 31);
    assert_true(r.special & ENGINE_SPECIAL_DOMINO);

    sc_rules(&r, "two-handed", 2);
    assert_int_equal(r.stock, ENGINE_STOCK_TWO_HANDED);
    assert_true(r.special & ENGINE_SPECIAL_TWO_HANDED);

    sc_rules(&r, "partners", 4);
    assert_int_equal(r.partners, ENGINE_PARTNERS_TEAM);
    sc_rules(&r, "partners partners=individual_score", 4);
    assert_int_equal(r.partners, ENGINE_PARTNERS_INDIVIDUAL);

    sc_rules(&r, "passing", 4);
    assert_int_equal(r.pass_count, 3);
    assert_int_equal(r.pass_cycle_len, 4);
    assert_int_equal(r.first_lead, ENGINE_LEAD_LEFT_OF_DEALER);

    sc_rules(&r, "standard", 4);
    assert_int_equal(r.moon, ENGINE_MOON_CHOICE);
    assert_int_equal(r.target, 100);
    assert_int_equal(r.bonus, ENGINE_NO_CARD);
    assert_int_equal(r.tie, ENGINE_TIE_PLAY_ON);
}

/* ---- Overrides --------------------------------------------------------- */

static void test_rules_parse_overrides_on_a_preset(void **state)
{
    (void)state;
    struct engine_rules r;
    sc_rules(&r, "omnibus moon=add_others target=150", 4);
    assert_int_equal(r.moon, ENGINE_MOON_ADD_OTHERS);
    assert_int_equal(r.target, 150);
    assert_int_equal(r.bonus, ENGINE_TD);
    assert_int_equal(r.preset, engine_preset_find("omnibus"));

    /* options alone start from standard; keys and values ignore case */
    sc_rules(&r, "MOON=Subtract Pass_Cycle=Left,RIGHT sun=yes", 0);
    assert_int_equal(r.preset, engine_preset_find("standard"));
    assert_int_equal(r.moon, ENGINE_MOON_SUBTRACT);
    assert_int_equal(r.pass_cycle_len, 2);
    assert_true(r.sun);

    /* the text's players= wins over the caller's count */
    sc_rules(&r, "standard players=5", 4);
    assert_int_equal(r.players, 5);
    assert_int_equal(r.hand_size, 10);

    /* blanks and tabs separate */
    sc_rules(&r, "  party\ttarget=75   hands=3 ", 3);
    assert_int_equal(r.target, 75);
    assert_int_equal(r.hands, 3);
    assert_int_equal(r.hearts_lead, ENGINE_HEARTS_ANY);
}

static void test_rules_parse_card_points_merge_on_the_preset(void **state)
{
    (void)state;
    struct engine_rules r;
    /* black-maria card_points=AS:5 keeps KS at 10 */
    sc_rules(&r, "black-maria card_points=AS:5", 4);
    assert_int_equal(r.points[ENGINE_AS], 5);
    assert_int_equal(r.points[ENGINE_KS], 10);
    assert_int_equal(r.points[ENGINE_QS], 13);

    /* a value replaces the card's value: QH:50 is 50, not 51 or 62 */
    sc_rules(&r, "standard card_points=QH:50", 4);
    assert_int_equal(r.points[ENGINE_CARD(ENGINE_HEARTS, 10)], 50);
    assert_int_equal(r.points[ENGINE_CARD(ENGINE_HEARTS, 9)], 1);
    sc_rules(&r, "spot card_points=QH:50", 4);
    assert_int_equal(r.points[ENGINE_CARD(ENGINE_HEARTS, 10)], 50);
    sc_rules(&r, "greek card_points=QH:40", 4);
    assert_int_equal(r.points[ENGINE_CARD(ENGINE_HEARTS, 10)], 40);

    /* lenient card names, several cards, negative values */
    sc_rules(&r, "standard card_points=10h:3,q\xe2\x99\xa0:20,jd:-5", 4);
    assert_int_equal(r.points[ENGINE_CARD(ENGINE_HEARTS, 8)], 3);
    assert_int_equal(r.points[ENGINE_QS], 20);
    assert_int_equal(r.qs_points, 20);
    assert_int_equal(r.points[ENGINE_JD], -5);
    assert_true(r.scoring & ENGINE_BIT(ENGINE_JD));
    assert_false(r.penalty & ENGINE_BIT(ENGINE_JD));

    /* none clears the list, the preset's included; qs_points, the
     * joker's value and bonus_points stay */
    sc_rules(&r, "black-maria card_points=none", 4);
    assert_int_equal(r.points[ENGINE_KS], 0);
    assert_int_equal(r.points[ENGINE_AS], 0);
    assert_int_equal(r.points[ENGINE_QS], 13);
    sc_rules(&r, "greek card_points=none", 4);
    assert_int_equal(r.points[ENGINE_CARD(ENGINE_HEARTS, 10)], 12);
    assert_int_equal(r.card_points_set, 0);
    sc_rules(&r, "joker card_points=none", 4);
    assert_int_equal(r.points[ENGINE_JOKER], 5);
    sc_rules(&r, "omnibus card_points=none", 4);
    assert_int_equal(r.points[ENGINE_TD], -10);
    /* none, then a list: the list replaces the preset's, and the rules
     * say so in their text ("none,"), which reads back the same */
    sc_rules(&r, "greek card_points=none,AC:2", 4);
    assert_int_equal(r.points[ENGINE_CARD(ENGINE_HEARTS, 10)], 12);
    assert_int_equal(r.points[ENGINE_CARD(ENGINE_CLUBS, 12)], 2);
    char text[ENGINE_OPTION_TEXT_MAX];
    engine_rules_get(&r, engine_option_find("card_points"), text, sizeof text);
    assert_string_equal(text, "none,AC:2");
    struct engine_rules again;
    sc_rules(&again, "greek card_points=none,AC:2", 4);
    assert_memory_equal(again.points, r.points, sizeof r.points);
    sc_rules(&r, "black-maria card_points=AS:5", 4);
    engine_rules_get(&r, engine_option_find("card_points"), text, sizeof text);
    assert_string_equal(text, "KS:10,AS:5");

    /* the joker's value, when it is in the pack */
    sc_rules(&r, "joker card_points=JK:7", 4);
    assert_int_equal(r.points[ENGINE_JOKER], 7);
    struct engine_error e = sc_rules_refused("standard card_points=JK:7", 4,
                                             ENGINE_ERR_CARD_NOT_IN_PACK);
    assert_int_equal(e.card, ENGINE_JOKER);
    assert_int_equal(e.n1, 4);
    e = sc_rules_refused("standard card_points=2D:1", 3,
                         ENGINE_ERR_CARD_NOT_IN_PACK);
    assert_int_equal(e.card, ENGINE_CARD(ENGINE_DIAMONDS, 0));
    assert_int_equal(e.n1, 3);
}

/* Every option may be named once in a text: the second is refused by
 * name, whatever its value, card_points like any other. */
static void test_rules_parse_refuses_an_option_named_twice(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_error e;
    static const struct {
        const char *text;
        const char *key; /* as typed */
    } cases[] = {
        {"standard target=50 target=89", "target"},
        {"target=50 TARGET=50", "TARGET"},
        {"omnibus moon=add_others moon=subtract", "moon"},
        {"standard card_points=KS:10 card_points=AS:7", "card_points"},
        {"greek card_points=none card_points=AC:2", "card_points"},
        {"standard players=5 target=20 players=5", "players"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&r, 0x5a, sizeof r);
        struct engine_rules before = r;
        assert_int_equal(engine_rules_parse(&r, cases[i].text, 4, &e), -1);
        assert_int_equal(e.code, ENGINE_ERR_OPTION_TWICE);
        assert_string_equal(e.word, cases[i].key);
        assert_int_equal(e.option, engine_option_find(cases[i].key));
        assert_memory_equal(&r, &before, sizeof r); /* nothing changed */
    }
    /* once each is fine, and an unknown key is named as unknown */
    assert_int_equal(engine_rules_parse(&r, "target=50 hands=3", 4, &e), 0);
    assert_int_equal(engine_rules_parse(&r, "tagret=5 tagret=5", 4, &e), -1);
    assert_int_equal(e.code, ENGINE_ERR_UNKNOWN_OPTION);
    assert_string_equal(e.word, "tagret");
}

/* A channel's rules with a person's options over them: theirs replace
 * the channel's of the same name, and only their own repeats remain. */
static void test_rules_over_replaces_the_channels_options(void **state)
{
    (void)state;
    char out[1024];
    assert_int_equal(engine_rules_over("omnibus target=50 moon=add",
                                       "target=89", out, sizeof out),
                     0);
    assert_string_equal(out, "omnibus moon=add target=89");
    assert_int_equal(
        engine_rules_over("standard", "target=50 target=89", out, sizeof out),
        0);
    assert_string_equal(out, "standard target=50 target=89");
    struct engine_rules r;
    assert_int_equal(engine_rules_parse(&r, out, 4, NULL), -1);
    /* keys compare as options do: case aside */
    assert_int_equal(
        engine_rules_over("standard TARGET=50", "target=89", out, sizeof out),
        0);
    assert_string_equal(out, "standard target=89");
    /* a text from before the rule: the last of a repeat counts */
    assert_int_equal(engine_rules_over("omnibus target=50 hands=2 target=89",
                                       "", out, sizeof out),
                     0);
    assert_string_equal(out, "omnibus hands=2 target=89");
    assert_int_equal(engine_rules_parse(&r, out, 4, NULL), 0);
    assert_int_equal(r.target, 89);
    /* too long for out */
    assert_int_equal(engine_rules_over("standard", "target=50", out, 10), -1);
}

static void test_rules_parse_qs_points_is_card_points_qs(void **state)
{
    (void)state;
    struct engine_rules a, b;
    sc_rules(&a, "standard qs_points=7", 4);
    sc_rules(&b, "standard card_points=QS:7", 4);
    assert_int_equal(a.points[ENGINE_QS], 7);
    assert_memory_equal(a.points, b.points, sizeof a.points);
    assert_int_equal(a.penalty, b.penalty);
    assert_int_equal(b.qs_points, 7);

    sc_rules(&a, "basic qs_points=13", 4);
    sc_rules(&b, "basic card_points=QS:13", 4);
    assert_memory_equal(a.points, b.points, sizeof a.points);
    assert_true(a.penalty & ENGINE_BIT(ENGINE_QS));

    /* the same value named in both is fine, in either order */
    sc_rules(&a, "standard qs_points=9 card_points=QS:9", 4);
    assert_int_equal(a.points[ENGINE_QS], 9);
    sc_rules(&a, "standard card_points=QS:9 qs_points=9", 4);
    assert_int_equal(a.points[ENGINE_QS], 9);

    /* different values are refused, in either order */
    struct engine_error e = sc_rules_refused(
        "standard qs_points=7 card_points=QS:8", 4, ENGINE_ERR_CARD_POINTS_QS);
    assert_int_equal(e.card, ENGINE_QS);
    assert_int_equal(e.n1, 8);
    assert_int_equal(e.n2, 7);
    e = sc_rules_refused("standard card_points=QS:8 qs_points=7", 4,
                         ENGINE_ERR_QS_POINTS_CARD);
    assert_int_equal(e.n1, 7);
    assert_int_equal(e.n2, 8);

    /* qs_points 0 takes the QS out of the penalty cards */
    sc_rules(&a, "standard qs_points=0", 4);
    assert_false(a.penalty & ENGINE_BIT(ENGINE_QS));
    assert_false(a.scoring & ENGINE_BIT(ENGINE_QS));
}

/* ---- Errors ------------------------------------------------------------ */

static void test_rules_parse_names_the_nearest_word(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        enum engine_error_code code;
        const char *option; /* the option named, or NULL */
        const char *word;
        const char *near;
    } rows[] = {
        {"standard tagret=150", ENGINE_ERR_UNKNOWN_OPTION, NULL, "tagret",
         "target"},
        {"standard moon=subtrakt", ENGINE_ERR_BAD_VALUE, "moon", "subtrakt",
         "subtract"},
        {"omnibuss", ENGINE_ERR_UNKNOWN_PRESET, NULL, "omnibuss", "omnibus"},
        {"blackmaria", ENGINE_ERR_UNKNOWN_PRESET, NULL, "blackmaria",
         "black-maria"},
        {"standard odd_cards=kity", ENGINE_ERR_BAD_VALUE, "odd_cards", "kity",
         "kitty"},
        {"standard pass_cycle=left,rigth", ENGINE_ERR_BAD_DIRECTION,
         "pass_cycle", "rigth", "right"},
        {"standard tie=shar", ENGINE_ERR_BAD_VALUE, "tie", "shar", "share"},
        {"standard partners=team", ENGINE_ERR_BAD_VALUE, "partners", "team",
         "team_score"},
        {"standard remove_table=bigD2", ENGINE_ERR_BAD_VALUE, "remove_table",
         "bigD2", "bigd"},
        {"standard heart_ponts=spot", ENGINE_ERR_UNKNOWN_OPTION, NULL,
         "heart_ponts", "heart_points"},
        {"standard bonus_card=QD", ENGINE_ERR_BAD_VALUE, "bonus_card", "QD",
         NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_error e = sc_rules_refused(rows[i].text, 4, rows[i].code);
        if (rows[i].option)
            assert_int_equal(e.option, engine_option_find(rows[i].option));
        assert_string_equal(e.word, rows[i].word);
        if (rows[i].near)
            assert_string_equal(e.near, rows[i].near);
    }
}

/* A word too long for the error is cut at a character, never inside
 * one. */
static void test_rules_error_cuts_a_long_word_at_a_character(void **state)
{
    (void)state;
    char text[600];
    int n = snprintf(text, sizeof text, "standard moon=");
    for (int i = 0; i < 200; i++) /* "é" is two bytes */
        n += snprintf(text + n, sizeof text - (size_t)n, "\xc3\xa9");
    struct engine_error e = sc_rules_refused(text, 4, ENGINE_ERR_BAD_VALUE);
    size_t len = strlen(e.word);
    assert_true(len < ENGINE_ERROR_WORD);
    assert_true(len >= ENGINE_ERROR_WORD - 2);
    assert_int_equal(len % 2, 0);
    assert_memory_equal(e.word, text + strlen("standard moon="), len);
}

/* A typo's distance: one edit a letter added, dropped or changed, and
 * one for two neighbours swapped; case folded only when asked. */
static void test_word_distance_counts_a_swap_as_one_edit(void **state)
{
    (void)state;
    assert_int_equal(engine_word_distance("hlep", 4, "help", true), 1);
    assert_int_equal(engine_word_distance("satrt", 5, "start", true), 1);
    assert_int_equal(engine_word_distance("hepl", 4, "help", true), 1);
    assert_int_equal(engine_word_distance("help", 4, "help", true), 0);
    assert_int_equal(engine_word_distance("hel", 3, "help", true), 1);
    assert_int_equal(engine_word_distance("tell", 4, "help", true), 2);
    assert_int_equal(engine_word_distance("lpeh", 4, "help", true), 4);
    assert_int_equal(engine_word_distance("HELP", 4, "help", true), 0);
    assert_int_equal(engine_word_distance("HELP", 4, "help", false), 4);
    /* a swap of two letters that are the same is no edit at all */
    assert_int_equal(engine_word_distance("toop", 4, "toop", true), 0);
    assert_int_equal(engine_word_distance("x", 1, "", true), 1);
}

static void test_rules_parse_refuses_bad_values(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        enum engine_error_code code;
        const char *option;
        bool range; /* n1 to n2 are what it takes */
        int n1, n2;
    } rows[] = {
        /* integers out of range or not numbers */
        {"standard target=0", ENGINE_ERR_BAD_NUMBER, "target", 0, 0, 0},
        {"standard target=-5", ENGINE_ERR_BAD_NUMBER, "target", 0, 0, 0},
        {"standard target=abc", ENGINE_ERR_BAD_NUMBER, "target", 0, 0, 0},
        {"standard target=12x", ENGINE_ERR_BAD_NUMBER, "target", 0, 0, 0},
        {"standard target=", ENGINE_ERR_BAD_NUMBER, "target", 0, 0, 0},
        {"standard pass_count=5", ENGINE_ERR_BAD_NUMBER, "pass_count", 0, 0, 0},
        {"standard pass_count=-1", ENGINE_ERR_BAD_NUMBER, "pass_count", 1, 0,
         4},
        {"standard decks=3", ENGINE_ERR_BAD_NUMBER, "decks", 1, 1, 2},
        {"standard players=1", ENGINE_ERR_BAD_NUMBER, "players", 0, 0, 0},
        {"standard players=11", ENGINE_ERR_BAD_NUMBER, "players", 1, 2, 10},
        {"standard ace_spot_value=7", ENGINE_ERR_BAD_ACE_VALUE,
         "ace_spot_value", 0, 0, 0},
        {"standard ace_spot_value=0", ENGINE_ERR_BAD_NUMBER, "ace_spot_value",
         0, 0, 0},
        {"standard hands=-1", ENGINE_ERR_BAD_NUMBER, "hands", 0, 0, 0},
        {"standard moon_points=-1", ENGINE_ERR_BAD_NUMBER, "moon_points", 0, 0,
         0},
        {"standard qs_points=5000", ENGINE_ERR_BAD_NUMBER, "qs_points", 0, 0,
         0},
        {"standard bonus_points=x", ENGINE_ERR_BAD_NUMBER, "bonus_points", 0, 0,
         0},
        /* the catalogue's limits, refused with the range named */
        {"standard target=1001", ENGINE_ERR_BAD_NUMBER, "target", 1, 1, 1000},
        {"standard target=100000", ENGINE_ERR_BAD_NUMBER, "target", 1, 1, 1000},
        {"standard hands=1001", ENGINE_ERR_BAD_NUMBER, "hands", 1, 0, 1000},
        {"standard moon_points=1001", ENGINE_ERR_BAD_NUMBER, "moon_points", 1,
         0, 1000},
        {"standard qs_points=-1001", ENGINE_ERR_BAD_NUMBER, "qs_points", 1,
         -1000, 1000},
        {"standard bonus_points=1001", ENGINE_ERR_BAD_NUMBER, "bonus_points", 1,
         -1000, 1000},
        {"standard card_points=KS:-1001", ENGINE_ERR_BAD_CARD_VALUE,
         "card_points", 1, -1000, 1000},
        /* booleans */
        {"standard joker=maybe", ENGINE_ERR_BAD_SWITCH, "joker", 0, 0, 0},
        {"standard sun=2", ENGINE_ERR_BAD_SWITCH, "sun", 0, 0, 0},
        /* pass cycles */
        {"standard pass_cycle=", ENGINE_ERR_BAD_CYCLE, "pass_cycle", 0, 0, 0},
        {"standard pass_cycle=left,,right", ENGINE_ERR_BAD_CYCLE, "pass_cycle",
         0, 0, 0},
        {"standard pass_cycle=left,right,left,right,left,right,left,right,"
         "left,right,left,right,left,right,left,right,left",
         ENGINE_ERR_CYCLE_TOO_LONG, "pass_cycle", 1, 16, 0},
        /* card_points */
        {"standard card_points=XX:5", ENGINE_ERR_BAD_CARD_POINTS, "card_points",
         0, 0, 0},
        {"standard card_points=QS", ENGINE_ERR_BAD_CARD_POINTS, "card_points",
         0, 0, 0},
        {"standard card_points=QS:", ENGINE_ERR_BAD_CARD_VALUE, "card_points",
         0, 0, 0},
        {"standard card_points=QS:5000", ENGINE_ERR_BAD_CARD_VALUE,
         "card_points", 1, -1000, 1000},
        {"standard card_points=QS:5,", ENGINE_ERR_BAD_CARD_POINTS,
         "card_points", 0, 0, 0},
        {"standard card_points=1H:5", ENGINE_ERR_BAD_CARD_POINTS, "card_points",
         0, 0, 0},
        /* the shape of the line */
        {"standard foo", ENGINE_ERR_NOT_KEY_VALUE, NULL, 0, 0, 0},
        {"standard =5", ENGINE_ERR_NO_KEY, NULL, 0, 0, 0},
        {"standard moon=off omnibus", ENGINE_ERR_NOT_KEY_VALUE, NULL, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_error e = sc_rules_refused(rows[i].text, 4, rows[i].code);
        if (rows[i].option)
            assert_int_equal(e.option, engine_option_find(rows[i].option));
        if (rows[i].range) {
            assert_int_equal(e.n1, rows[i].n1);
            assert_int_equal(e.n2, rows[i].n2);
        }
    }
    /* what was typed is named */
    struct engine_error e = sc_rules_refused("standard card_points=QS:ten", 4,
                                             ENGINE_ERR_BAD_CARD_VALUE);
    assert_string_equal(e.word, "ten");
    assert_int_equal(e.card, ENGINE_QS);
    e = sc_rules_refused("standard target=12x", 4, ENGINE_ERR_BAD_NUMBER);
    assert_string_equal(e.word, "12x");
    e = sc_rules_refused("standard moon=off omnibus", 4,
                         ENGINE_ERR_NOT_KEY_VALUE);
    assert_string_equal(e.word, "omnibus");
}

/* Every combination variants.md refuses, and the nearest one it allows. */
static void test_rules_parse_refuses_combinations(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int players;
        enum engine_error_code code; /* NONE: accepted */
    } rows[] = {
        /* joker with two decks */
        {"cancellation joker=on", 6, ENGINE_ERR_JOKER_TWO_DECKS},
        /* stock with a kitty, with two decks, with partners */
        {"domino odd_cards=kitty", 4, ENGINE_ERR_STOCK_KITTY},
        {"domino odd_cards=widow", 4, ENGINE_ERR_STOCK_KITTY},
        {"two-handed odd_cards=kitty_exchange", 2, ENGINE_ERR_STOCK_KITTY},
        {"cancellation stock=domino", 6, ENGINE_ERR_STOCK_TWO_DECKS},
        {"domino partners=team_score", 4, ENGINE_ERR_PARTNERS_STOCK},
        /* odd_cards=remove with two decks: only where 104 divides */
        {"cancellation odd_cards=remove", 6, ENGINE_ERR_TWO_DECKS_DIVIDE},
        {"cancellation odd_cards=remove", 7, ENGINE_ERR_TWO_DECKS_DIVIDE},
        {"cancellation odd_cards=remove", 8, ENGINE_ERR_NONE},
        {"cancellation odd_cards=remove", 9, ENGINE_ERR_TWO_DECKS_DIVIDE},
        {"cancellation odd_cards=remove", 10, ENGINE_ERR_TWO_DECKS_DIVIDE},
        /* scatter needs a multiple of players - 1 */
        {"standard pass_cycle=scatter pass_count=2", 3, ENGINE_ERR_NONE},
        {"standard pass_cycle=scatter pass_count=4", 3, ENGINE_ERR_NONE},
        {"standard pass_cycle=scatter pass_count=3", 3,
         ENGINE_ERR_SCATTER_COUNT},
        {"standard pass_cycle=scatter pass_count=1", 3,
         ENGINE_ERR_SCATTER_COUNT},
        {"standard pass_cycle=scatter", 4, ENGINE_ERR_NONE},
        {"standard pass_cycle=scatter pass_count=2", 4,
         ENGINE_ERR_SCATTER_COUNT},
        {"standard pass_cycle=scatter pass_count=4", 4,
         ENGINE_ERR_SCATTER_COUNT},
        {"standard pass_cycle=scatter pass_count=4", 5, ENGINE_ERR_NONE},
        {"standard pass_cycle=left,scatter pass_count=3", 5,
         ENGINE_ERR_SCATTER_COUNT},
        {"standard pass_cycle=scatter pass_count=0", 5, ENGINE_ERR_NONE},
        /* the sun needs a moon */
        {"basic sun=on", 4, ENGINE_ERR_SUN_NO_MOON},
        {"standard moon=off sun=on", 4, ENGINE_ERR_SUN_NO_MOON},
        {"basic moon=subtract sun=on", 4, ENGINE_ERR_NONE},
        /* cards to pass against the hand: 4 of 7 is fine */
        {"standard pass_count=4", 7, ENGINE_ERR_NONE},
        {"domino pass_count=4", 7, ENGINE_ERR_NONE},
        /* player counts: one deck 2..7, two decks 6..10 */
        {"cancellation decks=1", 8, ENGINE_ERR_ONE_DECK_PLAYERS},
        {"cancellation decks=1", 7, ENGINE_ERR_NONE},
        {"black-lady decks=2", 5, ENGINE_ERR_TWO_DECKS_PLAYERS},
        {"black-lady decks=2 odd_cards=kitty", 6, ENGINE_ERR_NONE},
        {"standard", 8, ENGINE_ERR_PRESET_PLAYERS},
        /* two players: the two-handed game only */
        {"two-handed stock=off", 2, ENGINE_ERR_TWO_PLAYERS_STOCK},
        {"two-handed stock=domino", 2, ENGINE_ERR_TWO_PLAYERS_STOCK},
        {"standard stock=two_handed", 4, ENGINE_ERR_TWO_HANDED_PLAYERS},
        /* the modern remove table stops at 6 */
        {"standard remove_table=modern", 7, ENGINE_ERR_MODERN_SEVEN},
        {"standard remove_table=modern", 6, ENGINE_ERR_NONE},
        {"standard remove_table=modern odd_cards=kitty", 7, ENGINE_ERR_NONE},
        /* a widow is for 3 to 6 players and one deck */
        {"basic odd_cards=widow", 7, ENGINE_ERR_WIDOW_PLAYERS},
        {"basic odd_cards=widow", 3, ENGINE_ERR_NONE},
        {"cancellation odd_cards=widow", 6, ENGINE_ERR_WIDOW_PLAYERS},
        /* partners are four */
        {"standard partners=team_score", 5, ENGINE_ERR_PARTNERS_FOUR},
        {"standard partners=individual_score", 3, ENGINE_ERR_PARTNERS_FOUR},
        {"standard partners=individual_score", 4, ENGINE_ERR_NONE},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].code) {
            struct engine_error e =
                sc_rules_refused(rows[i].text, rows[i].players, rows[i].code);
            int n = rows[i].players;
            if (e.code == ENGINE_ERR_TWO_DECKS_DIVIDE)
                assert_int_equal(e.n1, n);
            if (e.code == ENGINE_ERR_SCATTER_COUNT) {
                assert_int_equal(e.n1, n - 1);
                assert_int_equal(e.n2, n);
            }
        } else {
            struct engine_rules r;
            sc_rules(&r, rows[i].text, rows[i].players);
        }
    }
}

static void test_rules_parse_refused_leaves_rules_unchanged(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "omnibuss",
        "greek tagret=5",
        "greek moon=off sun=on",
        "black-maria card_points=AS:5,XX:1",
        "black-maria qs_points=3 card_points=QS:4",
        "cancellation joker=on",
        "modern",
        "standard pass_cycle=left,bad",
        "partners",
    };
    struct engine_rules r, before;
    sc_rules(&r, "greek target=77", 3);
    memcpy(&before, &r, sizeof r); /* with the padding */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct engine_error e = {0};
        int players = strcmp(bad[i], "modern") == 0 ? 7 : 3;
        assert_int_equal(engine_rules_parse(&r, bad[i], players, &e), -1);
        assert_int_not_equal(e.code, ENGINE_ERR_NONE);
        assert_memory_equal(&r, &before, sizeof r);
    }
    /* a refused set and a refused finish change nothing either */
    struct engine_error e;
    assert_int_equal(engine_rules_set(&r, "moon", "nope", &e), -1);
    assert_int_equal(e.code, ENGINE_ERR_BAD_VALUE);
    assert_int_equal(engine_rules_set(&r, "card_points", "KS:1,ZZ:2", &e), -1);
    assert_int_equal(e.code, ENGINE_ERR_BAD_CARD_POINTS);
    assert_int_equal(engine_rules_set(&r, "pass_cycle", "left,upward", &e), -1);
    assert_int_equal(e.code, ENGINE_ERR_BAD_DIRECTION);
    assert_int_equal(engine_rules_set(&r, "bogus", "1", &e), -1);
    assert_int_equal(e.code, ENGINE_ERR_UNKNOWN_OPTION);
    assert_int_equal(engine_rules_set(&r, "bogus", "1", NULL), -1);
    assert_memory_equal(&r, &before, sizeof r);
    struct engine_rules t = r;
    assert_int_equal(engine_rules_set(&t, "partners", "team_score", &e), 0);
    struct engine_rules u = t;
    assert_int_equal(engine_rules_finish(&t, &e), -1);
    assert_int_equal(e.code, ENGINE_ERR_PARTNERS_FOUR);
    assert_int_equal(e.option, engine_option_find("partners"));
    assert_memory_equal(&t, &u, sizeof t);
}

static void test_rules_init_unknown_preset(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_error e;
    assert_int_equal(engine_rules_init(&r, "grek", &e), -1);
    assert_int_equal(e.code, ENGINE_ERR_UNKNOWN_PRESET);
    assert_string_equal(e.word, "grek");
    assert_string_equal(e.near, "greek");
    assert_int_equal(engine_rules_init(&r, NULL, &e), 0);
    assert_int_equal(r.preset, engine_preset_find("standard"));
    assert_int_equal(engine_preset_find("nonesuch"), -1);
    assert_int_equal(engine_option_find("nonesuch"), -1);
    assert_int_equal(engine_option_find("TARGET"),
                     engine_option_find("target"));
    /* the words an option of named values takes */
    int tie = engine_option_find("tie");
    assert_string_equal(engine_option_value(tie, 0), "share");
    assert_string_equal(engine_option_value(tie, 1), "play_on");
    assert_null(engine_option_value(tie, 2));
    assert_string_equal(
        engine_option_value(engine_option_find("pass_cycle"), 6), "right2");
    assert_null(engine_option_value(engine_option_find("target"), 0));
    assert_null(engine_option_value(-1, 0));
    assert_null(engine_option_value(tie, -1));
    assert_null(engine_preset_name(-1));
    assert_null(engine_preset_name(NPRESETS));
    assert_null(engine_option_name(NDEFAULTS));
}

/* ---- Reading options back ------------------------------------------- */

/* Values typed in any accepted form, and the canonical form they read
 * back as. */
static void test_rules_get_round_trips_through_set(void **state)
{
    (void)state;
    static const struct {
        const char *key, *typed, *canonical;
    } rows[] = {
        {"players", "5", "5"},
        {"decks", "2", "2"},
        {"odd_cards", "KITTY_first_point", "kitty_first_point"},
        {"odd_cards", "widow", "widow"},
        {"remove_table", "BigD", "bigd"},
        {"joker", "yes", "on"},
        {"joker", "0", "off"},
        {"pass_count", "4", "4"},
        {"pass_cycle", "Left,RIGHT,scatter,left2,right2,hold,across",
         "left,right,scatter,left2,right2,hold,across"},
        {"pass_blind", "true", "on"},
        {"first_lead", "left_of_dealer", "left_of_dealer"},
        {"lowest_club_fallback", "first_left_with_clubs",
         "first_left_with_clubs"},
        {"hearts_lead", "any", "any"},
        {"queen_breaks_hearts", "on", "on"},
        {"lead_hearts_over_queen", "off", "off"},
        {"first_trick_points", "forbidden", "forbidden"},
        {"dump_queen", "1", "on"},
        {"heart_points", "spot", "spot"},
        {"ace_spot_value", "1", "1"},
        {"qs_points", "0", "0"},
        {"card_points", "as:7,ks:10", "KS:10,AS:7"},
        {"card_points", "none", "none"},
        {"bonus_card", "jd", "JD"},
        {"bonus_card", "none", "none"},
        {"bonus_points", "-5", "-5"},
        {"moon", "add_unless_loses", "add_unless_loses"},
        {"moon_points", "150", "150"},
        {"moon_keeps_bonus", "off", "off"},
        {"sun", "on", "on"},
        {"exact_target_reset", "half", "half"},
        {"exact_target_reset", "zero", "zero"},
        {"match_pairs", "on", "on"},
        {"target", "31", "31"},
        {"hands", "12", "12"},
        {"tie", "share", "share"},
        {"partners", "individual_score", "individual_score"},
        {"stock", "domino", "domino"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_rules r;
        char got[256];
        struct engine_error e;
        sc_rules(&r, "standard", 4);
        if (engine_rules_set(&r, rows[i].key, rows[i].typed, &e))
            fail_msg("%s=%s refused: %s", rows[i].key, rows[i].typed,
                     sc_error(&e));
        assert_false(r.finished);
        int o = engine_option_find(rows[i].key);
        assert_true(o >= 0);
        int len = engine_rules_get(&r, o, got, sizeof got);
        assert_int_equal(len, (int)strlen(got));
        if (strcmp(got, rows[i].canonical) != 0)
            fail_msg("%s=%s reads back as '%s', want '%s'", rows[i].key,
                     rows[i].typed, got, rows[i].canonical);
    }
    /* every option of every preset reads back as text set takes, and
     * setting it again changes no option */
    for (int p = 0; p < NPRESETS; p++) {
        struct engine_rules r, t;
        int min, max;
        engine_preset_players(p, &min, &max);
        sc_rules(&r, preset_rows[p].name, max);
        t = r;
        for (int o = 0; o < NDEFAULTS; o++) {
            char a[256], b[256];
            struct engine_error e;
            engine_rules_get(&r, o, a, sizeof a);
            if (engine_rules_set(&t, engine_option_name(o), a, &e))
                fail_msg("%s: %s=%s does not set back: %s", preset_rows[p].name,
                         engine_option_name(o), a, sc_error(&e));
            engine_rules_get(&t, o, b, sizeof b);
            assert_string_equal(a, b);
        }
        assert_int_equal(engine_rules_finish(&t, NULL), 0);
        assert_memory_equal(t.points, r.points, sizeof r.points);
        assert_memory_equal(t.deck, r.deck, sizeof r.deck);
        assert_int_equal(t.hand_size, r.hand_size);
    }
    /* bad indices and a short buffer */
    struct engine_rules r;
    char small[4];
    sc_rules(&r, "standard", 4);
    assert_int_equal(engine_rules_get(&r, -1, small, sizeof small), -1);
    assert_int_equal(engine_rules_get(&r, NDEFAULTS, small, sizeof small), -1);
    int o = engine_option_find("pass_cycle");
    assert_int_equal(engine_rules_get(&r, o, small, sizeof small),
                     (int)strlen("left,right,across,hold"));
    assert_string_equal(small, "lef");
}

static void test_rules_differs_only_for_overrides(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *differs; /* blank-separated keys; all others equal */
    } rows[] = {
        {"standard", ""},
        {"greek", ""},
        {"black-maria", ""},
        {"cancellation", ""},
        {"omnibus moon=add_others target=150", "moon target"},
        {"black-maria card_points=AS:5", "card_points"},
        {"black-maria card_points=KS:10", ""},
        {"black-maria qs_points=13", ""},
        {"greek moon_points=100 pass_cycle=left", "moon_points pass_cycle"},
        {"basic qs_points=13", "qs_points"},
        {"standard moon=choice target=100", ""},
        {"party sun=on tie=share", "sun tie"},
        {"standard card_points=QS:13", "card_points"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_rules r;
        sc_rules(&r, rows[i].text, 0);
        for (int o = 0; o < NDEFAULTS; o++) {
            const char *key = engine_option_name(o);
            const char *p = strstr(rows[i].differs, key);
            size_t kl = strlen(key);
            bool want = p && (p[kl] == ' ' || p[kl] == '\0') &&
                        (p == rows[i].differs || p[-1] == ' ');
            if (engine_rules_differs(&r, o) != want)
                fail_msg("'%s': differs(%s) should be %d", rows[i].text, key,
                         want);
        }
    }
}

static void test_rules_changes_name_what_differs(void **state)
{
    (void)state;
    struct engine_rules r;
    char buf[64];
    assert_int_equal(engine_rules_parse(&r, "standard players=3", 0, NULL), 0);
    assert_int_equal(engine_rules_changes(&r, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(
        engine_rules_parse(&r, "omnibus hands=2 target=50", 0, NULL), 0);
    int n = engine_rules_changes(&r, buf, sizeof buf);
    assert_true(strstr(buf, "hands=2") && strstr(buf, "target=50"));
    assert_int_equal(n, (int)strlen(buf));
    /* cut at an option, never inside one; the whole length returned */
    char small[10];
    assert_int_equal(engine_rules_changes(&r, small, sizeof small), n);
    assert_true(strcmp(small, "target=50") == 0 ||
                strcmp(small, "hands=2") == 0);
}

/* ---- Derived tables -------------------------------------------------- */

static void test_rules_finish_remove_tables(void **state)
{
    (void)state;
    static const struct {
        const char *table;
        int players;
        const char *removed; /* NULL: refused */
        int hand_size;
    } rows[] = {
        {"momentpoint", 3, "2D", 17},
        {"momentpoint", 4, "", 13},
        {"momentpoint", 5, "2D 2C", 10},
        {"momentpoint", 6, "2C 2D 2S 3D", 8},
        {"momentpoint", 7, "2C 2D 2S", 7},
        {"bigd", 3, "2D", 17},
        {"bigd", 4, "", 13},
        {"bigd", 5, "2D 2S", 10},
        {"bigd", 6, "2C 2D 2S 3D", 8},
        {"bigd", 7, "2C 2D 2S", 7},
        {"modern", 3, "2C", 17},
        {"modern", 4, "", 13},
        {"modern", 5, "2C 2D", 10},
        {"modern", 6, "2C 3C 2D 3D", 8},
        {"modern", 7, NULL, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "standard remove_table=%s", rows[i].table);
        if (!rows[i].removed) {
            sc_rules_refused(text, rows[i].players, ENGINE_ERR_MODERN_SEVEN);
            continue;
        }
        struct engine_rules r;
        sc_rules(&r, text, rows[i].players);
        uint64_t want = sc_set(rows[i].removed);
        if (r.removed != want)
            fail_msg("%s for %d removes [%s], want [%s]", rows[i].table,
                     rows[i].players, sc_fmt(r.removed), sc_fmt(want));
        assert_int_equal(r.hand_size, rows[i].hand_size);
        assert_int_equal(r.deck_len, 52 - __builtin_popcountll(want));
        assert_int_equal(r.rest_len, 0);
        assert_int_equal(r.hand_size * rows[i].players, r.deck_len);
        assert_int_equal(r.in_play & want, 0);
        assert_int_equal(r.in_play | want,
                         ENGINE_ALL_CARDS & ~ENGINE_BIT(ENGINE_JOKER));
        /* the pack lists each card in play once, ascending */
        for (int k = 0; k < r.deck_len; k++) {
            assert_true(r.in_play & ENGINE_BIT(r.deck[k]));
            if (k)
                assert_true(r.deck[k] > r.deck[k - 1]);
        }
    }
}

/* Hand sizes and the rest (kitty, widow, leftovers, stock) for the deals
 * that do not remove cards. */
static void test_rules_finish_hand_and_rest_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int players;
        int hand_size, deck_len, rest_len;
        const char *removed;
        bool kitty; /* ENGINE_SPECIAL_KITTY */
    } rows[] = {
        {"standard odd_cards=kitty", 3, 17, 52, 1, "", true},
        {"standard odd_cards=kitty", 4, 13, 52, 0, "", false},
        {"standard odd_cards=kitty_first_point", 5, 10, 52, 2, "", true},
        {"standard odd_cards=kitty_exchange", 6, 8, 52, 4, "", true},
        {"tens", 7, 7, 52, 3, "", true},
        /* widow: 2S out with 3 or 4 players; widows of 3, 3, 2, 4 */
        {"heartsette", 3, 16, 51, 3, "2S", true},
        {"heartsette", 4, 12, 51, 3, "2S", true},
        {"heartsette", 5, 10, 52, 2, "", true},
        {"heartsette", 6, 8, 52, 4, "", true},
        /* two decks */
        {"cancellation", 6, 17, 104, 2, "", true},
        {"cancellation", 7, 14, 104, 6, "", true},
        {"cancellation", 8, 13, 104, 0, "", false},
        {"cancellation", 9, 11, 104, 5, "", true},
        {"cancellation", 10, 10, 104, 4, "", true},
        {"cancellation odd_cards=remove", 8, 13, 104, 0, "", false},
        /* stocks deal from the full pack */
        {"domino", 3, 6, 52, 34, "", false},
        {"domino", 7, 6, 52, 10, "", false},
        {"two-handed", 2, 13, 52, 26, "", false},
        {"joker", 4, 13, 52, 0, "2H", false},
        {"joker", 3, 17, 51, 0, "2D 2H", false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_rules r;
        sc_rules(&r, rows[i].text, rows[i].players);
        char what[80];
        snprintf(what, sizeof what, "%s for %d", rows[i].text, rows[i].players);
        if (r.hand_size != rows[i].hand_size ||
            r.deck_len != rows[i].deck_len || r.rest_len != rows[i].rest_len)
            fail_msg("%s: hand %d deck %d rest %d, want %d %d %d", what,
                     r.hand_size, r.deck_len, r.rest_len, rows[i].hand_size,
                     rows[i].deck_len, rows[i].rest_len);
        uint64_t removed = sc_set(rows[i].removed);
        /* the joker takes the 2H's place: it is "removed" from the pack */
        uint64_t pack = ENGINE_ALL_CARDS & ~ENGINE_BIT(ENGINE_JOKER);
        if (r.joker)
            pack |= ENGINE_BIT(ENGINE_JOKER);
        if (r.in_play != (pack & ~removed))
            fail_msg("%s: in play lacks [%s]", what,
                     sc_fmt(pack & ~removed & ~r.in_play));
        assert_int_equal(r.hand_size * rows[i].players + r.rest_len,
                         r.deck_len);
        assert_int_equal((r.special & ENGINE_SPECIAL_KITTY) != 0,
                         rows[i].kitty);
        /* two decks list every card twice */
        int count[64] = {0};
        for (int k = 0; k < r.deck_len; k++)
            count[r.deck[k]]++;
        for (int c = 0; c < 64; c++)
            assert_int_equal(count[c],
                             (r.in_play & ENGINE_BIT(c)) ? r.decks : 0);
    }
}

/* The sum of the points of the whole pack, copies included. */
static int pack_points(const struct engine_rules *r)
{
    int sum = 0;
    for (int k = 0; k < r->deck_len; k++)
        sum += r->points[r->deck[k]];
    return sum;
}

static void test_rules_finish_points_per_card(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int players;
        const char *cards; /* "CARD=value ..." checked one by one */
        const char *penalty;
        int pack_total;
    } rows[] = {
        {"standard", 4, "2H=1 AH=1 QS=13 KS=0 TD=0 JD=0",
         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS", 26},
        {"basic", 4, "2H=1 AH=1 QS=0", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
         13},
        {"spot", 4, "2H=2 9H=9 TH=10 JH=11 QH=12 KH=13 AH=14 QS=0",
         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", 104},
        {"spot ace_spot_value=1", 4, "2H=2 KH=13 AH=1",
         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", 91},
        {"standard heart_points=spot", 4, "AH=14 QS=13",
         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS", 117},
        {"greek", 4, "2H=2 JH=11 QH=50 KH=13 AH=14 QS=13",
         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS", 155},
        {"greek ace_spot_value=1", 4, "AH=1 QH=50", NULL, 142},
        {"black-maria", 4, "2H=1 QS=13 KS=10 AS=7 JS=0",
         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS KS AS", 43},
        {"omnibus", 4, "TD=-10 JD=0 QS=13",
         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS", 16},
        {"omnibus bonus_card=JD bonus_points=-5", 4, "TD=0 JD=-5", NULL, 21},
        {"modern", 3, "JD=-10 2C=0", NULL, 16},
        {"tens", 4, "TD=-10", NULL, 16},
        {"joker", 4, "JK=5 2H=0 3H=1", "JK 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
         17},
        {"joker qs_points=13", 4, "JK=5 QS=13", NULL, 30},
        {"cancellation", 6, "2H=1 QS=13",
         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS", 52},
        {"domino", 4, "2H=1 QS=0", NULL, 13},
        /* a positive bonus makes the bonus card a penalty card */
        {"omnibus bonus_points=5", 4, "TD=5",
         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS TD", 31},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_rules r;
        sc_rules(&r, rows[i].text, rows[i].players);
        const char *p = rows[i].cards;
        while (*p) {
            while (*p == ' ')
                p++;
            const char *eq = strchr(p, '=');
            int card;
            assert_int_equal(engine_card_parse(p, (size_t)(eq - p), &card), 0);
            int want = atoi(eq + 1);
            if (engine_card_points(&r, card) != want)
                fail_msg("%s: %s is worth %d, want %d", rows[i].text,
                         engine_card_name(card), engine_card_points(&r, card),
                         want);
            p = strchr(eq, ' ');
            if (!p)
                break;
        }
        if (rows[i].penalty && r.penalty != sc_set(rows[i].penalty))
            fail_msg("%s: penalty [%s], want [%s]", rows[i].text,
                     sc_fmt(r.penalty), rows[i].penalty);
        if (pack_points(&r) != rows[i].pack_total)
            fail_msg("%s: the pack is worth %d, want %d", rows[i].text,
                     pack_points(&r), rows[i].pack_total);
        /* penalty and scoring masks agree with the table */
        for (int c = 0; c < 64; c++) {
            assert_int_equal((r.penalty >> c) & 1, r.points[c] > 0);
            assert_int_equal((r.scoring >> c) & 1, r.points[c] != 0);
            if (!(r.in_play & ENGINE_BIT(c)))
                assert_int_equal(r.points[c], 0);
        }
    }
}

static void test_rules_finish_bonus_card(void **state)
{
    (void)state;
    struct engine_rules r;
    sc_rules(&r, "standard", 4);
    assert_int_equal(r.bonus, ENGINE_NO_CARD);
    sc_rules(&r, "standard bonus_card=TD", 4);
    assert_int_equal(r.bonus, ENGINE_TD);
    sc_rules(&r, "standard bonus_card=JD bonus_points=-20", 4);
    assert_int_equal(r.bonus, ENGINE_JD);
    assert_int_equal(r.points[ENGINE_JD], -20);
    /* the bonus card's value is bonus_points: card_points may not name it
     * (variants.md), but may name the other diamond */
    struct engine_error e =
        sc_rules_refused("standard bonus_card=JD card_points=JD:-3", 4,
                         ENGINE_ERR_CARD_IS_BONUS);
    assert_int_equal(e.card, ENGINE_JD);
    e = sc_rules_refused("omnibus card_points=TD:5", 4,
                         ENGINE_ERR_CARD_IS_BONUS);
    assert_int_equal(e.card, ENGINE_TD);
    sc_rules(&r, "standard bonus_card=JD card_points=TD:-3", 4);
    assert_int_equal(r.points[ENGINE_TD], -3);
    assert_int_equal(r.points[ENGINE_JD], -10);
}

static void test_rules_finish_special_bits(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int players;
        uint32_t special;
    } rows[] = {
        {"standard", 4, 0},
        {"standard first_trick_points=forbidden", 4,
         ENGINE_SPECIAL_FIRST_TRICK},
        {"standard dump_queen=on", 4, ENGINE_SPECIAL_DUMP_QUEEN},
        {"joker", 4, ENGINE_SPECIAL_JOKER},
        {"cancellation", 8, ENGINE_SPECIAL_CANCEL},
        {"cancellation", 6, ENGINE_SPECIAL_CANCEL | ENGINE_SPECIAL_KITTY},
        {"domino", 4, ENGINE_SPECIAL_DOMINO},
        {"two-handed", 2, ENGINE_SPECIAL_TWO_HANDED},
        {"standard odd_cards=kitty", 3, ENGINE_SPECIAL_KITTY},
        {"standard", 3, 0},
        {"modern", 4, ENGINE_SPECIAL_FIRST_TRICK},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_rules r;
        sc_rules(&r, rows[i].text, rows[i].players);
        if (r.special != rows[i].special)
            fail_msg("%s for %d: special %#x, want %#x", rows[i].text,
                     rows[i].players, r.special, rows[i].special);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_changes_name_what_differs),
        cmocka_unit_test(test_rules_parse_every_preset_for_every_player_count),
        cmocka_unit_test(test_rules_parse_preset_default_player_count),
        cmocka_unit_test(test_rules_parse_preset_refused_outside_its_range),
        cmocka_unit_test(test_rules_parse_preset_struct_fields),
        cmocka_unit_test(test_rules_parse_overrides_on_a_preset),
        cmocka_unit_test(test_rules_parse_card_points_merge_on_the_preset),
        cmocka_unit_test(test_rules_parse_qs_points_is_card_points_qs),
        cmocka_unit_test(test_rules_parse_names_the_nearest_word),
        cmocka_unit_test(test_rules_error_cuts_a_long_word_at_a_character),
        cmocka_unit_test(test_word_distance_counts_a_swap_as_one_edit),
        cmocka_unit_test(test_rules_parse_refuses_bad_values),
        cmocka_unit_test(test_rules_parse_refuses_combinations),
        cmocka_unit_test(test_rules_parse_refused_leaves_rules_unchanged),
        cmocka_unit_test(test_rules_init_unknown_preset),
        cmocka_unit_test(test_rules_get_round_trips_through_set),
        cmocka_unit_test(test_rules_differs_only_for_overrides),
        cmocka_unit_test(test_rules_parse_refuses_an_option_named_twice),
        cmocka_unit_test(test_rules_over_replaces_the_channels_options),
        cmocka_unit_test(test_rules_finish_remove_tables),
        cmocka_unit_test(test_rules_finish_hand_and_rest_sizes),
        cmocka_unit_test(test_rules_finish_points_per_card),
        cmocka_unit_test(test_rules_finish_bonus_card),
        cmocka_unit_test(test_rules_finish_special_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
