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
        assert_non_null(engine_preset_summary(i));
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
        char range[32];
        if (p->min == p->max)
            snprintf(range, sizeof range, "for %d players", p->min);
        else
            snprintf(range, sizeof range, "for %d to %d players", p->min,
                     p->max);
        sc_rules_refused(p->name, p->min - 1, range);
        sc_rules_refused(p->name, p->max + 1, range);
        sc_rules_refused(p->name, p->max + 1, p->name);
    }
    /* the same through the players option */
    sc_rules_refused("modern players=7", 0, "3 to 6");
    sc_rules_refused("heartsette players=7", 0, "3 to 6");
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
    sc_rules_refused("standard card_points=JK:7", 4, "JK is not in the pack");
    sc_rules_refused("standard card_points=2D:1", 3, "2D is not in the pack");
}

/* Every option may be named once in a text: the second is refused by
 * name, whatever its value, card_points like any other. */
static void test_rules_parse_refuses_an_option_named_twice(void **state)
{
    (void)state;
    struct engine_rules r;
    char err[300];
    static const struct {
        const char *text;
        const char *key;
    } cases[] = {
        {"standard target=50 target=89", "target is given twice"},
        {"target=50 TARGET=50", "TARGET is given twice"},
        {"omnibus moon=add_others moon=subtract", "moon is given twice"},
        {"standard card_points=KS:10 card_points=AS:7", "card_points is given"},
        {"greek card_points=none card_points=AC:2", "card_points is given"},
        {"standard players=5 target=20 players=5", "players is given twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&r, 0x5a, sizeof r);
        struct engine_rules before = r;
        err[0] = '\0';
        assert_int_equal(
            engine_rules_parse(&r, cases[i].text, 4, err, sizeof err), -1);
        if (!strstr(err, cases[i].key))
            fail_msg("'%s': '%s'", cases[i].text, err);
        assert_memory_equal(&r, &before, sizeof r); /* nothing changed */
    }
    /* once each is fine, and an unknown key is named as unknown */
    assert_int_equal(
        engine_rules_parse(&r, "target=50 hands=3", 4, err, sizeof err), 0);
    assert_int_equal(
        engine_rules_parse(&r, "tagret=5 tagret=5", 4, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown option 'tagret'"));
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
    char err[300];
    assert_int_equal(engine_rules_parse(&r, out, 4, err, sizeof err), -1);
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
    assert_int_equal(engine_rules_parse(&r, out, 4, err, sizeof err), 0);
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
    sc_rules_refused("standard qs_points=7 card_points=QS:8", 4, "QS");
    sc_rules_refused("standard card_points=QS:8 qs_points=7", 4, "QS");
    sc_rules_refused("standard card_points=QS:8 qs_points=7", 4, "once");

    /* qs_points 0 takes the QS out of the penalty cards */
    sc_rules(&a, "standard qs_points=0", 4);
    assert_false(a.penalty & ENGINE_BIT(ENGINE_QS));
    assert_false(a.scoring & ENGINE_BIT(ENGINE_QS));
}

/* ---- Messages ---------------------------------------------------------- */

static void test_rules_parse_names_the_nearest_word(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *needle;
    } rows[] = {
        {"standard tagret=150", "did you mean 'target'"},
        {"standard tagret=150", "tagret"},
        {"standard moon=subtrakt", "did you mean 'subtract'"},
        {"standard moon=subtrakt", "moon"},
        {"omnibuss", "did you mean 'omnibus'"},
        {"blackmaria", "did you mean 'black-maria'"},
        {"standard odd_cards=kity", "did you mean 'kitty'"},
        {"standard pass_cycle=left,rigth", "did you mean 'right'"},
        {"standard tie=shar", "did you mean 'share'"},
        {"standard partners=team", "did you mean 'team_score'"},
        {"standard remove_table=bigD2", "did you mean 'bigd'"},
        {"standard heart_ponts=spot", "did you mean 'heart_points'"},
        {"standard bonus_card=QD", "bonus_card"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        sc_rules_refused(rows[i].text, 4, rows[i].needle);
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
        const char *needle;
    } rows[] = {
        /* integers out of range or not numbers */
        {"standard target=0", "target"},
        {"standard target=-5", "target"},
        {"standard target=abc", "target"},
        {"standard target=12x", "target"},
        {"standard target=", "target"},
        {"standard pass_count=5", "pass_count"},
        {"standard pass_count=-1", "from 0 to 4"},
        {"standard decks=3", "decks"},
        {"standard players=1", "players"},
        {"standard players=11", "from 2 to 10"},
        {"standard ace_spot_value=7", "1 or 14"},
        {"standard ace_spot_value=0", "ace_spot_value"},
        {"standard hands=-1", "hands"},
        {"standard moon_points=-1", "moon_points"},
        {"standard qs_points=5000", "qs_points"},
        {"standard bonus_points=x", "bonus_points"},
        /* the catalogue's limits, refused with the range named */
        {"standard target=1001", "target: a whole number from 1 to 1000"},
        {"standard target=100000", "from 1 to 1000"},
        {"standard hands=1001", "hands: a whole number from 0 to 1000"},
        {"standard moon_points=1001", "moon_points: a whole number from 0 to "
                                      "1000"},
        {"standard qs_points=-1001", "from -1000 to 1000"},
        {"standard bonus_points=1001", "from -1000 to 1000"},
        {"standard card_points=KS:-1001", "from -1000 to 1000"},
        /* booleans */
        {"standard joker=maybe", "on or off"},
        {"standard sun=2", "sun"},
        /* pass cycles */
        {"standard pass_cycle=", "pass_cycle"},
        {"standard pass_cycle=left,,right", "pass_cycle"},
        {"standard pass_cycle=left,right,left,right,left,right,left,right,"
         "left,right,left,right,left,right,left,right,left",
         "more than 16"},
        /* card_points */
        {"standard card_points=XX:5", "card_points"},
        {"standard card_points=QS", "card_points"},
        {"standard card_points=QS:", "QS"},
        {"standard card_points=QS:ten", "bad points 'ten' for QS"},
        {"standard card_points=QS:5000", "-1000 to 1000"},
        {"standard card_points=QS:5,", "card_points"},
        {"standard card_points=1H:5", "card_points"},
        /* the shape of the line */
        {"standard foo", "not KEY=VALUE"},
        {"standard =5", "no name"},
        {"standard moon=off omnibus", "not KEY=VALUE"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        sc_rules_refused(rows[i].text, 4, rows[i].needle);
}

/* Every combination variants.md refuses, and the nearest one it allows. */
static void test_rules_parse_refuses_combinations(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int players;
        const char *needle; /* NULL: accepted */
    } rows[] = {
        /* joker with two decks */
        {"cancellation joker=on", 6, "joker"},
        /* stock with a kitty, with two decks, with partners */
        {"domino odd_cards=kitty", 4, "odd_cards"},
        {"domino odd_cards=widow", 4, "odd_cards"},
        {"two-handed odd_cards=kitty_exchange", 2, "odd_cards"},
        {"cancellation stock=domino", 6, "stock"},
        {"domino partners=team_score", 4, "partners"},
        /* odd_cards=remove with two decks: only where 104 divides */
        {"cancellation odd_cards=remove", 6, "104"},
        {"cancellation odd_cards=remove", 7, "104"},
        {"cancellation odd_cards=remove", 8, NULL},
        {"cancellation odd_cards=remove", 9, "odd_cards"},
        {"cancellation odd_cards=remove", 10, "odd_cards"},
        /* scatter needs a multiple of players - 1 */
        {"standard pass_cycle=scatter pass_count=2", 3, NULL},
        {"standard pass_cycle=scatter pass_count=4", 3, NULL},
        {"standard pass_cycle=scatter pass_count=3", 3, "scatter"},
        {"standard pass_cycle=scatter pass_count=1", 3, "pass_count"},
        {"standard pass_cycle=scatter", 4, NULL},
        {"standard pass_cycle=scatter pass_count=2", 4, "scatter"},
        {"standard pass_cycle=scatter pass_count=4", 4, "scatter"},
        {"standard pass_cycle=scatter pass_count=4", 5, NULL},
        {"standard pass_cycle=left,scatter pass_count=3", 5, "scatter"},
        {"standard pass_cycle=scatter pass_count=0", 5, NULL},
        /* the sun needs a moon */
        {"basic sun=on", 4, "sun"},
        {"standard moon=off sun=on", 4, "moon"},
        {"basic moon=subtract sun=on", 4, NULL},
        /* cards to pass against the hand: 4 of 7 is fine */
        {"standard pass_count=4", 7, NULL},
        {"domino pass_count=4", 7, NULL},
        /* player counts: one deck 2..7, two decks 6..10 */
        {"cancellation decks=1", 8, "players"},
        {"cancellation decks=1", 7, NULL},
        {"black-lady decks=2", 5, "decks"},
        {"black-lady decks=2 odd_cards=kitty", 6, NULL},
        {"standard", 8, "players"},
        /* two players: the two-handed game only */
        {"two-handed stock=off", 2, "two-handed"},
        {"two-handed stock=domino", 2, "two_handed"},
        {"standard stock=two_handed", 4, "stock"},
        /* the modern remove table stops at 6 */
        {"standard remove_table=modern", 7, "remove_table"},
        {"standard remove_table=modern", 6, NULL},
        {"standard remove_table=modern odd_cards=kitty", 7, NULL},
        /* a widow is for 3 to 6 players and one deck */
        {"basic odd_cards=widow", 7, "widow"},
        {"basic odd_cards=widow", 3, NULL},
        {"cancellation odd_cards=widow", 6, "widow"},
        /* partners are four */
        {"standard partners=team_score", 5, "partners"},
        {"standard partners=individual_score", 3, "partners"},
        {"standard partners=individual_score", 4, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].needle) {
            sc_rules_refused(rows[i].text, rows[i].players, rows[i].needle);
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
        char err[256] = "";
        int players = strcmp(bad[i], "modern") == 0 ? 7 : 3;
        assert_int_equal(
            engine_rules_parse(&r, bad[i], players, err, sizeof err), -1);
        assert_true(err[0] != '\0');
        assert_memory_equal(&r, &before, sizeof r);
    }
    /* a refused set and a refused finish change nothing either */
    char err[256];
    assert_int_equal(engine_rules_set(&r, "moon", "nope", err, sizeof err), -1);
    assert_int_equal(
        engine_rules_set(&r, "card_points", "KS:1,ZZ:2", err, sizeof err), -1);
    assert_int_equal(
        engine_rules_set(&r, "pass_cycle", "left,upward", err, sizeof err), -1);
    assert_int_equal(engine_rules_set(&r, "bogus", "1", err, sizeof err), -1);
    assert_memory_equal(&r, &before, sizeof r);
    struct engine_rules t = r;
    assert_int_equal(
        engine_rules_set(&t, "partners", "team_score", err, sizeof err), 0);
    struct engine_rules u = t;
    assert_int_equal(engine_rules_finish(&t, err, sizeof err), -1);
    assert_memory_equal(&t, &u, sizeof t);
}

static void test_rules_init_unknown_preset(void **state)
{
    (void)state;
    struct engine_rules r;
    char err[256];
    assert_int_equal(engine_rules_init(&r, "grek", err, sizeof err), -1);
    assert_non_null(strstr(err, "greek"));
    assert_int_equal(engine_rules_init(&r, NULL, err, sizeof err), 0);
    assert_int_equal(r.preset, engine_preset_find("standard"));
    assert_int_equal(engine_preset_find("nonesuch"), -1);
    assert_int_equal(engine_option_find("nonesuch"), -1);
    assert_int_equal(engine_option_find("TARGET"),
                     engine_option_find("target"));
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
        char err[256], got[256];
        sc_rules(&r, "standard", 4);
        if (engine_rules_set(&r, rows[i].key, rows[i].typed, err, sizeof err))
            fail_msg("%s=%s refused: %s", rows[i].key, rows[i].typed, err);
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
            char a[256], b[256], err[256];
            engine_rules_get(&r, o, a, sizeof a);
            if (engine_rules_set(&t, engine_option_name(o), a, err, sizeof err))
                fail_msg("%s: %s=%s does not set back: %s", preset_rows[p].name,
                         engine_option_name(o), a, err);
            engine_rules_get(&t, o, b, sizeof b);
            assert_string_equal(a, b);
        }
        char err[256];
        assert_int_equal(engine_rules_finish(&t, err, sizeof err), 0);
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
    char err[300], buf[64];
    assert_int_equal(
        engine_rules_parse(&r, "standard players=3", 0, err, sizeof err), 0);
    assert_int_equal(engine_rules_changes(&r, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(
        engine_rules_parse(&r, "omnibus hands=2 target=50", 0, err, sizeof err),
        0);
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
            sc_rules_refused(text, rows[i].players, "remove_table");
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
    sc_rules_refused("standard bonus_card=JD card_points=JD:-3", 4,
                     "JD is the bonus card");
    sc_rules_refused("omnibus card_points=TD:5", 4, "bonus_points");
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
