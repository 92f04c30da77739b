/*
 * Tests of storage/record/record.c on records that must be refused: each wrong
 * thing a record can say (unknown format, option or value; a deal that is
 * not the pack; an action the rules refuse; wrong points, totals or
 * winners; actions after the end), with a message naming where, and a
 * table of malformed lines (truncated, wrong types in every field, huge
 * numbers, junk, garbage bytes, deep nesting, huge lines) that must all be
 * refused cleanly. Run under ASan and valgrind by the CI.
 */
#include "storage/record/record.h"
#include "tests/support/scenario.h"

#include <json-c/json.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static const char *const names[ENGINE_MAX_PLAYERS] = {
    "ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy", "jo"};

/* ---- Making records --------------------------------------------------- */

static int lowest(uint64_t set)
{
    return __builtin_ctzll(set);
}

/* Plays a whole game choosing the lowest legal cards (and the lowest cards
 * to pass and discard, blind when allowed if `blind`), and returns its
 * record, parsed. */
static struct record *game_record(const char *text, int players, bool blind,
                                  uint64_t seed)
{
    struct engine_rules r;
    sc_rules(&r, text, players);
    struct record_writer *w = record_writer_new(&r, names, r.players);
    const struct engine_sink *sink = record_writer_sink(w);
    struct engine_game g;
    engine_game_init(&g, &r, seed, 0);
    for (long i = 0; engine_phase(&g) != ENGINE_PHASE_GAME_OVER; i++) {
        assert_true(i < 1000000);
        if (engine_phase(&g) == ENGINE_PHASE_DEAL) {
            assert_int_equal(engine_deal(&g, sink), 0);
            continue;
        }
        struct engine_action a = {.kind = ENGINE_ACT_PLAY};
        if (engine_phase(&g) == ENGINE_PHASE_PASS) {
            int s = 0;
            while (!engine_may_act(&g, s))
                s++;
            bool blind_ok;
            a.seat = (uint8_t)s;
            a.ncards = (uint8_t)engine_pass_count(&g, s, &blind_ok);
            /* odd seats pass blind: chains of both kinds */
            if (blind && blind_ok && s % 2) {
                a.kind = ENGINE_ACT_PASS_BLIND;
            } else {
                a.kind = ENGINE_ACT_PASS;
                uint64_t h = engine_hand(&g, s).one;
                for (int i2 = 0; i2 < a.ncards; i2++, h &= h - 1)
                    a.cards[i2] = (uint8_t)lowest(h);
            }
        } else if (engine_phase(&g) == ENGINE_PHASE_DISCARD) {
            a.kind = ENGINE_ACT_DISCARD;
            a.seat = (uint8_t)engine_turn(&g);
            a.ncards = (uint8_t)engine_discard_count(&g);
            uint64_t h = engine_hand(&g, a.seat).one;
            for (int i2 = 0; i2 < a.ncards; i2++, h &= h - 1)
                a.cards[i2] = (uint8_t)lowest(h);
        } else if (engine_phase(&g) == ENGINE_PHASE_MOON) {
            a.kind = ENGINE_ACT_MOON;
            a.seat = (uint8_t)engine_turn(&g);
            a.moon = ENGINE_MOON_SUBTRACT;
        } else {
            a.seat = (uint8_t)engine_turn(&g);
            a.cards[0] = (uint8_t)lowest(engine_legal_plays(&g));
        }
        assert_int_equal(engine_act(&g, &a, sink, NULL), ENGINE_OK);
    }
    char *json = record_writer_json(w);
    struct record *rec = NULL;
    char err[256];
    if (record_parse(json, strlen(json), &rec, err, sizeof err))
        fail_msg("%s", err);
    free(json);
    record_writer_free(w);
    return rec;
}

static struct record *standard_record(void)
{
    return game_record("standard", 4, false, 42);
}

/* Asserts the line is refused with a message containing needle. */
static void refused_line(const char *line, size_t len, const char *needle)
{
    char err[512] = "";
    if (record_check(line, len, err, sizeof err) == 0)
        fail_msg("accepted, expected '%s': %.300s", needle, line);
    if (!strstr(err, needle))
        fail_msg("message '%s' lacks '%s'", err, needle);
}

static void refused(const struct record *rec, const char *needle)
{
    char *json = record_to_json(rec);
    refused_line(json, strlen(json), needle);
    free(json);
}

static void accepted_line(const char *line)
{
    char err[512] = "";
    if (record_check(line, strlen(line), err, sizeof err))
        fail_msg("refused: %s\n%.300s", err, line);
}

/* The record's JSON with one field set to the raw JSON text `value` (which
 * may be anything, even invalid), or removed if value is NULL. `hand` >= 0
 * picks a field of that hand, else of the record. */
static char *with_field(const struct record *rec, int hand, const char *key,
                        const char *value)
{
    static const char mark[] = "\"@@value@@\"";
    char *json = record_to_json(rec);
    struct json_object *root = json_tokener_parse(json);
    free(json);
    assert_non_null(root);
    struct json_object *obj = root;
    if (hand >= 0) {
        struct json_object *hands;
        assert_true(json_object_object_get_ex(root, "hands", &hands));
        obj = json_object_array_get_idx(hands, (size_t)hand);
    }
    if (value)
        json_object_object_add(obj, key, json_object_new_string("@@value@@"));
    else
        json_object_object_del(obj, key);
    const char *text = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    const char *at = strstr(text, mark);
    size_t vlen = value ? strlen(value) : 0;
    char *out = malloc(strlen(text) + vlen + 1);
    assert_non_null(out);
    if (at) {
        size_t head = (size_t)(at - text);
        memcpy(out, text, head);
        memcpy(out + head, value, vlen);
        strcpy(out + head + vlen, at + sizeof mark - 1);
    } else {
        strcpy(out, text);
    }
    json_object_put(root);
    return out;
}

static void refused_field(const struct record *rec, int hand, const char *key,
                          const char *value, const char *needle)
{
    char *json = with_field(rec, hand, key, value);
    refused_line(json, strlen(json), needle);
    free(json);
}

/* ---- The record's head ------------------------------------------------ */

static void test_record_parse_unknown_format(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    refused_field(rec, -1, "format", "\"hearts-record/2\"",
                  "format: 'hearts-record/2' is not hearts-record/1");
    refused_field(rec, -1, "format", NULL, "format");
    refused_field(rec, -1, "format", "1", "format");
    record_free(rec);
}

static void test_record_parse_unknown_option_names_nearest(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    refused_field(rec, -1, "options", "{\"mooon\":\"subtract\"}",
                  "options: unknown option 'mooon' (did you mean 'moon'?)");
    refused_field(rec, -1, "options", "{\"moon\":\"sometimes\"}",
                  "bad value 'sometimes' for moon");
    refused_field(rec, -1, "options", "{\"target\":0}",
                  "bad value '0' for target");
    refused_field(rec, -1, "options", "{\"target\":[100]}",
                  "options: target: a string or a whole number, not a list");
    refused_field(rec, -1, "options", "{\"players\":5}",
                  "options: players is 5 but the record names 4 players");
    refused_field(rec, -1, "preset", "\"standrd\"",
                  "preset: unknown preset 'standrd' (did you mean "
                  "'standard'?)");
    refused_field(rec, -1, "players", "[\"a\",\"b\"]",
                  "rules: standard is for 3 to 7 players, not 2");
    refused_field(rec, -1, "colour", "\"red\"", "unknown field 'colour'");
    refused_field(rec, 0, "colour", "\"red\"",
                  "hand 1: unknown field 'colour'");
    record_free(rec);
}

static void test_record_parse_options_repeating_the_preset(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    char *json = with_field(
        rec, -1, "options",
        "{\"moon\":\"choice\",\"target\":\"100\",\"players\":4,"
        "\"pass_cycle\":\"left,right,across,hold\",\"joker\":false}");
    accepted_line(json);
    free(json);
    record_free(rec);
}

/* ---- Deals ------------------------------------------------------------ */

static void test_record_replay_duplicate_card_in_deal(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    char needle[64];
    snprintf(needle, sizeof needle,
             "hand 2: deal: %s is dealt twice and %s "
             "is missing",
             engine_card_name(rec->hands[1].deal[0][0]),
             engine_card_name(rec->hands[1].deal[1][0]));
    rec->hands[1].deal[1][0] = rec->hands[1].deal[0][0];
    refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_card_not_in_pack(void **state)
{
    (void)state;
    /* three players: the 2D is out of the pack */
    struct record *rec = game_record("standard", 3, false, 1);
    char needle[64];
    snprintf(needle, sizeof needle,
             "hand 1: deal: 2D is not in this game's pack and %s is missing",
             engine_card_name(rec->hands[0].deal[2][5]));
    rec->hands[0].deal[2][5] = ENGINE_CARD(ENGINE_DIAMONDS, 0);
    refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_wrong_deal_sizes(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    rec->hands[0].ndeal[3] = 12;
    refused(rec, "hand 1: deal: seat 3 is dealt 12 cards, not 13");
    rec->hands[0].ndeal[3] = 13;
    rec->hands[0].nrest = 1;
    rec->hands[0].rest[0] = ENGINE_QS;
    refused(rec, "hand 1: rest: 1 cards, not 0");
    record_free(rec);
}

static void test_record_replay_dealer_must_rotate(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    rec->hands[2].dealer = (rec->hands[2].dealer + 1) % 4;
    refused(rec, "hand 3: dealer: seat 3, but the deal passes clockwise "
                 "from seat 0 (hand 1) to seat 2");
    record_free(rec);
}

static void test_record_replay_pass_direction_must_match(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    rec->hands[0].pass = ENGINE_PASS_RIGHT;
    refused(rec, "hand 1: pass: \"right\", but the rules make it \"left\"");
    record_free(rec);
}

/* ---- Passes ----------------------------------------------------------- */

static void test_record_replay_pass_of_wrong_count(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    rec->hands[0].npassed[1] = 2;
    refused(rec, "hand 1, action 2: seat 1 passes 2 cards");
    rec->hands[0].npassed[1] = 0;
    refused(rec, "hand 1, action 2: seat 1 passes 0 cards (nothing), not 3");
    record_free(rec);
}

static void test_record_replay_pass_of_card_not_held(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    int card = rec->hands[0].deal[0][0];
    rec->hands[0].passed[2][1] = (uint8_t)card;
    char needle[80];
    snprintf(needle, sizeof needle,
             "hand 1, action 3: seat 2 passes %s, which it does not hold",
             engine_card_name(card));
    refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_blind_pass_checks(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    rec->hands[0].blind = 1u << 2;
    refused(rec, "hand 1, action 3: seat 2 may not pass blind");
    record_free(rec);

    rec = game_record("standard pass_blind=on", 4, true, 3);
    struct record_hand *h = &rec->hands[0];
    assert_int_equal(h->blind, 0xA); /* seats 1 and 3 */
    assert_int_equal(h->npassed[1], 3);
    /* seat 1 passed on what seat 0 chose */
    assert_memory_equal(h->passed[1], h->passed[0], 3);
    h->passed[1][0] = h->passed[0][1];
    h->passed[1][1] = h->passed[0][0];
    char needle[128], a[16], b[16];
    snprintf(a, sizeof a, "%s %s %s", engine_card_name(h->passed[0][0]),
             engine_card_name(h->passed[0][1]),
             engine_card_name(h->passed[0][2]));
    snprintf(b, sizeof b, "%s %s %s", engine_card_name(h->passed[1][0]),
             engine_card_name(h->passed[1][1]),
             engine_card_name(h->passed[1][2]));
    snprintf(needle, sizeof needle,
             "hand 1, action 2: seat 1 passed blind, so it passed on %s, "
             "not %s",
             a, b);
    refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_passes_in_hold_hand(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    assert_int_equal(rec->hands[3].pass, ENGINE_PASS_HOLD);
    rec->hands[3].npassed[0] = 1;
    rec->hands[3].passed[0][0] = rec->hands[3].deal[0][0];
    refused(rec, "hand 4: passed: seat 0 passes in a hand without passing");
    record_free(rec);
}

/* ---- Plays ------------------------------------------------------------ */

/* Finds, with the step callback, the first play where the seat could
 * break a rule: hold a card of the suit led and one of another suit
 * (kind 0), or simply follow a lead (kind 1: then a card it does not hold
 * is taken from the next seat). */
struct find {
    int kind;
    bool found;
    int hand, action, index, seat, card;
    int suit;
};

static void find_step(void *ctx, const struct engine_game *g, int hand,
                      int action, const struct engine_action *a)
{
    struct find *f = ctx;
    if (f->found || a->kind != ENGINE_ACT_PLAY || g->trick_len == 0)
        return;
    int led = engine_card_suit(g->trick[0]);
    uint64_t h = engine_hand(g, a->seat).one;
    uint64_t off = h & ~ENGINE_SUIT_MASK(led);
    if (f->kind == 0 && (h & ENGINE_SUIT_MASK(led)) && off) {
        f->card = lowest(off);
    } else if (f->kind == 1) {
        f->card = lowest(engine_hand(g, (a->seat + 1) % g->n).one);
    } else {
        return;
    }
    f->found = true;
    f->hand = hand;
    f->action = action;
    f->index = g->nplays;
    f->seat = a->seat;
    f->suit = led;
}

static void test_record_replay_illegal_play_not_following(void **state)
{
    (void)state;
    static const char *const suits[] = {"clubs", "diamonds", "hearts",
                                        "spades"};
    struct record *rec = standard_record();
    struct find f = {.kind = 0};
    assert_int_equal(record_replay(rec, NULL, find_step, &f, NULL, NULL, 0), 0);
    assert_true(f.found);
    rec->hands[f.hand - 1].plays[f.index] = (uint8_t)f.card;
    char needle[128];
    snprintf(needle, sizeof needle,
             "hand %d, action %d: seat %d plays %s but must follow %s", f.hand,
             f.action, f.seat, engine_card_name(f.card), suits[f.suit]);
    refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_play_of_card_not_held(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    struct find f = {.kind = 1};
    assert_int_equal(record_replay(rec, NULL, find_step, &f, NULL, NULL, 0), 0);
    assert_true(f.found);
    rec->hands[f.hand - 1].plays[f.index] = (uint8_t)f.card;
    char needle[128];
    snprintf(needle, sizeof needle,
             "hand %d, action %d: seat %d plays %s, which it does not hold",
             f.hand, f.action, f.seat, engine_card_name(f.card));
    refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_first_lead_must_be_two_clubs(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    /* hand 4 holds (no passing): its first play is action 1 */
    struct record_hand *h = &rec->hands[3];
    assert_int_equal(h->plays[0], ENGINE_2C);
    int seat = 0;
    uint64_t held = 0;
    for (int s = 0; s < 4; s++) {
        uint64_t set = 0;
        for (int i = 0; i < h->ndeal[s]; i++)
            set |= ENGINE_BIT(h->deal[s][i]);
        if (set & ENGINE_BIT(ENGINE_2C)) {
            seat = s;
            held = set;
        }
    }
    assert_true(held & ENGINE_BIT(ENGINE_2C));
    int other = lowest(held & ~ENGINE_BIT(ENGINE_2C));
    h->plays[0] = (uint8_t)other;
    char needle[128];
    snprintf(needle, sizeof needle,
             "hand 4, action 1: seat %d leads %s but must lead 2C", seat,
             engine_card_name(other));
    refused(rec, needle);
    record_free(rec);
}

static void test_record_parse_bad_card_text(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    char *json = record_to_json(rec);
    /* the first play of hand 1 is the 2C: write it as junk */
    char *p = strstr(json, "\"plays\":[\"2C\"");
    assert_non_null(p);
    memcpy(p + 10, "ZZ", 2);
    refused_line(json, strlen(json), "hand 1: plays[0]: 'ZZ' is not a card");
    free(json);
    record_free(rec);
}

/* ---- Points, totals, winners ------------------------------------------ */

static void test_record_replay_wrong_points(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    int right = rec->hands[1].points[2];
    rec->hands[1].points[2] = right + 1;
    char needle[96];
    snprintf(needle, sizeof needle,
             "hand 2: points: seat 2 scores %d, the record says %d", right,
             right + 1);
    refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_wrong_totals(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    int right = rec->totals[3];
    rec->totals[3] = right - 5;
    char needle[96];
    snprintf(needle, sizeof needle, "totals: seat 3 has %d, the record says %d",
             right, right - 5);
    refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_wrong_winners(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    assert_int_equal(rec->nwinners, 1);
    int right = rec->winners[0];
    rec->winners[0] = (uint8_t)((right + 1) % 4);
    char needle[96];
    snprintf(needle, sizeof needle, "winners: seats %d win, the record says %d",
             right, (right + 1) % 4);
    refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_totals_before_game_over(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    rec->nhands--;
    refused(rec, "totals: given, but the game is not over");
    rec->has_totals = false;
    refused(rec, "winners: given, but the game is not over");
    rec->has_winners = false;
    char *json = record_to_json(rec);
    accepted_line(json); /* a journal between two hands */
    free(json);
    record_free(rec);
}

/* ---- The end of hands and games --------------------------------------- */

static void test_record_replay_actions_after_game_over(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    int n = rec->nhands;
    rec->hands = realloc(rec->hands, sizeof *rec->hands * (size_t)(n + 1));
    assert_non_null(rec->hands);
    rec->hands[n] = rec->hands[n - 1];
    rec->hands[n].dealer = (rec->hands[n].dealer + 1) % 4;
    rec->nhands = n + 1;
    char needle[96];
    snprintf(needle, sizeof needle,
             "hand %d: the game was over after hand %d, but the record goes "
             "on",
             n + 1, n);
    refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_plays_after_hand_over(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    struct record_hand *h = &rec->hands[0];
    assert_int_equal(h->nplays, 52);
    h->plays[52] = h->plays[0];
    h->nplays = 53;
    /* 4 passes and 52 plays: the 53rd play is action 57 */
    refused(rec, "hand 1, action 57: the hand is over, but the record "
                 "plays on (2C)");
    record_free(rec);
}

static void test_record_replay_unfinished_hand_then_more(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    rec->hands[0].nplays = 10;
    refused(rec, "hand 1, action 15: the hand is not finished, but the "
                 "record goes on");
    rec->nhands = 1;
    rec->has_totals = rec->has_winners = false;
    refused(rec, "hand 1: points: given, but the hand is not finished");
    rec->hands[0].has_points = false;
    char *json = record_to_json(rec);
    accepted_line(json); /* the same as a journal */
    free(json);
    record_free(rec);
}

static void test_record_replay_discard_checks(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    rec->hands[0].ndiscard = 1;
    rec->hands[0].discard[0] = rec->hands[0].plays[51];
    refused(rec, "hand 1: discard: given, but nobody took a kitty");
    record_free(rec);

    rec = game_record("standard odd_cards=kitty_exchange", 3, false, 8);
    assert_int_equal(rec->hands[0].ndiscard, 1);
    /* 3 passes, the first trick: the discard is action 7 */
    rec->hands[0].ndiscard = 0;
    refused(rec, "hand 1, action 7: seat");
    refused(rec, "must discard 1 cards, but the record plays on (discard is "
                 "missing)");
    record_free(rec);
}

/* The moon game of test_record.c, made here from the lowest cards: seat 0
 * holds every heart and leads each one. */
static struct record *moon_record(void)
{
    struct engine_rules r;
    sc_rules(&r, "party moon=choice pass_count=0", 4);
    struct record_writer *w = record_writer_new(&r, names, 4);
    struct engine_game g;
    engine_game_init(&g, &r, 1, 3);
    uint8_t pack[52];
    int k = 0;
    for (int rank = 0; rank < 13; rank++)
        for (int suit = 0; suit < 4; suit++) /* seat 0 is dealt first */
            pack[k++] = (uint8_t)ENGINE_CARD((ENGINE_HEARTS + suit) % 4, rank);
    char err[256];
    assert_int_equal(engine_deal_given(&g, 3, pack, 52, record_writer_sink(w),
                                       err, sizeof err),
                     0);
    while (engine_phase(&g) == ENGINE_PHASE_PLAY)
        assert_int_equal(engine_play(&g, lowest(engine_legal_plays(&g)),
                                     record_writer_sink(w), NULL),
                         ENGINE_OK);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
    struct engine_action a = {.kind = ENGINE_ACT_MOON,
                              .moon = ENGINE_MOON_SUBTRACT};
    assert_int_equal(engine_act(&g, &a, record_writer_sink(w), NULL),
                     ENGINE_OK);
    char *json = record_writer_json(w);
    struct record *rec;
    assert_int_equal(record_parse(json, strlen(json), &rec, err, sizeof err),
                     0);
    free(json);
    record_writer_free(w);
    return rec;
}

static void test_record_replay_moon_missing(void **state)
{
    (void)state;
    struct record *rec = moon_record();
    assert_int_equal(rec->hands[0].moon, ENGINE_MOON_SUBTRACT);
    assert_int_equal(rec->hands[0].points[0], -26);
    rec->hands[0].moon = RECORD_NONE;
    /* no passing: 52 plays, then the choice */
    refused(rec, "hand 1, action 53: seat 0 shot the moon and chooses, but "
                 "moon is missing");
    rec->hands[0].has_points = false;
    char *json = record_to_json(rec);
    accepted_line(json); /* a journal may stop while the shooter chooses */
    free(json);
    rec->hands[0].moon = ENGINE_MOON_ADD_OTHERS;
    rec->hands[0].has_points = true;
    refused(rec, "hand 1: points: seat 0 scores 0, the record says -26");
    record_free(rec);
}

static void test_record_replay_moon_where_none(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    assert_int_equal(rec->hands[0].moon, RECORD_NONE);
    rec->hands[0].moon = ENGINE_MOON_SUBTRACT;
    refused(rec, "hand 1: moon: given, but nobody shot the moon");
    record_free(rec);
    rec = game_record("modern", 4, false, 5);
    rec->hands[0].moon = ENGINE_MOON_SUBTRACT;
    refused(rec, "hand 1: moon: given, but the rules are not moon=choice");
    record_free(rec);
}

/* ---- Malformed lines -------------------------------------------------- */

static void test_record_parse_every_truncation_refused(void **state)
{
    (void)state;
    struct record *rec = standard_record();
    rec->nhands = 2; /* a shorter line keeps this quick under valgrind */
    rec->has_totals = rec->has_winners = false;
    char *json = record_to_json(rec);
    size_t len = strlen(json);
    accepted_line(json);
    for (size_t cut = 0; cut < len; cut++) {
        char err[256] = "";
        struct record *out = (struct record *)&err; /* must stay */
        if (record_parse(json, cut, &out, err, sizeof err) == 0)
            fail_msg("a record cut at %zu parsed", cut);
        assert_ptr_equal(out, (struct record *)&err);
        assert_true(err[0] != '\0');
    }
    free(json);
    record_free(rec);
}

static void test_record_parse_wrong_types_in_every_field(void **state)
{
    (void)state;
    static const char *const junk[] = {"null",
                                       "true",
                                       "0",
                                       "-1",
                                       "1.5",
                                       "\"x\"",
                                       "[]",
                                       "{}",
                                       "[1]",
                                       "[[]]",
                                       "[null]",
                                       "[\"QS\"]",
                                       "1e400",
                                       "99999999999999999999",
                                       "18446744073709551615",
                                       "-9223372036854775809",
                                       "[-1]",
                                       "[4]",
                                       "[{}]",
                                       "\"\""};
    static const char *const top[] = {"format", "preset", "options", "players",
                                      "hands",  "totals", "winners"};
    static const char *const hand[] = {"dealer", "pass",  "deal",    "rest",
                                       "passed", "blind", "discard", "plays",
                                       "moon",   "points"};
    /* what may legitimately stand in hand 1 of this record: null for
     * optional fields, empty lists where nothing was there */
    static const char *const fine[] = {
        "options=null", "options={}",   "totals=null", "winners=null",
        "pass=null",    "rest=null",    "rest=[]",     "blind=null",
        "blind=[]",     "discard=null", "discard=[]",  "moon=null",
        "points=null",  "dealer=0"};
    struct record *rec = standard_record();
    assert_int_equal(rec->hands[0].dealer, 0);
    assert_int_equal(rec->nwinners, 1);
    char right_winner[32];
    snprintf(right_winner, sizeof right_winner, "winners=[%d]",
             rec->winners[0]);
    for (int where = -1; where <= 0; where++) {
        const char *const *keys = where < 0 ? top : hand;
        size_t nkeys = where < 0 ? sizeof top / sizeof top[0]
                                 : sizeof hand / sizeof hand[0];
        for (size_t k = 0; k < nkeys; k++) {
            for (size_t j = 0; j < sizeof junk / sizeof junk[0]; j++) {
                char name[64];
                snprintf(name, sizeof name, "%s=%s", keys[k], junk[j]);
                bool ok = false;
                for (size_t f = 0; f < sizeof fine / sizeof fine[0]; f++)
                    ok = ok || !strcmp(name, fine[f]);
                ok = ok || !strcmp(name, right_winner);
                char *json = with_field(rec, where, keys[k], junk[j]);
                char err[512] = "";
                int rc = record_check(json, strlen(json), err, sizeof err);
                if ((rc == 0) != ok)
                    fail_msg("%s: %s", name, rc ? err : "accepted");
                free(json);
            }
        }
    }
    record_free(rec);
}

static void test_record_parse_malformed_lines_refused(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "",
        "   ",
        "{",
        "}",
        "null",
        "42",
        "\"record\"",
        "[{\"format\":\"hearts-record/1\"}]",
        "{\"format\":\"hearts-record/1\"}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\"}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[{}]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[{\"dealer\":-1,"
        "\"deal\":[[],[],[],[]],\"plays\":[]}]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[{\"dealer\":4,"
        "\"deal\":[[],[],[],[]],\"plays\":[]}]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[{\"dealer\":0,"
        "\"deal\":[[],[],[],[]],\"plays\":[]}]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[],\"winners\":"
        "[0,0]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[],\"totals\":"
        "[1,2,3,4]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\","
        "\"i\",\"j\",\"k\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\\u0000b\",\"b\",\"c\",\"d\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[],}",
        "{'format':'hearts-record/1'}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"\xff\",\"b\",\"c\",\"d\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[]} trailing",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"options\":{\"\":1},"
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"options\":{\"card_points\":\"QS:99999999999999999999\"},"
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"options\":{\"pass_cycle\":\",,,\"},"
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"options\":{\"target\":1e400},"
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[]}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        char err[512] = "";
        if (record_check(lines[i], strlen(lines[i]), err, sizeof err) == 0)
            fail_msg("accepted: %s", lines[i]);
        assert_true(err[0] != '\0');
        for (const char *p = err; *p; p++)
            assert_true((unsigned char)*p >= 0x20);
    }
}

/* A line of `count` copies of `item` inside "...hands":[ ... ]}". */
static char *hands_of(const char *item, int count)
{
    const char *head = "{\"format\":\"hearts-record/1\",\"preset\":"
                       "\"standard\",\"players\":[\"a\",\"b\",\"c\",\"d\"],"
                       "\"hands\":[";
    size_t len = strlen(head) + (strlen(item) + 1) * (size_t)count + 3;
    char *s = malloc(len);
    assert_non_null(s);
    size_t pos = (size_t)snprintf(s, len, "%s", head);
    for (int i = 0; i < count; i++)
        pos += (size_t)snprintf(s + pos, len - pos, "%s%s", i ? "," : "", item);
    snprintf(s + pos, len - pos, "]}");
    return s;
}

static void test_record_parse_many_junk_hands_refused(void **state)
{
    (void)state;
    static const char *const items[] = {
        "[1,2,3]",
        "{}",
        "null",
        "\"hand\"",
        "{\"dealer\":0,\"deal\":[[\"QS\"],[],[],[]],\"plays\":[1]}",
        "{\"dealer\":0,\"deal\":[[],[],[],[]],\"plays\":[\"QS\",\"QS\"]}"};
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        char *line = hands_of(items[i], 200);
        char err[256] = "";
        assert_int_equal(record_check(line, strlen(line), err, sizeof err), -1);
        assert_non_null(strstr(err, "hand 1"));
        free(line);
    }
    char *line = hands_of("{}", RECORD_MAX_HANDS + 1);
    refused_line(line, strlen(line), "hands: 1001 hands, more than 1000");
    free(line);
}

static void test_record_parse_limits(void **state)
{
    (void)state;
    /* nesting deeper than any record */
    char deep[20001];
    memset(deep, '[', 10000);
    memset(deep + 10000, ']', 10000);
    deep[20000] = '\0';
    refused_line(deep, 20000, "nesting too deep");
    /* a line beyond the cap is refused before it is parsed */
    size_t big = RECORD_MAX_LINE + 1;
    char *huge = malloc(big);
    assert_non_null(huge);
    memset(huge, ' ', big);
    refused_line(huge, big, "longer than");
    free(huge);
    /* a NUL inside the line */
    static const char nul[] = "{\"format\":\"hearts-record/1\"\0}";
    refused_line(nul, sizeof nul - 1, "NUL byte");
    /* a card far too long, a name far too long */
    struct record *rec = standard_record();
    char card[400] = "[[\"";
    memset(card + 3, 'Q', 300);
    strcpy(card + 303, "\"],[],[],[]]");
    refused_field(rec, 0, "deal", card, "hand 1: deal[0][0]: 'QQQQ");
    char name[400] = "[\"";
    memset(name + 2, 'n', RECORD_MAX_NAME + 1);
    strcpy(name + 2 + RECORD_MAX_NAME + 1, "\",\"b\",\"c\",\"d\"]");
    refused_field(rec, -1, "players", name, "players[0]: a name of at most");
    record_free(rec);
}

static void test_record_parse_garbage_bytes_refused(void **state)
{
    (void)state;
    struct engine_prng rng;
    engine_prng_seed(&rng, 77);
    struct record *rec = standard_record();
    char *json = record_to_json(rec);
    size_t len = strlen(json);
    char *buf = malloc(len);
    assert_non_null(buf);
    for (int i = 0; i < 300; i++) {
        /* random bytes, and the record with random bytes changed */
        size_t n;
        if (i % 2) {
            n = engine_prng_below(&rng, 2000);
            for (size_t j = 0; j < n; j++)
                buf[j] = (char)engine_prng_below(&rng, 256);
        } else {
            n = len;
            memcpy(buf, json, len);
            for (int j = 0; j < 3; j++)
                buf[engine_prng_below(&rng, (uint32_t)len)] =
                    (char)engine_prng_below(&rng, 256);
        }
        char err[256] = "";
        struct record *out = NULL;
        if (record_parse(buf, n, &out, err, sizeof err) == 0) {
            /* a change inside a name or a card's case may still parse;
             * the replay must then still not crash */
            record_replay(out, NULL, NULL, NULL, NULL, err, sizeof err);
            record_free(out);
        } else {
            assert_true(err[0] != '\0');
        }
    }
    free(buf);
    free(json);
    record_free(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_parse_unknown_format),
        cmocka_unit_test(test_record_parse_unknown_option_names_nearest),
        cmocka_unit_test(test_record_parse_options_repeating_the_preset),
        cmocka_unit_test(test_record_replay_duplicate_card_in_deal),
        cmocka_unit_test(test_record_replay_card_not_in_pack),
        cmocka_unit_test(test_record_replay_wrong_deal_sizes),
        cmocka_unit_test(test_record_replay_dealer_must_rotate),
        cmocka_unit_test(test_record_replay_pass_direction_must_match),
        cmocka_unit_test(test_record_replay_pass_of_wrong_count),
        cmocka_unit_test(test_record_replay_pass_of_card_not_held),
        cmocka_unit_test(test_record_replay_blind_pass_checks),
        cmocka_unit_test(test_record_replay_passes_in_hold_hand),
        cmocka_unit_test(test_record_replay_illegal_play_not_following),
        cmocka_unit_test(test_record_replay_play_of_card_not_held),
        cmocka_unit_test(test_record_replay_first_lead_must_be_two_clubs),
        cmocka_unit_test(test_record_parse_bad_card_text),
        cmocka_unit_test(test_record_replay_wrong_points),
        cmocka_unit_test(test_record_replay_wrong_totals),
        cmocka_unit_test(test_record_replay_wrong_winners),
        cmocka_unit_test(test_record_replay_totals_before_game_over),
        cmocka_unit_test(test_record_replay_actions_after_game_over),
        cmocka_unit_test(test_record_replay_plays_after_hand_over),
        cmocka_unit_test(test_record_replay_unfinished_hand_then_more),
        cmocka_unit_test(test_record_replay_discard_checks),
        cmocka_unit_test(test_record_replay_moon_missing),
        cmocka_unit_test(test_record_replay_moon_where_none),
        cmocka_unit_test(test_record_parse_every_truncation_refused),
        cmocka_unit_test(test_record_parse_wrong_types_in_every_field),
        cmocka_unit_test(test_record_parse_malformed_lines_refused),
        cmocka_unit_test(test_record_parse_many_junk_hands_refused),
        cmocka_unit_test(test_record_parse_limits),
        cmocka_unit_test(test_record_parse_garbage_bytes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
